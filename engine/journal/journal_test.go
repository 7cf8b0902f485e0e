package journal

import (
	"bytes"
	"log/slog"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

type recorded struct{ reasons []string }

// Event records the reason, and no reason for an event without its object.
func (r *recorded) Event(obj runtime.Object, _, reason, _ string) {
	if obj != nil {
		r.reasons = append(r.reasons, reason)
	}
}

func TestJournal(t *testing.T) {
	var logs bytes.Buffer
	events := &recorded{}
	j := New(3, LogSink{slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}, EventSink{events})
	changes := j.Subscribe()

	j.Record(Entry{Kind: KindLaunch, Message: "launched nodeclaim", NodeClaims: []string{"default-abc"},
		Events: []Event{{Object: &corev1.Node{}, Type: "Normal", Reason: "Launched"}}})
	j.Record(Entry{Kind: KindDisruption, Message: "would disrupt node(s)", DryRun: true,
		Events: []Event{{Object: &corev1.Node{}, Type: "Normal", Reason: "DisruptionLaunching"}}})
	<-changes
	// The sinks had the events' objects; the entries kept have the events without them.
	if ev := j.Entries(0)[0].Events; len(ev) != 1 || ev[0].Object != nil || ev[0].Reason != "Launched" {
		t.Errorf("kept events %+v, want the Launched event without its object", ev)
	}

	// A blocker recorded twice with the same reason is one entry; a new reason is another.
	j.Block("n1", Entry{Reason: "Budget", Message: "budget 0 allows no disruption"})
	j.Block("n1", Entry{Reason: "Budget", Message: "budget 0 allows no disruption"})
	if got := len(j.Entries(0)); got != 3 {
		t.Fatalf("%d entries, want 3", got)
	}
	j.Block("n1", Entry{Reason: "PDB", Message: "pdb default/api-pdb allows no eviction"})
	all := j.Entries(0)
	if len(all) != 3 || all[0].Seq != 2 || all[2].Reason != "PDB" {
		t.Fatalf("ring of 3 should keep entries 2..4, got %+v", all)
	}
	if got := j.Entries(3); len(got) != 1 || got[0].Seq != 4 {
		t.Errorf("entries after 3: %+v", got)
	}
	if why, ok := j.WhyNot("n1"); !ok || why.Reason != "PDB" || why.Kind != KindBlocked || why.Nodes[0] != "n1" {
		t.Errorf("why not n1: %+v", why)
	}
	// A snapshot is the journal at one moment: later records and unblocks do not reach it.
	snap := j.Snapshot()
	j.Unblock("n1")
	if _, ok := j.WhyNot("n1"); ok {
		t.Error("n1 still blocked after Unblock")
	}
	j.Record(Entry{Kind: KindLaunch})
	if why, ok := snap.WhyNot("n1"); !ok || why.Reason != "PDB" {
		t.Errorf("snapshot's why not n1: %+v, %v; want the PDB it had", why, ok)
	}
	if len(snap.Entries) != 3 || snap.Entries[0].Seq != 2 || snap.Entries[2].Seq != 4 {
		t.Errorf("snapshot's entries %+v, want 2..4 as when taken", snap.Entries)
	}
	if strings.Join(events.reasons, ",") != "Launched" {
		t.Errorf("events %v: dry runs record no event", events.reasons)
	}
	for _, want := range []string{"launched nodeclaim", "nodeclaims=default-abc", "dry_run=true", "level=DEBUG"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %q:\n%s", want, logs.String())
		}
	}
}

// TestEntriesAcrossTheRing records past the journal's size and reads after every sequence
// number: the entries kept are always the latest, oldest first, however the ring has turned.
func TestEntriesAcrossTheRing(t *testing.T) {
	for _, tc := range []struct {
		max, records int
	}{
		{max: 0, records: 3},
		{max: 1, records: 3},
		{max: 3, records: 2},
		{max: 3, records: 3},
		{max: 3, records: 7},
		{max: 4, records: 9},
	} {
		j := New(tc.max)
		for range tc.records {
			j.Record(Entry{Kind: KindLaunch})
		}
		first := max(1, tc.records-tc.max+1) // the oldest sequence number kept
		for after := 0; after <= tc.records+1; after++ {
			var want []uint64
			for s := max(first, after+1); s <= tc.records && tc.max > 0; s++ {
				want = append(want, uint64(s))
			}
			var got []uint64
			for _, e := range j.Entries(uint64(after)) {
				got = append(got, e.Seq)
			}
			if !slices.Equal(got, want) {
				t.Errorf("max %d, %d recorded, after %d: seqs %v, want %v", tc.max, tc.records, after, got, want)
			}
		}
	}
}

// BenchmarkRecordFull records into a full journal of the console's size.
func BenchmarkRecordFull(b *testing.B) {
	j := New(10000)
	for range 10000 {
		j.Record(Entry{Kind: KindLaunch})
	}
	b.ReportAllocs()
	for b.Loop() {
		j.Record(Entry{Kind: KindLaunch})
	}
}
