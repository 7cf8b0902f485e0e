package kube

import (
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestLostFields(t *testing.T) {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	object := func(props map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", Properties: props}
	}
	array := func(item apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &item}}
	}
	mapOf := func(value apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Schema: &value}}
	}
	preserve := true
	version := func(name string, served bool, schema *apiextensionsv1.JSONSchemaProps) apiextensionsv1.CustomResourceDefinitionVersion {
		v := apiextensionsv1.CustomResourceDefinitionVersion{Name: name, Served: served}
		if schema != nil {
			v.Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: schema}
		}
		return v
	}
	crd := func(versions ...apiextensionsv1.CustomResourceDefinitionVersion) *apiextensionsv1.CustomResourceDefinition {
		return &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{Versions: versions}}
	}
	base := object(map[string]apiextensionsv1.JSONSchemaProps{"spec": object(map[string]apiextensionsv1.JSONSchemaProps{"role": str})})
	for _, tc := range []struct {
		name            string
		installed, ours *apiextensionsv1.CustomResourceDefinition
		want            []string
	}{
		{"same", crd(version("v1", true, &base)), crd(version("v1", true, &base)), nil},
		{"ours newer", crd(version("v1", true, &base)),
			crd(version("v1", true, ptr(object(map[string]apiextensionsv1.JSONSchemaProps{"spec": object(map[string]apiextensionsv1.JSONSchemaProps{"role": str, "extra": str})})))), nil},
		{"a field ours lacks",
			crd(version("v1", true, ptr(object(map[string]apiextensionsv1.JSONSchemaProps{"spec": object(map[string]apiextensionsv1.JSONSchemaProps{"role": str, "cpuOptions": object(nil)})})))),
			crd(version("v1", true, &base)), []string{"v1 spec.cpuOptions"}},
		{"a version ours lacks", crd(version("v1", true, &base), version("v2", true, &base)), crd(version("v1", true, &base)), []string{"v2"}},
		{"a version not served is not lost", crd(version("v1", true, &base), version("v1beta1", false, &base)), crd(version("v1", true, &base)), nil},
		{"a version ours stops serving", crd(version("v1", true, &base)), crd(version("v1", false, &base)), []string{"v1"}},
		{"in array items",
			crd(version("v1", true, ptr(object(map[string]apiextensionsv1.JSONSchemaProps{"terms": array(object(map[string]apiextensionsv1.JSONSchemaProps{"id": str, "tags": str}))})))),
			crd(version("v1", true, ptr(object(map[string]apiextensionsv1.JSONSchemaProps{"terms": array(object(map[string]apiextensionsv1.JSONSchemaProps{"id": str}))})))),
			[]string{"v1 terms[].tags"}},
		{"in map values",
			crd(version("v1", true, ptr(object(map[string]apiextensionsv1.JSONSchemaProps{"kubelet": mapOf(object(map[string]apiextensionsv1.JSONSchemaProps{"a": str, "b": str}))})))),
			crd(version("v1", true, ptr(object(map[string]apiextensionsv1.JSONSchemaProps{"kubelet": mapOf(object(map[string]apiextensionsv1.JSONSchemaProps{"a": str}))})))),
			[]string{"v1 kubelet.*.b"}},
		{"ours preserves unknown fields",
			crd(version("v1", true, ptr(object(map[string]apiextensionsv1.JSONSchemaProps{"spec": object(map[string]apiextensionsv1.JSONSchemaProps{"x": str})})))),
			crd(version("v1", true, ptr(object(map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", XPreserveUnknownFields: &preserve}})))), nil},
		{"several, sorted",
			crd(version("v1", true, ptr(object(map[string]apiextensionsv1.JSONSchemaProps{"z": str, "a": str, "spec": object(nil)})))),
			crd(version("v1", true, ptr(object(map[string]apiextensionsv1.JSONSchemaProps{"spec": object(nil)})))),
			[]string{"v1 a", "v1 z"}},
		{"installed without a schema", crd(version("v1", true, nil)), crd(version("v1", true, &base)), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lostFields(tc.installed, tc.ours); !slices.Equal(got, tc.want) {
				t.Errorf("lostFields = %q, want %q", got, tc.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
