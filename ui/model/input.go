package model

import (
	"time"

	"github.com/nodepilot/nodepilot/engine/cost"
	"github.com/nodepilot/nodepilot/engine/journal"
	"github.com/nodepilot/nodepilot/engine/provisioning"
	"github.com/nodepilot/nodepilot/engine/state"
)

// Input is what a World is built from.
type Input struct {
	Snapshot *state.Snapshot
	// Entries are the journal's kept entries, oldest first.
	Entries []journal.Entry
	// WhyNot says why a node is not disrupted now (journal.Journal.WhyNot); nil for none.
	WhyNot func(node string) (journal.Entry, bool)
	// Price prices a node; nil leaves every node unpriced.
	Price func(*state.Node) (cost.Price, bool)
	// Provisioning is the provisioner's last pass, or nil.
	Provisioning *provisioning.Outcome
	// Skins are the names :skins lists, and Skin the current one.
	Skins []string
	Skin  string
	Now   time.Time
	// Cache, when set, carries per-pod results from the previous World (see Cache).
	Cache *Cache
}
