// Package cost prices what runs: each node at its offering's price (with where that price comes
// from), and the fleet per NodePool and capacity type, for disruption's decisions, the metrics
// and the console.
package cost
