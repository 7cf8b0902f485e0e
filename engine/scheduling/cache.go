package scheduling

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// Cache keeps, from one Prepare to the next, what Prepare derives from a NodePool's
// requirements and instance types alone: the types they allow, cheapest first, and each type's
// capacity and allocatable as vectors. A cloud provider hands out the same instance type slice
// until its data changes, and each pass prepares the same NodePools again, so with a Cache a
// pass pays for the thousands of types only when something changed. It keeps what the latest
// Prepare used and nothing older. The instance types given to Prepare must not be modified
// afterwards (the CloudProvider contract). A Cache may be shared between goroutines.
type Cache struct {
	mu      sync.Mutex
	entries map[string]*poolTables
}

// poolTables are what a NodePool's requirements allow of its instance types, in one space.
type poolTables struct {
	// source is the slice the tables come from: holding it keeps its address, part of the key,
	// from being reused by another slice.
	source   []*cloudprovider.InstanceType
	types    []*cloudprovider.InstanceType
	minPrice []float64
	// typeKeys are the label keys some type defines; excluded counts the types the NodePool's
	// requirements or offerings rule out, per reason.
	typeKeys map[string]bool
	excluded map[string]int
	// capacity and alloc are per type, alloc before DaemonSet overhead. Shared: never modified.
	capacity, alloc []vec
}

// tables returns the tables of each NodePool in order, reusing the cache's where the NodePool's
// requirements, its instance type slice and the space are unchanged.
func (c *Cache) tables(pools []*NodePool, sp *space) []*poolTables {
	if c == nil {
		out := make([]*poolTables, len(pools))
		for i, np := range pools {
			out[i] = newPoolTables(np.Requirements, np.InstanceTypes, sp)
		}
		return out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	used := make(map[string]*poolTables, len(pools))
	out := make([]*poolTables, len(pools))
	for i, np := range pools {
		key := tablesKey(np, sp)
		pt, ok := c.entries[key]
		if !ok {
			pt = newPoolTables(np.Requirements, np.InstanceTypes, sp)
		}
		used[key], out[i] = pt, pt
	}
	c.entries = used
	return out
}

// tablesKey names a NodePool's requirements, its instance type slice (by address and length:
// the entry holds the slice, so the address stays its own) and the space's resources.
func tablesKey(np *NodePool, sp *space) string {
	var addr any
	if len(np.InstanceTypes) > 0 {
		addr = &np.InstanceTypes[0]
	}
	names := make([]string, len(sp.names))
	for i, n := range sp.names {
		names[i] = string(n)
	}
	return fmt.Sprintf("%s\x00%p/%d\x00%s", np.Requirements.String(), addr, len(np.InstanceTypes), strings.Join(names, ","))
}

func newPoolTables(reqs requirements.Requirements, types []*cloudprovider.InstanceType, sp *space) *poolTables {
	pt := &poolTables{source: types, typeKeys: map[string]bool{}, excluded: map[string]int{}}
	type priced struct {
		it    *cloudprovider.InstanceType
		price float64
	}
	var kept []priced
	for _, it := range types {
		if c := it.Requirements.Intersects(reqs); c != nil {
			pt.excluded[excludedByNodePoolPfx+c.Key]++
			continue
		}
		price := math.Inf(1)
		for _, o := range it.Offerings {
			if o.Available && o.Price < price && allowsOffering(reqs, o) {
				price = o.Price
			}
		}
		if math.IsInf(price, 1) {
			pt.excluded[ExcludedByOffering]++
			continue
		}
		kept = append(kept, priced{it, price})
	}
	slices.SortStableFunc(kept, func(a, b priced) int {
		return cmp.Or(cmp.Compare(a.price, b.price), cmp.Compare(a.it.Name, b.it.Name))
	})
	pt.types = make([]*cloudprovider.InstanceType, len(kept))
	pt.minPrice = make([]float64, len(kept))
	pt.capacity = make([]vec, len(kept))
	pt.alloc = make([]vec, len(kept))
	for i, k := range kept {
		pt.types[i], pt.minPrice[i] = k.it, k.price
		for _, r := range k.it.Requirements.Items() {
			pt.typeKeys[r.Key] = true
		}
		pt.capacity[i], pt.alloc[i] = sp.vec(k.it.Capacity), sp.vec(k.it.Allocatable())
		if n, ok := sp.index[karpv1.ResourceNodes]; ok {
			pt.capacity[i][n] = 1 // against limits.nodes, a node of any type counts one
		}
	}
	return pt
}
