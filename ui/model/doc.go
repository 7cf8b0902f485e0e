// Package model builds the console's view models off the UI goroutine: a World joins one
// cluster snapshot with the journal, prices and the provisioner's last pass, computes what every
// pane needs once (usage, prices, zones, why pods are pending), and derives immutable, filtered
// and sorted tables from it on demand. A World never changes after it is built; the console
// swaps a whole new one in.
package model
