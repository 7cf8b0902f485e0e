package manifest

import (
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

func addNodePool(c *addContext, obj interface{}) {
	np := obj.(*karpv1.NodePool)
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
	case awsv1.AMIFamilyAL2, awsv1.AMIFamilyAL2023, awsv1.AMIFamilyBottlerocket, awsv1.AMIFamilyWindows2019, awsv1.AMIFamilyWindows2022:
		alias := awsv1.Alias{Family: family, Version: awsv1.AliasVersionLatest}.String()
		nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{Alias: alias}}
		c.note("spec.amiSelectorTerms is missing (Karpenter v1 requires it); assumed [{alias: %s}] from amiFamily %s, as Karpenter's v1beta1 conversion does", alias, family)
	}
}
