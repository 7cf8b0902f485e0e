package v1

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxRequirements is the most requirements a NodePool or NodeClaim may have.
const maxRequirements = 100

// Operators returns the operators a requirement may use, in documentation order.
func Operators() []corev1.NodeSelectorOperator {
	return []corev1.NodeSelectorOperator{
		corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn,
		corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist,
		corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt,
		NodeSelectorOpGte, NodeSelectorOpLte,
	}
}

func validateRequirements(path *field.Path, reqs []NodeSelectorRequirementWithMinValues, inNodePool bool) field.ErrorList {
	var errs field.ErrorList
	if len(reqs) > maxRequirements {
		errs = append(errs, field.Invalid(path, len(reqs), fmt.Sprintf("must have at most %d requirements, got %d", maxRequirements, len(reqs))))
	}
	for i := range reqs {
		for _, msg := range RequirementProblems(reqs[i], inNodePool) {
			errs = append(errs, field.Invalid(path.Index(i), reqs[i].Key, msg))
		}
	}
	return errs
}

// RequirementProblems returns what is wrong with a requirement of a NodePool (inNodePool) or a
// NodeClaim, each as a sentence that says what is allowed; none when it is valid.
func RequirementProblems(r NodeSelectorRequirementWithMinValues, inNodePool bool) []string {
	var problems []string
	if msgs := apivalidation.IsQualifiedName(r.Key); len(msgs) > 0 {
		problems = append(problems, fmt.Sprintf("key %q is not a valid label key: %s", r.Key, strings.Join(msgs, "; ")))
	} else if reason := RestrictedLabelReason(r.Key, inNodePool); reason != "" {
		problems = append(problems, reason)
	}
	// As Karpenter's CRDs, values are not checked as label values: one no label can have
	// matches no node.
	problems = append(problems, operatorProblems(r)...)
	if r.MinValues != nil {
		problems = append(problems, minValuesProblems(r)...)
	}
	if r.Key == CapacityTypeLabelKey && r.Operator == corev1.NodeSelectorOpIn && len(r.Values) > 0 && !anyCapacityType(r.Values) {
		problems = append(problems, fmt.Sprintf("none of the values %s is a capacity type; use %s, %s or %s",
			quoteList(r.Values), CapacityTypeSpot, CapacityTypeOnDemand, CapacityTypeReserved))
	}
	return problems
}

func operatorProblems(r NodeSelectorRequirementWithMinValues) []string {
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		if len(r.Values) == 0 {
			return []string{`operator "In" needs at least one value`}
		}
	case corev1.NodeSelectorOpNotIn:
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			return []string{fmt.Sprintf("operator %q takes no values, got %s", r.Operator, quoteList(r.Values))}
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, NodeSelectorOpGte, NodeSelectorOpLte:
		if len(r.Values) != 1 || !isNonNegativeInteger(r.Values[0]) {
			return []string{fmt.Sprintf("operator %q needs exactly one non-negative integer, got %s", r.Operator, quoteList(r.Values))}
		}
	default:
		names := make([]string, 0, len(Operators()))
		for _, op := range Operators() {
			names = append(names, string(op))
		}
		return []string{fmt.Sprintf("operator %q is not one of %s", r.Operator, strings.Join(names, ", "))}
	}
	return nil
}

func minValuesProblems(r NodeSelectorRequirementWithMinValues) []string {
	minValues := *r.MinValues
	if minValues < 1 || minValues > 50 {
		return []string{fmt.Sprintf("minValues must be between 1 and 50, got %d", minValues)}
	}
	if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) < minValues {
		return []string{fmt.Sprintf("minValues %d needs at least %d values, got %d", minValues, minValues, len(r.Values))}
	}
	return nil
}

// isNonNegativeInteger reports whether s is decimal digits that fit in an int64, as the CRD's
// CEL rule accepts.
func isNonNegativeInteger(s string) bool {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return false
	}
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

func anyCapacityType(values []string) bool {
	for _, v := range values {
		switch v {
		case CapacityTypeSpot, CapacityTypeOnDemand, CapacityTypeReserved:
			return true
		}
	}
	return false
}

// quoteList formats values as ["a", "b"].
func quoteList(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = strconv.Quote(v)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
