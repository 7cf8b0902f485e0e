package uitest

import "time"

// Config sizes a generated cluster.
type Config struct {
	// Nodes, Pods (running, spread over the nodes) and Pending (unschedulable) pods.
	Nodes, Pods, Pending int
	// Entries are journal entries added to the one of every kind.
	Entries int
	// Seed makes the cluster reproducible.
	Seed uint64
}

// Small is the cluster of the golden screens: a dozen nodes, a few dozen pods, five pending.
func Small() Config { return Config{Nodes: 12, Pods: 48, Pending: 5, Seed: 1} }

// Large is the cluster of the benchmarks: 2,000 nodes, 10,000 pods, 200 pending, 1,000
// journal entries.
func Large() Config { return Config{Nodes: 2000, Pods: 10000, Pending: 200, Entries: 1000, Seed: 1} }

// Now is the fake clock's time: every generated age is relative to it.
func Now() time.Time { return time.Date(2026, time.March, 14, 12, 0, 0, 0, time.UTC) }
