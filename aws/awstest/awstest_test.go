package awstest

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/nodepilot/nodepilot/engine/enginetest"
)

// harnessTypes are enginetest's default types: c5, m5 and r5 on amd64, m6g and c6g on arm64.
var harnessTypes = []string{"c5.large", "c5.xlarge", "c5.2xlarge", "m5.large", "m5.xlarge", "m5.2xlarge", "m5.4xlarge",
	"r5.large", "r5.xlarge", "m6g.large", "m6g.xlarge", "c6g.xlarge"}

var update = flag.Bool("update", false, "rewrite enginetest's default instance types from the catalog")

// TestDefaultInstanceTypesAreTheCatalogs: the harness's default types, stored as data so that the
// engine's harness needs no provider, are the catalog's as the provider builds them
// (go test ./aws/awstest -update writes them again).
func TestDefaultInstanceTypesAreTheCatalogs(t *testing.T) {
	fromCatalog, err := CatalogInstanceTypes(harnessTypes...)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		data, err := enginetest.MarshalInstanceTypes(fromCatalog)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "..", "engine", "enginetest", enginetest.DefaultInstanceTypesFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	defaults := enginetest.DefaultInstanceTypes()
	if len(defaults) != len(fromCatalog) {
		t.Fatalf("%d default types, want %d (go test ./aws/awstest -update)", len(defaults), len(fromCatalog))
	}
	for i, want := range fromCatalog {
		got := defaults[i]
		if got.Name != want.Name || !equality.Semantic.DeepEqual(got.Capacity, want.Capacity) || !equality.Semantic.DeepEqual(got.Overhead, want.Overhead) ||
			!equality.Semantic.DeepEqual(got.Allocatable(), want.Allocatable()) || got.Requirements.String() != want.Requirements.String() {
			t.Errorf("%s: the stored type differs from the catalog's (go test ./aws/awstest -update):\n got %v %v\nwant %v %v", got.Name, got.Capacity, got.Requirements, want.Capacity, want.Requirements)
		}
		if !reflect.DeepEqual(got.Offerings, want.Offerings) {
			t.Errorf("%s offerings:\n got %v\nwant %v", got.Name, got.Offerings, want.Offerings)
		}
	}
	if _, err := CatalogInstanceTypes("m5.huge"); err == nil {
		t.Error("an unknown type was found")
	}
}
