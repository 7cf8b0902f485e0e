package kube_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/nodepilot/nodepilot/kube"
	"github.com/nodepilot/nodepilot/kube/apis/crds"
)

// karpenterResource returns the resource of a NodePool or EC2NodeClass, and false for any other kind.
func karpenterResource(kind string) (schema.GroupVersionResource, bool) {
	switch kind {
	case "NodePool":
		return schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}, true
	case "EC2NodeClass":
		return schema.GroupVersionResource{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}, true
	}
	return schema.GroupVersionResource{}, false
}

// manifest is one NodePool or EC2NodeClass document of a manifest file.
type manifest struct {
	name string // file#document
	obj  *unstructured.Unstructured
}

// karpenterDocuments returns the NodePool and EC2NodeClass documents of the files matching pattern.
func karpenterDocuments(t *testing.T, pattern string) []manifest {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests match %s: %v", pattern, err)
	}
	var out []manifest
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for i := 1; ; i++ {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			obj := map[string]any{}
			if err := yaml.Unmarshal(doc, &obj); err != nil {
				t.Fatalf("%s document %d: %v", file, i, err)
			}
			if _, ok := karpenterResource(stringField(obj, "kind")); ok {
				out = append(out, manifest{filepath.Base(file) + "#" + string(rune('0'+i)), &unstructured.Unstructured{Object: obj}})
			}
		}
	}
	return out
}

func stringField(obj map[string]any, key string) string {
	s, _ := obj[key].(string)
	return s
}

// testInstallCRDs: InstallCRDs creates every CRD, Established, owned by nodepilot's field manager;
// a second run updates them in place; the Clients then reach each custom resource.
func testInstallCRDs(t *testing.T, e *env) {
	for range 2 {
		if err := kube.InstallCRDs(t.Context(), e.cfg, false); err != nil {
			t.Fatalf("InstallCRDs: %v", err)
		}
	}
	want, err := crds.All()
	if err != nil {
		t.Fatal(err)
	}
	ext, err := apiextensionsclient.NewForConfig(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, crd := range want {
		got, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(t.Context(), crd.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("crd %s: %v", crd.Name, err)
		}
		established := false
		for _, cond := range got.Status.Conditions {
			established = established || cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue
		}
		applied := false
		for _, mf := range got.ManagedFields {
			applied = applied || mf.Manager == kube.FieldManager && mf.Operation == metav1.ManagedFieldsOperationApply
		}
		if !established || !applied {
			t.Errorf("crd %s: established %v, applied by %s %v", crd.Name, established, kube.FieldManager, applied)
		}
	}
	for _, get := range []func() error{
		func() error { _, err := e.clients.NodePools.Get(t.Context(), "none"); return err },
		func() error { _, err := e.clients.NodeClaims.Get(t.Context(), "none"); return err },
		func() error { _, err := e.clients.NodeClasses.Get(t.Context(), "none"); return err },
	} {
		if err := get(); !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), `"none"`) {
			t.Errorf("get a missing object = %v, want NotFound naming it", err)
		}
	}
}

