// Package uitest serves the console a generated cluster for its tests and benchmarks: Fake is a
// ui.Backend over a real state.Cluster and journal, filled deterministically with NodePools
// with limits and budgets, nodes across spot and on-demand and three zones, pods (some pending,
// with the explainer's reasons), and journal entries of every kind, interruptions included, on
// a fixed clock. Screen helpers dump a tcell SimulationScreen as text and colors for golden
// files.
package uitest
