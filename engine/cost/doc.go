// Package cost prices what runs: each node at its offering's price (with where that price comes
// from), and the fleet per NodePool and capacity type, for disruption's decisions, the metrics
// and the console; and bounds what holding a demand could cost at best, to judge a fleet against.
package cost
