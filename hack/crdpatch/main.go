// Command crdpatch adds to the CRDs controller-gen generates the constraints that markers
// cannot express, because they sit inside Kubernetes types (corev1.Taint, metav1.Condition) or
// on map values: the same constraints Karpenter adds to its own generated CRDs, as schema
// properties that cost nothing at admission (CEL rules on these unbounded lists would exceed
// the API server's cost budget).
//
//	go run ./hack/crdpatch DIR    (make generate runs it after controller-gen)
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// Patterns of label-like strings and of quantities, as the API server's own validation reads them.
const (
	qualifiedName = `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`
	labelValue    = `^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
	quantity      = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`
	// threshold is an eviction threshold: a percentage up to 100% or a quantity.
	threshold = `^((\d{1,2}(\.\d{1,2})?|100(\.0{1,2})?)%||(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?)$`
	// conditionReason lets a condition's reason be empty, which Karpenter's NodeClaims allow.
	conditionReason = `^([A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?|)$`
)

// patch changes the schema found at a path of property names (".items" and ".values" step
// into array items and map values).
type patch struct {
	file  string
	path  string
	apply func(*apiextensionsv1.JSONSchemaProps)
}

func taintPatches(file, prefix string) []patch {
	var out []patch
	for _, list := range []string{"taints", "startupTaints"} {
		out = append(out,
			patch{file, prefix + list + ".items.key", func(s *apiextensionsv1.JSONSchemaProps) {
				s.MinLength, s.Pattern = ptr.To[int64](1), qualifiedName
			}},
			patch{file, prefix + list + ".items.value", func(s *apiextensionsv1.JSONSchemaProps) { s.Pattern = qualifiedName }},
		)
	}
	return out
}

func patches() []patch {
	const (
		nodePools   = "karpenter.sh_nodepools.yaml"
		nodeClaims  = "karpenter.sh_nodeclaims.yaml"
		nodeClasses = "karpenter.k8s.aws_ec2nodeclasses.yaml"
	)
	out := append(taintPatches(nodePools, "spec.template.spec."), taintPatches(nodeClaims, "spec.")...)
	out = append(out,
		patch{nodePools, "spec.template.metadata.labels.values", func(s *apiextensionsv1.JSONSchemaProps) {
			s.MaxLength, s.Pattern = ptr.To[int64](63), labelValue
		}},
		patch{nodeClaims, "status.conditions.items", func(s *apiextensionsv1.JSONSchemaProps) {
			s.Required = []string{"lastTransitionTime", "status", "type"}
		}},
		patch{nodeClaims, "status.conditions.items.reason", func(s *apiextensionsv1.JSONSchemaProps) {
			s.MinLength, s.Pattern = nil, conditionReason
		}},
	)
	for _, m := range []string{"kubeReserved", "systemReserved"} {
		out = append(out, patch{nodeClasses, "spec.kubelet." + m + ".values", func(s *apiextensionsv1.JSONSchemaProps) { s.Pattern = quantity }})
	}
	for _, m := range []string{"evictionHard", "evictionSoft"} {
		out = append(out, patch{nodeClasses, "spec.kubelet." + m + ".values", func(s *apiextensionsv1.JSONSchemaProps) { s.Pattern = threshold }})
	}
	return out
}

// patchAt applies f to the schema at steps under s. Properties are held by value, so each
// level writes its changed child back.
func patchAt(s *apiextensionsv1.JSONSchemaProps, steps []string, f func(*apiextensionsv1.JSONSchemaProps)) error {
	if len(steps) == 0 {
		f(s)
		return nil
	}
	switch step := steps[0]; step {
	case "items":
		if s.Items == nil || s.Items.Schema == nil {
			return fmt.Errorf("no array items at %q", step)
		}
		return patchAt(s.Items.Schema, steps[1:], f)
	case "values":
		if s.AdditionalProperties == nil || s.AdditionalProperties.Schema == nil {
			return fmt.Errorf("no map values at %q", step)
		}
		return patchAt(s.AdditionalProperties.Schema, steps[1:], f)
	default:
		child, ok := s.Properties[step]
		if !ok {
			return fmt.Errorf("no property %q", step)
		}
		if err := patchAt(&child, steps[1:], f); err != nil {
			return err
		}
		s.Properties[step] = child
		return nil
	}
}

func run(dir string) error {
	byFile := map[string][]patch{}
	for _, p := range patches() {
		byFile[p.file] = append(byFile[p.file], p)
	}
	for file, ps := range byFile {
		path := filepath.Join(dir, file)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &crd); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		root := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
		for _, p := range ps {
			if err := patchAt(root, strings.Split(p.path, "."), p.apply); err != nil {
				return fmt.Errorf("%s: %s: %w", path, p.path, err)
			}
		}
		out, err := yaml.Marshal(struct {
			APIVersion string                                       `json:"apiVersion"`
			Kind       string                                       `json:"kind"`
			Metadata   interface{}                                  `json:"metadata"`
			Spec       apiextensionsv1.CustomResourceDefinitionSpec `json:"spec"`
		}{crd.APIVersion, crd.Kind, crd.ObjectMeta, crd.Spec})
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, append([]byte("---\n"), out...), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: crdpatch DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "crdpatch:", err)
		os.Exit(1)
	}
}
