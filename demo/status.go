package demo

import (
	"fmt"
	"strings"

	"github.com/nodepilot/nodepilot/engine/cost"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/ui/render"
)

// Status sums the cluster up in one line: nodes (ready), NodeClaims, pods running and pending,
// what the fleet costs, and the autoscaler's latest word.
func (e *Environment) Status() string {
	snap := e.App.Cluster.Snapshot()
	if !snap.Synced {
		return "waiting for the cluster state to sync"
	}
	ready, running := 0, 0
	for _, n := range snap.Nodes {
		if n.Node != nil && n.Initialized() {
			ready++
		}
		running += len(n.Pods)
	}
	fleet := cost.FleetOf(snap, e.App.InstanceType)
	price := fmt.Sprintf("$%.4f/h", fleet.Total.PerHour)
	if fleet.Total.Synthetic {
		price += " (synthetic spot prices)"
	}
	line := fmt.Sprintf("nodes %d (%d ready)  nodeclaims %d  pods %d running, %d pending  fleet %s",
		len(snap.Nodes), ready, len(snap.NodeClaims), running, len(snap.PendingPods()), price)
	if last := latest(e.App.Journal.Entries(0)); last != "" {
		line += "  | " + last
	}
	return line
}

// latestWidth bounds the journal message in a status line: FailedScheduling explains every
// NodePool and runs to a thousand characters; the console and the log have it whole.
const latestWidth = 160

// latest is the newest journal message worth a status line (decisions, launches, interruptions),
// its first line cut to latestWidth.
func latest(entries []journal.Entry) string {
	for i := len(entries) - 1; i >= 0; i-- {
		switch e := entries[i]; e.Kind {
		case journal.KindBlocked, journal.KindRegistration, journal.KindInitialization:
		default:
			return render.Truncate(strings.SplitN(e.Message, "\n", 2)[0], latestWidth)
		}
	}
	return ""
}
