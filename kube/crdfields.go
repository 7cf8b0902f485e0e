package kube

import (
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// lostFields lists what replacing installed with ours would stop the API server from serving:
// each served version ours lacks ("v2"), and each schema field of a version both serve that ours
// lacks ("v1 spec.template.spec.foo"). The API server prunes unknown fields, so installing ours
// over a newer Karpenter's CRD would silently drop those fields from every stored object the next
// time it is written. Sorted, so the message is the same each time.
func lostFields(installed, ours *apiextensionsv1.CustomResourceDefinition) []string {
	oursByName := map[string]*apiextensionsv1.CustomResourceDefinitionVersion{}
	for i := range ours.Spec.Versions {
		oursByName[ours.Spec.Versions[i].Name] = &ours.Spec.Versions[i]
	}
	var lost []string
	for _, v := range installed.Spec.Versions {
		if !v.Served {
			continue
		}
		mine, ok := oursByName[v.Name]
		if !ok || !mine.Served {
			lost = append(lost, v.Name)
			continue
		}
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		var theirs apiextensionsv1.JSONSchemaProps
		if mine.Schema != nil && mine.Schema.OpenAPIV3Schema != nil {
			theirs = *mine.Schema.OpenAPIV3Schema
		}
		lost = appendLost(lost, v.Name, "", v.Schema.OpenAPIV3Schema, &theirs)
	}
	sort.Strings(lost)
	return lost
}

// appendLost appends "version path" for each property under path that installed declares and
// ours does not, descending into objects, array items ([]) and map values (*). A schema that
// preserves unknown fields keeps whatever it is given, so nothing under it is lost.
func appendLost(lost []string, version, path string, installed, ours *apiextensionsv1.JSONSchemaProps) []string {
	if ours.XPreserveUnknownFields != nil && *ours.XPreserveUnknownFields {
		return lost
	}
	for name, prop := range installed.Properties {
		child := joinPath(path, name)
		mine, ok := ours.Properties[name]
		if !ok {
			lost = append(lost, version+" "+child)
			continue
		}
		lost = appendLost(lost, version, child, &prop, &mine)
	}
	if installed.Items != nil && installed.Items.Schema != nil {
		var mine apiextensionsv1.JSONSchemaProps
		if ours.Items != nil && ours.Items.Schema != nil {
			mine = *ours.Items.Schema
		}
		lost = appendLost(lost, version, path+"[]", installed.Items.Schema, &mine)
	}
	if installed.AdditionalProperties != nil && installed.AdditionalProperties.Schema != nil {
		var mine apiextensionsv1.JSONSchemaProps
		if ours.AdditionalProperties != nil && ours.AdditionalProperties.Schema != nil {
			mine = *ours.AdditionalProperties.Schema
		}
		lost = appendLost(lost, version, joinPath(path, "*"), installed.AdditionalProperties.Schema, &mine)
	}
	return lost
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
