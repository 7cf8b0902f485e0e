package v1

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	maxBudgets        = 50
	maxBudgetReasons  = 50
	budgetNodesFormat = `^((100|[0-9]{1,2})%|[0-9]+)$`
)

// ParseSchedule parses a budget schedule as Karpenter does: a standard five-field cron
// expression (minute, hour, day of month, month, day of week) or one of the descriptors
// @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, in UTC.
func ParseSchedule(schedule string) (cron.Schedule, error) {
	// A descriptor must stand alone: " @every 1h" is no five-field schedule either, though the
	// cron library would read it.
	if strings.HasPrefix(strings.TrimSpace(schedule), "@") {
		switch schedule {
		case "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly":
		default:
			return nil, fmt.Errorf("unknown descriptor %q; use @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly", schedule)
		}
	} else if strings.Contains(schedule, "TZ=") {
		return nil, fmt.Errorf("time zones are not supported; schedules are in UTC")
	}
	parsed, err := cron.ParseStandard("TZ=UTC " + schedule)
	if err != nil {
		return nil, fmt.Errorf("%q is not a five-field cron schedule: %w", schedule, err)
	}
	return parsed, nil
}

func validateBudgets(path *field.Path, budgets []Budget) field.ErrorList {
	var errs field.ErrorList
	if len(budgets) > maxBudgets {
		errs = append(errs, field.Invalid(path, len(budgets), fmt.Sprintf("must have at most %d budgets, got %d", maxBudgets, len(budgets))))
	}
	for i := range budgets {
		errs = append(errs, validateBudget(path.Index(i), &budgets[i])...)
	}
	return errs
}

func validateBudget(path *field.Path, b *Budget) field.ErrorList {
	var errs field.ErrorList
	if !regexp.MustCompile(budgetNodesFormat).MatchString(b.Nodes) {
		errs = append(errs, field.Invalid(path.Child("nodes"), b.Nodes,
			fmt.Sprintf(`must be a node count such as "5" or a percentage from "0%%" to "100%%", got %q`, b.Nodes)))
	}
	errs = append(errs, validateReasons(path.Child("reasons"), b.Reasons)...)
	switch {
	case b.Schedule != nil && b.Duration == nil:
		errs = append(errs, field.Required(path.Child("duration"), fmt.Sprintf("schedule %q needs a duration (how long the budget applies after each hit)", *b.Schedule)))
	case b.Schedule == nil && b.Duration != nil:
		errs = append(errs, field.Required(path.Child("schedule"), fmt.Sprintf("duration %q needs a schedule (when the budget starts to apply)", b.Duration.Duration)))
	}
	if b.Schedule != nil {
		if _, err := ParseSchedule(*b.Schedule); err != nil {
			errs = append(errs, field.Invalid(path.Child("schedule"), *b.Schedule, fmt.Sprintf("must be a cron schedule such as \"0 9 * * 1-5\" or @daily: %v", err)))
		}
	}
	if b.Duration != nil && !isWholeMinutes(b.Duration) {
		errs = append(errs, field.Invalid(path.Child("duration"), b.Duration.Duration.String(),
			fmt.Sprintf(`must be whole hours and minutes such as "8h" or "1h30m", got %q`, b.Duration.Duration)))
	}
	return errs
}

func validateReasons(path *field.Path, reasons []DisruptionReason) field.ErrorList {
	var errs field.ErrorList
	if len(reasons) > maxBudgetReasons {
		errs = append(errs, field.Invalid(path, len(reasons), fmt.Sprintf("must have at most %d reasons, got %d", maxBudgetReasons, len(reasons))))
	}
	seen := map[DisruptionReason]bool{}
	for i, r := range reasons {
		switch r {
		case DisruptionReasonUnderutilized, DisruptionReasonEmpty, DisruptionReasonDrifted:
		default:
			errs = append(errs, field.Invalid(path.Index(i), r, fmt.Sprintf("must be one of Underutilized, Empty, Drifted, got %q", r)))
		}
		if seen[r] {
			errs = append(errs, field.Duplicate(path.Index(i), r))
			errs[len(errs)-1].Detail = fmt.Sprintf("reason %q is listed twice", r)
		}
		seen[r] = true
	}
	return errs
}

func isWholeMinutes(d *metav1.Duration) bool {
	return d.Duration >= 0 && d.Duration%time.Minute == 0
}
