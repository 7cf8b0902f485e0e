// Package charts owns nodepilot's Helm chart, charts/nodepilot: it embeds the chart's directory and
// renders it with Helm's own SDK exactly as `helm install` would (values checked against the
// chart's values.schema.json, CRDs first, then the templates in Helm's install order), so that
// tests can check what the chart installs and apply it to a real API server. The chart's crds/ are
// copies of kube/apis/crds, made by `make generate`; its RBAC is the only statement of what the
// controller may do.
package charts

import (
	"bufio"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strings"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	release "helm.sh/helm/v4/pkg/release/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Name is the chart's name, and its directory under charts/.
const Name = "nodepilot"

// files is the chart's directory; all: keeps _helpers.tpl, which embed leaves out otherwise.
//
//go:embed all:nodepilot
var files embed.FS

// Load returns the embedded chart, as `helm install` loads charts/nodepilot.
func Load() (*chart.Chart, error) {
	var buffered []*archive.BufferedFile
	err := fs.WalkDir(files, Name, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		buffered = append(buffered, &archive.BufferedFile{Name: strings.TrimPrefix(name, Name+"/"), Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the embedded chart %s: %w", Name, err)
	}
	c, err := loader.LoadFiles(buffered)
	if err != nil {
		return nil, fmt.Errorf("loading the embedded chart %s: %w", Name, err)
	}
	return c, nil
}

// Render returns the objects `helm install RELEASE charts/nodepilot --namespace NAMESPACE` with
// values would create, in the order Helm creates them: the CRDs of crds/, then the templates'
// objects in Helm's install order (ServiceAccount, RBAC, Service, Deployment...). It renders on the
// client, as `helm template` does: values are checked against values.schema.json (an error names
// the value at fault) and the Kubernetes version is Helm's default. The namespace itself is not
// among the objects: `helm install --create-namespace` makes it.
func Render(releaseName, namespace string, values map[string]any) ([]*unstructured.Unstructured, error) {
	c, err := Load()
	if err != nil {
		return nil, err
	}
	install := action.NewInstall(action.NewConfiguration(action.ConfigurationSetLogger(slog.DiscardHandler)))
	install.DryRunStrategy = action.DryRunClient
	install.ReleaseName, install.Namespace = releaseName, namespace
	install.IncludeCRDs = true
	r, err := install.Run(c, values)
	if err != nil {
		return nil, fmt.Errorf("rendering chart %s as release %q in namespace %q: %w", Name, releaseName, namespace, err)
	}
	rel, ok := r.(*release.Release)
	if !ok {
		return nil, fmt.Errorf("rendering chart %s: Helm returned a %T, not a v1 release", Name, r)
	}
	return decode(rel.Manifest)
}

// decode splits a rendered manifest into its objects, in order; documents holding only comments
// (a template that rendered nothing) are left out.
func decode(manifest string) ([]*unstructured.Unstructured, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(manifest)))
	var objs []*unstructured.Unstructured
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the rendered manifest: %w", err)
		}
		data, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("rendered object %d: %w", len(objs)+1, err)
		}
		if string(data) == "null" {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("rendered object %d: %w", len(objs)+1, err)
		}
		objs = append(objs, obj)
	}
}
