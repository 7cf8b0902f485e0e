package crds_test

import (
	"context"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/nodepilot/nodepilot/kube/apis/crds"
)

// apiserverSchema does, in process, what a kube-apiserver does with a custom resource of one
// CRD: default it, then validate it against the OpenAPI schema and the CEL rules.
type apiserverSchema struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	cel        *cel.Validator
}

// internalCRD converts a v1 CRD to the apiserver's internal form.
func internalCRD(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) *apiextensions.CustomResourceDefinition {
	t.Helper()
	internal := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		t.Fatalf("converting CRD %s: %v", crd.Name, err)
	}
	return internal
}

// crdByKind returns the embedded CRD of kind.
func crdByKind(t *testing.T, kind string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	all, err := crds.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, crd := range all {
		if crd.Spec.Names.Kind == kind {
			return crd
		}
	}
	t.Fatalf("no CRD of kind %s", kind)
	return nil
}

func newAPIServerSchema(t *testing.T, kind string) *apiserverSchema {
	t.Helper()
	internal := internalCRD(t, crdByKind(t, kind))
	// With a single version, the internal form keeps the schema at the top level.
	props := internal.Spec.Validation.OpenAPIV3Schema
	if v := internal.Spec.Versions[0].Schema; v != nil {
		props = v.OpenAPIV3Schema
	}
	structural, err := structuralschema.NewStructural(props)
	if err != nil {
		t.Fatalf("structural schema of %s: %v", kind, err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		t.Fatalf("schema validator of %s: %v", kind, err)
	}
	return &apiserverSchema{
		structural: structural,
		validator:  validator,
		cel:        cel.NewValidator(structural, true, celconfig.PerCallLimit),
	}
}

// admit defaults obj in place and returns the validation errors of a create.
func (s *apiserverSchema) admit(obj map[string]interface{}) field.ErrorList {
	structuraldefaulting.Default(obj, s.structural)
	errs := apiservervalidation.ValidateCustomResource(nil, obj, s.validator)
	celErrs, _ := s.cel.Validate(context.Background(), nil, s.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

func TestCRDsAreValid(t *testing.T) {
	all, err := crds.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, crd := range all {
		internal := internalCRD(t, crd)
		// A CRD read from a file has no status; the API server fills in the stored version.
		internal.Status.StoredVersions = []string{internal.Spec.Versions[0].Name}
		errs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), internal)
		for _, e := range errs {
			t.Errorf("%s: %v", crd.Name, e)
		}
	}
}
