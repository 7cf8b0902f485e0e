package render

import (
	"strconv"
	"strings"
	"time"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/journal"
)

// EntryKey is the row key of a journal entry.
func EntryKey(e *journal.Entry) string { return "seq:" + strconv.FormatUint(e.Seq, 10) }

// IsDecision reports whether an entry belongs in :decisions: a disruption decision and what
// followed it, a validation, or a rule forbidding a disruption. Other blockers (not initialized,
// nominated, nothing cheaper) are in :events and in the node's explanation.
func IsDecision(e *journal.Entry) bool {
	switch e.Kind {
	case journal.KindDisruption, journal.KindValidation:
		return true
	case journal.KindBlocked:
		return e.Forbids
	}
	return false
}

// IsInterruption reports whether an entry belongs in :interruptions.
func IsInterruption(e *journal.Entry) bool { return e.Kind == journal.KindInterruption }

// DecisionColumns are the columns of :decisions.
func DecisionColumns() []Column {
	return []Column{
		{Name: "AGE", Align: AlignRight, Sort: 'A', Numeric: true},
		{Name: "METHOD", Sort: 'M'},
		{Name: "REASON", Sort: 'R'},
		{Name: "NODEPOOL", Sort: 'P'},
		{Name: "NODES", MaxWidth: 40},
		{Name: "DECISION"},
		{Name: "REPLACEMENTS", MaxWidth: 30},
		{Name: "SAVING", Align: AlignRight, Sort: 'C', Numeric: true, DescFirst: true},
		{Name: "MESSAGE", MaxWidth: 120},
	}
}

// DecisionRow renders a disruption decision, validation or blocker.
func DecisionRow(e *journal.Entry, now time.Time) *Row {
	method := e.Method
	if method == "" {
		method = string(e.Kind)
	}
	decision := e.Decision
	if e.DryRun {
		decision = strings.TrimSpace("would " + decision)
	}
	saving, nums := None, []float64{0: ageSeconds(now, e.Time)}
	if e.PriceBefore != 0 || e.PriceAfter != 0 {
		saving = Dollars(e.Saving()) + "/h"
		nums = append(nums, make([]float64, 7)...)
		nums[7] = e.Saving()
	}
	tones := []Tone{1: MethodTone(e)}
	return &Row{
		Key: EntryKey(e),
		Cells: []string{Age(now, e.Time), method, orNone(string(e.Reason)), orNone(e.NodePool), orNone(strings.Join(e.Nodes, ",")),
			orNone(decision), orNone(strings.Join(e.Replacements, ",")), saving, e.Message},
		Nums:  nums,
		Tone:  entryTone(e),
		Tones: tones,
		Ref:   e,
	}
}

// MethodTone is the tone of a disruption method (blocked and rejected decisions are ToneBlocked).
func MethodTone(e *journal.Entry) Tone {
	if e.Kind == journal.KindBlocked || e.Kind == journal.KindValidation {
		return ToneBlocked
	}
	switch e.Method {
	case "Emptiness":
		return ToneEmptiness
	case "Drift":
		return ToneDrift
	case "MultiNodeConsolidation", "SingleNodeConsolidation":
		return ToneConsolidation
	case "Expiration":
		return ToneExpiration
	}
	return ToneInherit
}

func entryTone(e *journal.Entry) Tone {
	switch {
	case strings.HasSuffix(string(e.Reason), string(journal.ReasonError)):
		return ToneError
	case e.DryRun:
		return ToneCompleted
	}
	return ToneNormal
}

// InterruptionColumns are the columns of :interruptions.
func InterruptionColumns() []Column {
	return []Column{
		{Name: "AGE", Align: AlignRight, Sort: 'A', Numeric: true},
		{Name: "KIND", Sort: 'K'},
		{Name: "NODE", Sort: 'O', MaxWidth: 40},
		{Name: "NODEPOOL", Sort: 'P'},
		{Name: "DEADLINE", Align: AlignRight},
		{Name: "MESSAGE", MaxWidth: 120},
	}
}

// InterruptionRow renders an interruption.
func InterruptionRow(e *journal.Entry, now time.Time) *Row {
	return &Row{
		Key:   EntryKey(e),
		Cells: []string{Age(now, e.Time), orNone(string(e.Reason)), orNone(strings.Join(e.Nodes, ",")), orNone(e.NodePool), Countdown(now, e.Until), e.Message},
		Nums:  []float64{0: ageSeconds(now, e.Time)},
		Tone:  Severity(e.Reason),
		Ref:   e,
	}
}

// Severity is the tone of an interruption kind: a rebalance recommendation is a notice, a
// scheduled change a warning, the rest (spot interruption, stopping, terminating) critical.
func Severity(kind journal.Reason) Tone {
	switch kind {
	case journal.Reason(cloudprovider.RebalanceRecommendation):
		return ToneNotice
	case journal.Reason(cloudprovider.ScheduledChange):
		return ToneWarning
	case journal.ReasonError:
		return ToneError
	}
	return ToneCritical
}

// EventColumns are the columns of :events (every journal entry).
func EventColumns() []Column {
	return []Column{
		{Name: "AGE", Align: AlignRight, Sort: 'A', Numeric: true},
		{Name: "KIND", Sort: 'K'},
		{Name: "REASON", Sort: 'R'},
		{Name: "NODEPOOL", Sort: 'P'},
		{Name: "OBJECTS", MaxWidth: 50},
		{Name: "MESSAGE", MaxWidth: 120},
	}
}

// EventRow renders any journal entry.
func EventRow(e *journal.Entry, now time.Time) *Row {
	tone := entryTone(e)
	switch {
	case e.Kind == journal.KindInterruption:
		tone = Severity(e.Reason)
	case (IsDecision(e) || e.Kind == journal.KindBlocked) && tone == ToneNormal:
		tone = MethodTone(e)
	}
	return &Row{
		Key:   EntryKey(e),
		Cells: []string{Age(now, e.Time), string(e.Kind), orNone(string(e.Reason)), orNone(e.NodePool), orNone(Objects(e)), e.Message},
		Nums:  []float64{0: ageSeconds(now, e.Time)},
		Tone:  tone,
		Ref:   e,
	}
}

// Objects lists what an entry is about: its nodes, else its NodeClaims, then a pod count.
func Objects(e *journal.Entry) string {
	var parts []string
	switch {
	case len(e.Nodes) > 0:
		parts = append(parts, strings.Join(e.Nodes, ","))
	case len(e.NodeClaims) > 0:
		parts = append(parts, strings.Join(e.NodeClaims, ","))
	}
	if len(e.Pods) > 0 {
		parts = append(parts, Plural(len(e.Pods), "pod"))
	}
	return strings.Join(parts, " ")
}
