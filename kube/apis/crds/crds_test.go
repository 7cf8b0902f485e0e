package crds_test

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/nodepilot/nodepilot/kube/apis/crds"
)

func TestAll(t *testing.T) {
	all, err := crds.All()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind, group, plural string
		shortNames          []string
		rules               []string // messages of CEL rules that must be present
	}{
		{"EC2NodeClass", "karpenter.k8s.aws", "ec2nodeclasses", []string{"ec2nc", "ec2ncs"},
			[]string{"must specify exactly one of ['role', 'instanceProfile']", "'alias' must have the form 'family@version'"}},
		{"NodeClaim", "karpenter.sh", "nodeclaims", []string{"nc", "ncs"},
			[]string{"spec is immutable", "requirements with operator 'In' need at least one value"}},
		{"NodePool", "karpenter.sh", "nodepools", []string{"np", "nps"},
			[]string{"a budget needs both 'schedule' and 'duration', or neither", `label "karpenter.sh/nodepool" is restricted`,
				"requirements with operator 'Gt', 'Lt', 'Gte' or 'Lte' need exactly one non-negative integer value"}},
	}
	if len(all) != len(tests) {
		t.Fatalf("got %d CRDs, want %d", len(all), len(tests))
	}
	for i, tt := range tests {
		crd := all[i]
		t.Run(tt.kind, func(t *testing.T) {
			names := crd.Spec.Names
			if names.Kind != tt.kind || crd.Spec.Group != tt.group || names.Plural != tt.plural || crd.Spec.Scope != apiextensionsv1.ClusterScoped {
				t.Errorf("got %s %s/%s scope %s", names.Kind, crd.Spec.Group, names.Plural, crd.Spec.Scope)
			}
			if strings.Join(names.ShortNames, ",") != strings.Join(tt.shortNames, ",") || len(names.Categories) != 1 || names.Categories[0] != "karpenter" {
				t.Errorf("short names %v, categories %v", names.ShortNames, names.Categories)
			}
			if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Name != "v1" || !crd.Spec.Versions[0].Storage {
				t.Fatalf("versions %+v, want one storage version v1", crd.Spec.Versions)
			}
			version := crd.Spec.Versions[0]
			if version.Subresources == nil || version.Subresources.Status == nil {
				t.Error("no status subresource")
			}
			found := map[string]bool{}
			collectRuleMessages(version.Schema.OpenAPIV3Schema, found)
			for _, msg := range tt.rules {
				if !found[msg] {
					t.Errorf("no CEL rule with message %q", msg)
				}
			}
		})
	}
}

func collectRuleMessages(s *apiextensionsv1.JSONSchemaProps, found map[string]bool) {
	if s == nil {
		return
	}
	for _, rule := range s.XValidations {
		found[rule.Message] = true
	}
	for _, p := range s.Properties {
		collectRuleMessages(&p, found)
	}
	if s.Items != nil {
		collectRuleMessages(s.Items.Schema, found)
	}
	if s.AdditionalProperties != nil {
		collectRuleMessages(s.AdditionalProperties.Schema, found)
	}
}
