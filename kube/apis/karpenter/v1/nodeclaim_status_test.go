package v1

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNodeClaimReady(t *testing.T) {
	now := time.Date(2026, 12, 3, 18, 0, 0, 0, time.UTC)
	cond := func(typ string, s metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: typ, Status: s}
	}
	const yes, no, unknown = metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown
	for _, tc := range []struct {
		name    string
		conds   []metav1.Condition
		status  metav1.ConditionStatus
		reason  string
		message string
	}{
		{"nothing yet", nil, unknown, "ReconcilingDependents", "Launched=Unknown, Registered=Unknown, Initialized=Unknown"},
		{"launched", []metav1.Condition{cond(ConditionTypeLaunched, yes)}, unknown, "ReconcilingDependents", "Registered=Unknown, Initialized=Unknown"},
		{"launch failed", []metav1.Condition{cond(ConditionTypeLaunched, no)}, no, "UnhealthyDependents", "Launched=False, Registered=Unknown, Initialized=Unknown"},
		{"initialization failed after an unknown", []metav1.Condition{cond(ConditionTypeLaunched, yes), cond(ConditionTypeRegistered, unknown), cond(ConditionTypeInitialized, no)},
			no, "UnhealthyDependents", "Registered=Unknown, Initialized=False"},
		{"all three", []metav1.Condition{cond(ConditionTypeLaunched, yes), cond(ConditionTypeRegistered, yes), cond(ConditionTypeInitialized, yes),
			cond(ConditionTypeDrifted, yes)}, yes, ConditionTypeReady, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NodeClaimReady(tc.conds, 3, now)
			if got.Type != ConditionTypeReady || got.Status != tc.status || got.Reason != tc.reason || got.Message != tc.message ||
				got.ObservedGeneration != 3 || !got.LastTransitionTime.Time.Equal(now) {
				t.Errorf("NodeClaimReady = %+v, want %s %s %q", got, tc.status, tc.reason, tc.message)
			}
		})
	}
}
