package model

import (
	"time"

	"github.com/nodepilot/nodepilot/engine/cost"
	"github.com/nodepilot/nodepilot/engine/disruption"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/state"
	"github.com/nodepilot/nodepilot/rightsizing"
	"github.com/nodepilot/nodepilot/usage"
)

// Input is what a World is built from.
type Input struct {
	Snapshot *state.Snapshot
	// Journal is a copy of the journal: its kept entries, oldest first, and each node's blocker.
	Journal journal.Snapshot
	// Budgets says what a NodePool's budgets allow now, per disruption reason; nil for none.
	Budgets func(nodePool string) []disruption.Allowance
	// Price prices a node; nil leaves every node unpriced.
	Price func(*state.Node) (cost.Price, bool)
	// Provisioning is the provisioner's last pass, or nil.
	Provisioning *provisioning.Outcome
	// Skins are the names :skins lists, and Skin the current one.
	Skins []string
	Skin  string
	// Contexts are the kubeconfig's contexts :ctx lists, and Context the one the console is on.
	Contexts []string
	Context  string
	Now      time.Time
	// Usage is the latest reading of metrics.k8s.io, or why there is none; nil when nothing
	// reads it.
	Usage *usage.Snapshot
	// RightSizing is the latest right-sizing the console asked for, or nil before any.
	RightSizing *RightSizing
	// Cache, when set, carries per-pod results from the previous World (see Cache).
	Cache *Cache
	// Trend is the previous World's trend, which this one extends.
	Trend Trend
}

// RightSizing is a right-sizing as the console holds it: the report, or why there is none.
type RightSizing struct {
	Report *rightsizing.Report
	Err    error
	// At is when it was computed; Busy says a new one is being computed.
	At   time.Time
	Busy bool
}
