// Package rightsizing compares what workloads request with what they use, suggests requests that
// fit their use, and prices the difference with the scheduling simulation: the fleet planned
// from nothing for every pod as it requests, against the same with the suggestions applied. It
// is pure: the console's backend and `plan --usage` feed it pods, usage and a scheduling input.
package rightsizing
