package render

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// NodeClaim is a NodeClaim with its price.
type NodeClaim struct {
	Claim     *karpv1.NodeClaim
	ZoneIndex int
	PerHour   float64
	Priced    bool
}

// NodeClaimColumns are the columns of :nodeclaims.
func NodeClaimColumns() []Column {
	return []Column{
		{Name: "NAME", Sort: 'N'},
		{Name: "TYPE", Sort: 'T'},
		{Name: "CAPACITY", Sort: 'Y'},
		{Name: "ZONE", Sort: 'Z'},
		{Name: "NODE", Sort: 'O'},
		{Name: "NODEPOOL", Sort: 'P'},
		{Name: "STATE", Sort: 'S'},
		{Name: "$/H", Align: AlignRight, Sort: 'C', Numeric: true, DescFirst: true},
		{Name: "AGE", Align: AlignRight, Sort: 'A', Numeric: true},
	}
}

// NodeClaimRow renders a NodeClaim.
func NodeClaimRow(c NodeClaim, now time.Time) *Row {
	nc := c.Claim
	l := nc.Labels
	state, tone := ClaimState(nc)
	price := None
	if c.Priced {
		price = Dollars(c.PerHour)
	}
	zone := l[corev1.LabelTopologyZone]
	tones := make([]Tone, 9)
	tones[2] = CapacityTone(l[karpv1.CapacityTypeLabelKey])
	if zone != "" {
		tones[3] = Zone(c.ZoneIndex)
	}
	tones[7] = ToneCost
	return &Row{
		Key: nc.Name,
		Cells: []string{nc.Name, orNone(l[corev1.LabelInstanceTypeStable]), orNone(l[karpv1.CapacityTypeLabelKey]), orNone(zone),
			orNone(nc.Status.NodeName), orNone(l[karpv1.NodePoolLabelKey]), state, price, Age(now, nc.CreationTimestamp.Time)},
		Nums:   []float64{7: c.PerHour, 8: ageSeconds(now, nc.CreationTimestamp.Time)},
		Tone:   tone,
		Tones:  tones,
		Labels: l,
		Ref:    nc,
	}
}

// ClaimState is how far a NodeClaim got (Launching, Registering, Initializing, Ready), or that
// it drifted or is terminating, and its tone.
func ClaimState(nc *karpv1.NodeClaim) (string, Tone) {
	conds := nc.Status.Conditions
	switch {
	case nc.DeletionTimestamp != nil:
		return "Terminating", ToneKill
	case !meta.IsStatusConditionTrue(conds, karpv1.ConditionTypeLaunched):
		return "Launching", ToneAdded
	case !meta.IsStatusConditionTrue(conds, karpv1.ConditionTypeRegistered):
		return "Registering", ToneAdded
	case !meta.IsStatusConditionTrue(conds, karpv1.ConditionTypeInitialized):
		return "Initializing", ToneAdded
	case meta.IsStatusConditionTrue(conds, karpv1.ConditionTypeDrifted):
		return "Drifted", ToneModified
	}
	return "Ready", ToneNormal
}
