// Package awstest gives tests the EC2 provider's instance types: the embedded catalog's, built
// as the provider builds them, in enginetest's zones. It lives beside the provider so that the
// engine's harness (engine/enginetest) does not import it; the engine's tests that want the
// whole catalog import this package.
package awstest

import (
	"fmt"

	"github.com/nodepilot/nodepilot/aws/catalog"
	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/enginetest"
)

// CatalogInstanceTypes returns the named types of the embedded catalog (every type when none is
// named), offered in enginetest's Zones. Parsing the catalog takes tens of milliseconds: prefer
// enginetest.DefaultInstanceTypes unless a test needs the whole catalog or a type it lacks.
func CatalogInstanceTypes(names ...string) ([]*cloudprovider.InstanceType, error) {
	cat, err := catalog.Load()
	if err != nil {
		return nil, err
	}
	if len(names) > 0 {
		byName := map[string]catalog.Entry{}
		for _, e := range cat.Entries {
			byName[e.Name] = e
		}
		var entries []catalog.Entry
		for _, n := range names {
			e, ok := byName[n]
			if !ok {
				return nil, fmt.Errorf("instance type %q is not in the catalog", n)
			}
			entries = append(entries, e)
		}
		cat = &catalog.Catalog{Entries: entries}
	}
	return cat.InstanceTypes(catalog.Options{Zones: enginetest.Zones()}), nil
}
