package manifest

import (
	"strings"
	"testing"
)

// TestKarpenterNotes: plan loads what Karpenter v1.14 refuses, or what nodepilot keeps without
// applying, and says so in one note per object, with the fix.
func TestKarpenterNotes(t *testing.T) {
	const nodeClass = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: net}
spec:
  role: R
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{id: subnet-1}]
  securityGroupSelectorTerms: [{id: sg-1}]
`
	const nodePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: web}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: net}
      requirements: []
`
	tests := []struct {
		name, doc, want string
	}{
		{"disruption without consolidateAfter", nodePool + "  disruption: {consolidationPolicy: WhenEmpty}\n",
			`NodePool "web": Karpenter v1.14 refuses it (spec.disruption.consolidateAfter: Required value); planned with consolidateAfter 0s; fix: add consolidateAfter: 0s under spec.disruption`},
		{"disruption with consolidateAfter", nodePool + "  disruption: {consolidateAfter: 1m}\n", ""},
		{"no disruption block", nodePool, ""},
		{"fields kept but not applied", nodeClass + "  placementGroupSelector: {name: analytics}\n",
			`EC2NodeClass "net": nodepilot keeps but does not yet apply spec.placementGroupSelector: its instances launch with EC2's defaults there (Karpenter applies them)`},
		{"network and CPU settings applied", nodeClass + "  networkInterfaces: [{networkCardIndex: 0, deviceIndex: 0, interfaceType: interface}]\n  cpuOptions: {nestedVirtualization: enabled}\n  ipPrefixCount: 2\n", ""},
		{"all applied", nodeClass, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := Decode("x.yaml", []byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(set.Notes, "\n")
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) || len(set.Notes) > 1 {
				t.Errorf("notes %q, want %q", got, tt.want)
			}
		})
	}
}
