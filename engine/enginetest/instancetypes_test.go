package enginetest

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
)

func TestDefaultInstanceTypesMatchTheCatalog(t *testing.T) {
	defaults := DefaultInstanceTypes()
	names := make([]string, len(defaults))
	for i, it := range defaults {
		names[i] = it.Name
	}
	fromCatalog, err := CatalogInstanceTypes(names...)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range fromCatalog {
		got := defaults[i]
		if got.Name != want.Name || !equality.Semantic.DeepEqual(got.Capacity, want.Capacity) ||
			!equality.Semantic.DeepEqual(got.Allocatable(), want.Allocatable()) || got.Requirements.String() != want.Requirements.String() {
			t.Errorf("%s: the copied row differs from the catalog:\n got %v %v\nwant %v %v", got.Name, got.Capacity, got.Requirements, want.Capacity, want.Requirements)
		}
		if !reflect.DeepEqual(got.Offerings, want.Offerings) {
			t.Errorf("%s offerings:\n got %v\nwant %v", got.Name, got.Offerings, want.Offerings)
		}
	}
	if _, err := CatalogInstanceTypes("m5.huge"); err == nil {
		t.Error("an unknown type was found")
	}
}
