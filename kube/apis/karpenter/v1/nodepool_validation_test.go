package v1

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestNodePoolValidate(t *testing.T) {
	gt := func(values ...string) NodeSelectorRequirementWithMinValues {
		return NodeSelectorRequirementWithMinValues{Key: "karpenter.k8s.aws/instance-cpu", Operator: corev1.NodeSelectorOpGt, Values: values}
	}
	tests := []struct {
		name   string
		mutate func(np *NodePool)
		want   []string
	}{
		{"valid", func(*NodePool) {}, nil},
		{"weight too high", func(np *NodePool) { np.Spec.Weight = ptr(int32(1000)) },
			[]string{"spec.weight: must be between 1 and 100, got 1000"}},
		{"weight zero", func(np *NodePool) { np.Spec.Weight = ptr(int32(0)) },
			[]string{"spec.weight: must be between 1 and 100, got 0"}},
		{"weight bounds are valid", func(np *NodePool) { np.Spec.Weight = ptr(int32(100)) }, nil},
		{"missing name", func(np *NodePool) { np.Name = "" }, []string{"metadata.name: a name is required"}},
		{"Gt with a word", func(np *NodePool) { np.Spec.Template.Spec.Requirements[1] = gt("five") },
			[]string{`spec.template.spec.requirements[1]: operator "Gt" needs exactly one non-negative integer, got ["five"]`}},
		{"Gt with two values", func(np *NodePool) { np.Spec.Template.Spec.Requirements[1] = gt("4", "8") },
			[]string{`spec.template.spec.requirements[1]: operator "Gt" needs exactly one non-negative integer, got ["4", "8"]`}},
		{"Lt negative", func(np *NodePool) {
			r := gt("-1")
			r.Operator = corev1.NodeSelectorOpLt
			np.Spec.Template.Spec.Requirements[1] = r
		}, []string{`spec.template.spec.requirements[1]: operator "Lt" needs exactly one non-negative integer, got ["-1"]`}},
		{"Gte and Lte accept one integer", func(np *NodePool) {
			a, b := gt("4"), gt("16")
			a.Operator, b.Operator = NodeSelectorOpGte, NodeSelectorOpLte
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, a, b)
		}, nil},
		{"unknown operator", func(np *NodePool) { np.Spec.Template.Spec.Requirements[1].Operator = "Within" },
			[]string{`spec.template.spec.requirements[1]: operator "Within" is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte`}},
		{"In without values", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements[0] = NodeSelectorRequirementWithMinValues{Key: "team", Operator: corev1.NodeSelectorOpIn}
		}, []string{`spec.template.spec.requirements[0]: operator "In" needs at least one value`}},
		{"Exists with values", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements[0] = NodeSelectorRequirementWithMinValues{Key: "team", Operator: corev1.NodeSelectorOpExists, Values: []string{"a"}}
		}, []string{`spec.template.spec.requirements[0]: operator "Exists" takes no values, got ["a"]`}},
		{"minValues above 50", func(np *NodePool) { np.Spec.Template.Spec.Requirements[0].MinValues = ptr(51) },
			[]string{"spec.template.spec.requirements[0]: minValues must be between 1 and 50, got 51"}},
		{"minValues above the number of values", func(np *NodePool) { np.Spec.Template.Spec.Requirements[0].MinValues = ptr(2) },
			[]string{"spec.template.spec.requirements[0]: minValues 2 needs at least 2 values, got 1"}},
		{"unknown capacity type", func(np *NodePool) { np.Spec.Template.Spec.Requirements[0].Values = []string{"cheap"} },
			[]string{`spec.template.spec.requirements[0]: none of the values ["cheap"] is a capacity type; use spot, on-demand or reserved`}},
		// As in Karpenter, a value no label can have is accepted; it matches no node.
		{"value no label can have", func(np *NodePool) { np.Spec.Template.Spec.Requirements[0].Values = []string{"spot", "not ok"} }, nil},
		{"hostname requirement", func(np *NodePool) { np.Spec.Template.Spec.Requirements[0].Key = corev1.LabelHostname },
			[]string{`spec.template.spec.requirements[0]: label "kubernetes.io/hostname" is restricted: the provisioner sets it`}},
		{"nodepool requirement", func(np *NodePool) { np.Spec.Template.Spec.Requirements[0].Key = NodePoolLabelKey },
			[]string{`spec.template.spec.requirements[0]: label "karpenter.sh/nodepool" is restricted: it is set to the NodePool's name`}},
		{"restricted label domains", func(np *NodePool) {
			np.Spec.Template.Labels = map[string]string{
				"karpenter.sh/custom": "x", "example.k8s.io/a": "x", "karpenter.k8s.aws/made-up": "x",
				"node.kubernetes.io/role": "ok", "kops.k8s.io/instancegroup": "ok", "topology.kubernetes.io/zone": "ok",
			}
		}, []string{
			`spec.template.metadata.labels[karpenter.k8s.aws/made-up]: label domain "karpenter.k8s.aws" is restricted: only its well-known labels (such as karpenter.k8s.aws/instance-family) may be used`,
			`spec.template.metadata.labels[karpenter.sh/custom]: label domain "karpenter.sh" is restricted: only karpenter.sh/capacity-type may be used`,
		}},
		// Karpenter v1.10 and later leave the kubernetes.io and k8s.io domains to the kubelet.
		{"kubernetes.io and k8s.io labels and requirements", func(np *NodePool) {
			np.Spec.Template.Labels = map[string]string{"kubernetes.io/role": "x", "example.k8s.io/a": "x"}
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
				NodeSelectorRequirementWithMinValues{Key: "team.kubernetes.io/owner", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}})
		}, nil},
		{"budget schedule without duration", func(np *NodePool) {
			np.Spec.Disruption.Budgets = []Budget{{Nodes: "0", Schedule: ptr("0 9 * * 1-5")}}
		}, []string{`spec.disruption.budgets[0].duration: schedule "0 9 * * 1-5" needs a duration (how long the budget applies after each hit)`}},
		{"budget duration without schedule", func(np *NodePool) {
			np.Spec.Disruption.Budgets = []Budget{{Nodes: "0", Duration: duration(8 * time.Hour)}}
		}, []string{`spec.disruption.budgets[0].schedule: duration "8h0m0s" needs a schedule (when the budget starts to apply)`}},
		{"malformed cron", func(np *NodePool) {
			np.Spec.Disruption.Budgets = []Budget{{Nodes: "0", Schedule: ptr("0 25 * * *"), Duration: duration(time.Hour)}}
		}, []string{`spec.disruption.budgets[0].schedule: must be a cron schedule such as "0 9 * * 1-5" or @daily: "0 25 * * *" is not a five-field cron schedule: end of range (25) above maximum (23): 25`}},
		{"unknown descriptor", func(np *NodePool) {
			np.Spec.Disruption.Budgets = []Budget{{Nodes: "0", Schedule: ptr("@every 5m"), Duration: duration(time.Hour)}}
		}, []string{`spec.disruption.budgets[0].schedule: must be a cron schedule such as "0 9 * * 1-5" or @daily: unknown descriptor "@every 5m"; use @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly`}},
		{"descriptor and whole minutes are valid", func(np *NodePool) {
			np.Spec.Disruption.Budgets = []Budget{{Nodes: "20%", Schedule: ptr("@daily"), Duration: duration(90 * time.Minute)}}
		}, nil},
		{"budget duration in seconds", func(np *NodePool) {
			np.Spec.Disruption.Budgets = []Budget{{Nodes: "1", Schedule: ptr("@daily"), Duration: duration(90 * time.Second)}}
		}, []string{`spec.disruption.budgets[0].duration: must be whole hours and minutes such as "8h" or "1h30m", got "1m30s"`}},
		{"bad budget nodes", func(np *NodePool) { np.Spec.Disruption.Budgets = []Budget{{Nodes: "150%"}, {Nodes: "ten"}} },
			[]string{
				`spec.disruption.budgets[0].nodes: must be a node count such as "5" or a percentage from "0%" to "100%", got "150%"`,
				`spec.disruption.budgets[1].nodes: must be a node count such as "5" or a percentage from "0%" to "100%", got "ten"`,
			}},
		{"unknown and duplicate reasons", func(np *NodePool) {
			np.Spec.Disruption.Budgets = []Budget{{Nodes: "1", Reasons: []DisruptionReason{"Empty", "Bored", "Empty"}}}
		}, []string{
			`spec.disruption.budgets[0].reasons[1]: must be one of Underutilized, Empty, Drifted, got "Bored"`,
			`spec.disruption.budgets[0].reasons[2]: reason "Empty" is listed twice`,
		}},
		{"unknown consolidation policy", func(np *NodePool) { np.Spec.Disruption.ConsolidationPolicy = "WhenUnderutilized" },
			[]string{`spec.disruption.consolidationPolicy: must be one of WhenEmpty, WhenEmptyOrUnderutilized, Balanced, got "WhenUnderutilized"`}},
		{"invalid durations", func(np *NodePool) {
			np.Spec.Disruption.ConsolidateAfter = parseNillableDuration("1.5h")
			np.Spec.Template.Spec.ExpireAfter = parseNillableDuration("forever")
			np.Spec.Template.Spec.TerminationGracePeriod = duration(1500 * time.Millisecond)
		}, []string{
			`spec.disruption.consolidateAfter: must be a duration such as "30s", "10m" or "720h", or "Never", got "1.5h"`,
			`spec.template.spec.terminationGracePeriod: must be a non-negative number of whole seconds, minutes or hours such as "48h", got "1.5s"`,
			`spec.template.spec.expireAfter: must be a duration such as "30s", "10m" or "720h", or "Never", got "forever"`,
		}},
		{"Never is valid", func(np *NodePool) {
			np.Spec.Template.Spec.ExpireAfter = NeverDuration()
			np.Spec.Disruption.ConsolidateAfter = NeverDuration()
		}, nil},
		{"taints", func(np *NodePool) {
			np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "a", Effect: "Sometimes"}, {Key: "bad key!", Effect: corev1.TaintEffectNoSchedule}}
			np.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "a", Effect: "Sometimes"}}
		}, []string{
			`spec.template.spec.taints[0].effect: must be one of NoSchedule, PreferNoSchedule, NoExecute, got "Sometimes"`,
			`spec.template.spec.taints[1].key: taint key "bad key!" is not a qualified name: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			`spec.template.spec.startupTaints[0].effect: must be one of NoSchedule, PreferNoSchedule, NoExecute, got "Sometimes"`,
			`spec.template.spec.startupTaints[0]: taint a:Sometimes appears more than once (taints and startupTaints together)`,
		}},
		{"missing nodeClassRef", func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef = nil },
			[]string{"spec.template.spec.nodeClassRef: a nodeClassRef (group, kind, name) is required"}},
		{"incomplete nodeClassRef", func(np *NodePool) {
			np.Spec.Template.Spec.NodeClassRef = &NodeClassReference{Group: "karpenter.k8s.aws/v1"}
		},
			[]string{
				`spec.template.spec.nodeClassRef.group: must be an API group without a version, got "karpenter.k8s.aws/v1"`,
				"spec.template.spec.nodeClassRef.kind: a kind (such as EC2NodeClass) is required",
				"spec.template.spec.nodeClassRef.name: the node class's name is required",
			}},
		{"static NodePool", func(np *NodePool) {
			np.Spec.Replicas = ptr(int64(-1))
			np.Spec.Weight = ptr(int32(10))
			np.Spec.Limits = Limits{"cpu": resource.MustParse("10"), "nodes": resource.MustParse("3")}
		}, []string{
			"spec.replicas: must be 0 or more, got -1",
			"spec.weight: a static NodePool (spec.replicas set) may not set a weight",
			"spec.limits: a static NodePool (spec.replicas set) may only limit nodes, got cpu",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := validNodePool()
			tt.mutate(np)
			got := messages(np.Validate())
			if !slices.Equal(got, tt.want) {
				t.Errorf("Validate() =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestNodeClaimValidateAllowsNodePoolRequirement(t *testing.T) {
	nc := &NodeClaim{Spec: NodeClaimSpec{
		Requirements: []NodeSelectorRequirementWithMinValues{
			{Key: NodePoolLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"general"}},
			{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpExists},
		},
		NodeClassRef: &NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
	}}
	nc.Name = "general-abcde"
	nc.SetDefaults()
	want := []string{`spec.requirements[1]: label "kubernetes.io/hostname" is restricted: the provisioner sets it`}
	if got := messages(nc.Validate()); !slices.Equal(got, want) {
		t.Errorf("Validate() = %q, want %q", got, want)
	}
}
