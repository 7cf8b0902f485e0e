// Package crdtest admits custom resources in process as a kube-apiserver does with a CRD:
// unknown fields pruned, defaults applied, then the OpenAPI schema and the CEL rules checked.
// The CRD tests use it on nodepilot's CRDs and on Karpenter's, to compare their verdicts.
package crdtest

import (
	"context"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

// Schema is one CRD's schema, ready to admit objects.
type Schema struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	cel        *cel.Validator
}

// Internal converts a v1 CRD to the API server's internal form.
func Internal(t testing.TB, crd *apiextensionsv1.CustomResourceDefinition) *apiextensions.CustomResourceDefinition {
	t.Helper()
	internal := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		t.Fatalf("converting CRD %s: %v", crd.Name, err)
	}
	return internal
}

// New returns the schema of crd's first version.
func New(t testing.TB, crd *apiextensionsv1.CustomResourceDefinition) *Schema {
	t.Helper()
	internal := Internal(t, crd)
	// With a single version, the internal form keeps the schema at the top level.
	props := internal.Spec.Validation.OpenAPIV3Schema
	if v := internal.Spec.Versions[0].Schema; v != nil {
		props = v.OpenAPIV3Schema
	}
	structural, err := structuralschema.NewStructural(props)
	if err != nil {
		t.Fatalf("structural schema of %s: %v", crd.Name, err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		t.Fatalf("schema validator of %s: %v", crd.Name, err)
	}
	return &Schema{
		structural: structural,
		validator:  validator,
		cel:        cel.NewValidator(structural, true, celconfig.PerCallLimit),
	}
}

// Admit prunes and defaults obj in place, as the API server stores it, and returns the
// validation errors of a create (old nil) or an update from old.
func (s *Schema) Admit(obj, old map[string]interface{}) field.ErrorList {
	pruning.Prune(obj, s.structural, true)
	structuraldefaulting.Default(obj, s.structural)
	var oldObj interface{}
	if old != nil {
		oldObj = old
	}
	errs := apiservervalidation.ValidateCustomResource(nil, obj, s.validator)
	celErrs, _ := s.cel.Validate(context.Background(), nil, s.structural, obj, oldObj, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// Object reads a YAML or JSON document as the API server holds a custom resource: integers
// as int64 (a plain YAML or JSON decoder gives float64, which integer rules refuse).
func Object(data []byte) (map[string]interface{}, error) {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	var obj map[string]interface{}
	if err := utiljson.Unmarshal(j, &obj); err != nil {
		return nil, err
	}
	return obj, nil
}
