package demo

import (
	"strings"
	"testing"

	"github.com/nodepilot/nodepilot/engine/journal"
)

func TestLatest(t *testing.T) {
	long := "Failed to schedule pod, " + strings.Repeat("nodepool \"x\": too small; ", 40)
	for _, tc := range []struct {
		name    string
		entries []journal.Entry
		want    string
	}{
		{"empty", nil, ""},
		{"skips blockers and registrations", []journal.Entry{
			{Kind: journal.KindLaunch, Message: "launched nodeclaim a"},
			{Kind: journal.KindBlocked, Message: "node b: budget"},
			{Kind: journal.KindRegistration, Message: "registered nodeclaim a"},
		}, "launched nodeclaim a"},
		{"first line only", []journal.Entry{{Kind: journal.KindDisruption, Message: "disrupting node(s)\ndetails"}}, "disrupting node(s)"},
		{"long messages are cut", []journal.Entry{{Kind: journal.KindProvisioning, Message: long}}, string([]rune(long)[:latestWidth-1]) + "…"},
	} {
		if got := latest(tc.entries); got != tc.want {
			t.Errorf("%s: latest = %q, want %q", tc.name, got, tc.want)
		}
	}
}
