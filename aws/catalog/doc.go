// Package catalog embeds the us-east-1 instance type catalog (specs, ENI limits, bandwidth,
// on-demand list prices and zones, with their provenance in data/PROVENANCE.md) and turns it into
// the engine's instance types. Spot prices are not public data: the catalog derives a
// deterministic synthetic spot price per type and zone, and marks it synthetic.
package catalog
