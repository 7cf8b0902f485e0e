package v1

import "time"

// Defaults the CRDs declare.
const (
	// DefaultExpireAfter is the default of spec.template.spec.expireAfter (and a NodeClaim's
	// spec.expireAfter).
	DefaultExpireAfter = 720 * time.Hour
	// DefaultConsolidateAfter is the default of spec.disruption.consolidateAfter.
	DefaultConsolidateAfter = time.Duration(0)
	// DefaultConsolidationPolicy is the default of spec.disruption.consolidationPolicy.
	DefaultConsolidationPolicy = ConsolidationPolicyWhenEmptyOrUnderutilized
	// DefaultBudgetNodes is the default of a budget's nodes, and of the one budget a NodePool
	// gets when it declares none.
	DefaultBudgetNodes = "10%"
)

// SetDefaults fills in what an API server would from the NodePool CRD's defaults, for
// NodePools that never went through one (offline planning, tests). It leaves set fields alone.
func (np *NodePool) SetDefaults() {
	template := &np.Spec.Template.Spec
	if !template.ExpireAfter.IsSet() {
		template.ExpireAfter = parseNillableDuration(compact(DefaultExpireAfter)) // as the CRD default writes it
	}
	disruption := &np.Spec.Disruption
	if !disruption.ConsolidateAfter.IsSet() {
		disruption.ConsolidateAfter = parseNillableDuration(compact(DefaultConsolidateAfter))
	}
	if disruption.ConsolidationPolicy == "" {
		disruption.ConsolidationPolicy = DefaultConsolidationPolicy
	}
	if disruption.Budgets == nil {
		disruption.Budgets = []Budget{{Nodes: DefaultBudgetNodes}}
	}
	for i := range disruption.Budgets {
		if disruption.Budgets[i].Nodes == "" {
			disruption.Budgets[i].Nodes = DefaultBudgetNodes
		}
	}
}

// SetDefaults fills in what an API server would from the NodeClaim CRD's defaults.
func (nc *NodeClaim) SetDefaults() {
	if !nc.Spec.ExpireAfter.IsSet() {
		nc.Spec.ExpireAfter = parseNillableDuration(compact(DefaultExpireAfter)) // as the CRD default writes it
	}
}
