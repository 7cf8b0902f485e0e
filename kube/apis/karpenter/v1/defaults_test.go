package v1

import (
	"reflect"
	"testing"
	"time"
)

func TestNodePoolSetDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   NodePool
		want func(np *NodePool)
	}{
		{
			name: "empty NodePool gets every CRD default",
			want: func(np *NodePool) {
				np.Spec.Template.Spec.ExpireAfter = parseNillableDuration("720h")
				np.Spec.Disruption.ConsolidateAfter = parseNillableDuration("0s")
				np.Spec.Disruption.ConsolidationPolicy = ConsolidationPolicyWhenEmptyOrUnderutilized
				np.Spec.Disruption.Budgets = []Budget{{Nodes: "10%"}}
			},
		},
		{
			name: "set fields are kept, budget nodes default",
			in: NodePool{Spec: NodePoolSpec{
				Template: NodeClaimTemplate{Spec: NodeClaimTemplateSpec{ExpireAfter: NeverDuration()}},
				Disruption: Disruption{
					ConsolidateAfter:    NewNillableDuration(time.Minute),
					ConsolidationPolicy: ConsolidationPolicyWhenEmpty,
					Budgets:             []Budget{{Schedule: ptr("@daily"), Duration: duration(time.Hour)}},
				},
			}},
			want: func(np *NodePool) {
				np.Spec.Disruption.Budgets[0].Nodes = "10%"
			},
		},
		{
			name: "an explicit empty budget list stays empty",
			in:   NodePool{Spec: NodePoolSpec{Disruption: Disruption{Budgets: []Budget{}}}},
			want: func(np *NodePool) {
				np.Spec.Template.Spec.ExpireAfter = parseNillableDuration("720h")
				np.Spec.Disruption.ConsolidateAfter = parseNillableDuration("0s")
				np.Spec.Disruption.ConsolidationPolicy = ConsolidationPolicyWhenEmptyOrUnderutilized
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.DeepCopy()
			got.SetDefaults()
			want := tt.in.DeepCopy()
			tt.want(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("SetDefaults() =\n%+v\nwant\n%+v", got.Spec, want.Spec)
			}
		})
	}
}

func TestNodeClaimSetDefaults(t *testing.T) {
	nc := &NodeClaim{}
	nc.SetDefaults()
	if got := nc.Spec.ExpireAfter.String(); got != "720h" {
		t.Errorf("expireAfter = %q, want 720h", got)
	}
}