// testNewerCRDKept: a CRD that serves a field ours lacks (a newer Karpenter's) is left alone,
// with every other CRD, unless force; with force, ours replaces it.
func testNewerCRDKept(t *testing.T, e *env) {
	ext, err := apiextensionsclient.NewForConfig(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	crdAPI := ext.ApiextensionsV1().CustomResourceDefinitions()
	const name = "ec2nodeclasses.karpenter.k8s.aws"
	crd, err := crdAPI.Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	spec.Properties["futureField"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	if _, err := crdAPI.Update(t.Context(), crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	nodePools, err := crdAPI.Get(t.Context(), "nodepools.karpenter.sh", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	err = kube.InstallCRDs(t.Context(), e.cfg, false)
	for _, want := range []string{name, "v1 spec.futureField", "--force", "nothing was changed"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("InstallCRDs over a newer CRD = %v, want an error naming %q", err, want)
		}
	}
	hasFuture := func() bool {
		got, err := crdAPI.Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, ok := got.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["futureField"]
		return ok
	}
	if !hasFuture() {
		t.Error("the newer CRD was replaced without --force")
	}
	if got, err := crdAPI.Get(t.Context(), nodePools.Name, metav1.GetOptions{}); err != nil || got.ResourceVersion != nodePools.ResourceVersion {
		t.Errorf("the NodePool CRD changed in a refused install: %v, resourceVersion %s -> %s", err, nodePools.ResourceVersion, got.ResourceVersion)
	}

	if err := kube.InstallCRDs(t.Context(), e.cfg, true); err != nil {
		t.Fatalf("InstallCRDs with force: %v", err)
	}
	if hasFuture() {
		t.Error("--force kept the newer CRD's field")
	}
}

// testSeedsAccepted: the API server admits every seed NodePool and EC2NodeClass through the CRDs,
// except those Karpenter v1.14's CRDs refuse too: the EC2NodeClass without amiSelectorTerms and
// the two NodePools whose disruption block has no consolidateAfter.
func testSeedsAccepted(t *testing.T, e *env) {
	dyn, err := dynamic.NewForConfig(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	docs := karpenterDocuments(t, "../testdata/manifests/seeds/*.yaml")
	if len(docs) < 10 {
		t.Fatalf("%d seed NodePools and EC2NodeClasses, want at least 10", len(docs))
	}
	for _, doc := range docs {
		t.Run(doc.name, func(t *testing.T) {
			gvr, _ := karpenterResource(doc.obj.GetKind())
			_, err := dyn.Resource(gvr).Create(t.Context(), doc.obj, metav1.CreateOptions{})
			refused := map[string]string{
				"01-ec2nodeclass-default-ec2":   "spec.amiSelectorTerms",
				"02-nodepool-on-demand-general": "spec.disruption.consolidateAfter",
				"03-nodepool-spot-batch":        "spec.disruption.consolidateAfter",
			}
			if field, ok := refused[strings.SplitN(doc.name, ".", 2)[0]]; ok {
				if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), field) {
					t.Errorf("create = %v, want Invalid naming %s", err, field)
				}
				return
			}
			if err != nil {
				t.Errorf("create %s %s: %v", doc.obj.GetKind(), doc.obj.GetName(), err)
			}
		})
	}
}

// testInvalidRejected: the API server rejects the invalid samples with its own message, naming
// the field at fault.
func testInvalidRejected(t *testing.T, e *env) {
	dyn, err := dynamic.NewForConfig(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file  string
		field string // the message must contain it
	}{
		{"weight-1000.yaml", "spec.weight"},
		{"gt-two-values.yaml", "spec.template.spec.requirements"},
		{"schedule-without-duration.yaml", "spec.disruption.budgets"},
		{"unknown-operator.yaml", "spec.template.spec.requirements[0].operator"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			docs := karpenterDocuments(t, filepath.Join("../testdata/manifests/invalid", tc.file))
			if len(docs) != 1 {
				t.Fatalf("%d karpenter documents, want 1", len(docs))
			}
			obj := docs[0].obj
			gvr, _ := karpenterResource(obj.GetKind())
			_, err := dyn.Resource(gvr).Create(t.Context(), obj, metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) {
				t.Fatalf("create %s = %v, want Invalid", obj.GetName(), err)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("message does not name %s: %v", tc.field, err)
			}
			t.Logf("%s: %v", tc.file, err)
		})
	}
}

// testKubernetesDomainsAccepted: as Karpenter's CRDs since v1.10, ours admit NodePool labels and
// requirement keys in the kubernetes.io and k8s.io domains; the karpenter.sh domain stays
// restricted.
func testKubernetesDomainsAccepted(t *testing.T, e *env) {
	dyn, err := dynamic.NewForConfig(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	gvr, _ := karpenterResource("NodePool")
	nodePool := func(name, label, requirementKey string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{label: "x"}},
				"spec": map[string]any{
					"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
					"requirements": []any{map[string]any{"key": requirementKey, "operator": "In", "values": []any{"a"}}},
				}}}}}
	}
	for _, tc := range []struct {
		name, label, key string
		refused          string // "" when admitted
	}{
		{"kubernetes-domains", "kubernetes.io/role", "team.kubernetes.io/owner", ""},
		{"k8s-domains", "example.k8s.io/a", "example.k8s.io/b", ""},
		{"karpenter-domain", "karpenter.sh/custom", "team", `label domain \"karpenter.sh\" is restricted`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dyn.Resource(gvr).Create(t.Context(), nodePool(tc.name, tc.label, tc.key), metav1.CreateOptions{})
			switch {
			case tc.refused == "" && err != nil:
				t.Errorf("create = %v, want it admitted", err)
			case tc.refused != "" && (!apierrors.IsInvalid(err) || !strings.Contains(err.Error(), strings.ReplaceAll(tc.refused, `\"`, `"`))):
				t.Errorf("create = %v, want Invalid: %s", err, tc.refused)
			}
		})
	}
}
