// Package cloudprovider declares what the engine needs from a cloud: instance types with their
// labels, capacity and overhead, the offerings (zone x capacity type, with a price and where that
// price came from) they can be launched with, and the interface a cloud implements to launch,
// find and terminate machines.
package cloudprovider
