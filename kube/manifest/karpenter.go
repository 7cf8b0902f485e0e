package manifest

import (
	"encoding/json"
	"strings"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

func addNodePool(c *addContext, obj interface{}) {
	np := obj.(*karpv1.NodePool)
	noteMissingConsolidateAfter(c)
	np.SetDefaults()
	if c.fail(np.Validate()) || !c.claim(karpv1.KindNodePool, "", np.Name) {
		return
	}
	setUID(&np.ObjectMeta, karpv1.KindNodePool)
	c.set.NodePools = append(c.set.NodePools, np)
}

func addNodeClaim(c *addContext, obj interface{}) {
	nc := obj.(*karpv1.NodeClaim)
	nc.SetDefaults()
	if c.fail(nc.Validate()) || !c.claim(karpv1.KindNodeClaim, "", nc.Name) {
		return
	}
	setUID(&nc.ObjectMeta, karpv1.KindNodeClaim)
	c.set.NodeClaims = append(c.set.NodeClaims, nc)
}

func addEC2NodeClass(c *addContext, obj interface{}) {
	nc := obj.(*awsv1.EC2NodeClass)
	assumeAliasFromFamily(c, nc)
	nc.SetDefaults()
	if c.fail(nc.Validate()) || !c.claim(awsv1.KindEC2NodeClass, "", nc.Name) {
		return
	}
	if fields := nc.UnappliedFields(); len(fields) > 0 {
		c.note("nodepilot keeps but does not yet apply %s: its instances launch with EC2's defaults there (Karpenter applies them)", strings.Join(fields, ", "))
	}
	setUID(&nc.ObjectMeta, awsv1.KindEC2NodeClass)
	c.set.EC2NodeClasses = append(c.set.EC2NodeClasses, nc)
}

// assumeAliasFromFamily fills in amiSelectorTerms for an EC2NodeClass written before Karpenter
// v1 made them required (only amiFamily set), the way Karpenter's conversion from v1beta1 did:
// the latest AMI of that family. It adds a note saying so.
func assumeAliasFromFamily(c *addContext, nc *awsv1.EC2NodeClass) {
	if len(nc.Spec.AMISelectorTerms) != 0 || nc.Spec.AMIFamily == nil {
		return
	}
	switch family := *nc.Spec.AMIFamily; family {
	case awsv1.AMIFamilyAL2, awsv1.AMIFamilyAL2023, awsv1.AMIFamilyBottlerocket, awsv1.AMIFamilyWindows2019, awsv1.AMIFamilyWindows2022, awsv1.AMIFamilyWindows2025:
		alias := awsv1.Alias{Family: family, Version: awsv1.AliasVersionLatest}.String()
		nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{Alias: alias}}
		c.note("Karpenter v1.14 refuses it (spec.amiSelectorTerms: Required value); planned with [{alias: %s}] from amiFamily %s, as Karpenter's v1beta1 conversion does; fix: add amiSelectorTerms: [{alias: %s}]", alias, family, alias)
	}
}

// noteMissingConsolidateAfter says when a NodePool's disruption block leaves out
// consolidateAfter, which Karpenter requires once the block is written (guides written before
// v1 often do). The plan goes on with the value Karpenter would default without the block, 0s.
func noteMissingConsolidateAfter(c *addContext) {
	var np struct {
		Spec struct {
			Disruption *struct {
				ConsolidateAfter *json.RawMessage `json:"consolidateAfter"`
			} `json:"disruption"`
		} `json:"spec"`
	}
	if json.Unmarshal(c.raw, &np) != nil || np.Spec.Disruption == nil || np.Spec.Disruption.ConsolidateAfter != nil {
		return
	}
	c.note("Karpenter v1.14 refuses it (spec.disruption.consolidateAfter: Required value); planned with consolidateAfter 0s; fix: add consolidateAfter: 0s under spec.disruption")
}
