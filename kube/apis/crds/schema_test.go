package crds_test

import (
	"context"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"

	"github.com/nodepilot/nodepilot/kube/apis/crds"
	"github.com/nodepilot/nodepilot/kube/apis/crds/crdtest"
)

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

func TestCRDsAreValid(t *testing.T) {
	all, err := crds.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, crd := range all {
		internal := crdtest.Internal(t, crd)
		// A CRD read from a file has no status; the API server fills in the stored version.
		internal.Status.StoredVersions = []string{internal.Spec.Versions[0].Name}
		errs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), internal)
		for _, e := range errs {
			t.Errorf("%s: %v", crd.Name, e)
		}
	}
}
