package crds_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/nodepilot/nodepilot/kube/apis/crds/crdtest"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

// documents returns the karpenter documents of the manifests matching pattern, as maps.
func documents(t *testing.T, pattern string) map[string]map[string]interface{} {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests match %s: %v", pattern, err)
	}
	docs := map[string]map[string]interface{}{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range strings.Split(string(data), "\n---\n") {
			var obj map[string]interface{}
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj == nil {
				continue
			}
			switch obj["kind"] {
			case "NodePool", "EC2NodeClass":
				docs[filepath.Base(file)+"#"+string(rune('1'+i))] = obj
			}
		}
	}
	return docs
}

// typed decodes obj (through JSON) into out.
func typed(t *testing.T, obj map[string]interface{}, out interface{}) {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatal(err)
	}
}

// refusedSeeds are the seed objects Karpenter v1.14's CRDs refuse, and ours with them, by the
// field at fault; plan loads them with a note (kube/manifest).
var refusedSeeds = map[string]string{
	"01-ec2nodeclass-default-ec2.yaml#1":   "spec.amiSelectorTerms",
	"02-nodepool-on-demand-general.yaml#1": "spec.disruption.consolidateAfter",
	"03-nodepool-spot-batch.yaml#1":        "spec.disruption.consolidateAfter",
}

// TestSeedsAgainstCRDs admits every seed NodePool and EC2NodeClass through the CRDs as an API
// server would, and checks that the CRD defaults equal SetDefaults and that both validations
// accept them, except the seeds Karpenter refuses: the CRD refuses them by the same field, and
// Go validation refuses the EC2NodeClass without amiSelectorTerms (SetDefaults gives the two
// NodePools the consolidateAfter Karpenter would default without their disruption block).
func TestSeedsAgainstCRDs(t *testing.T) {
	schemas := map[string]*crdtest.Schema{
		"NodePool":     crdtest.New(t, crdByKind(t, "NodePool")),
		"EC2NodeClass": crdtest.New(t, crdByKind(t, "EC2NodeClass")),
	}
	for name, obj := range documents(t, "../../../testdata/manifests/seeds/*.yaml") {
		t.Run(name, func(t *testing.T) {
			kind := obj["kind"].(string)
			raw := obj
			admitted := deepCopyMap(t, obj)
			crdErrs := schemas[kind].Admit(admitted, nil)
			if field, refused := refusedSeeds[name]; refused {
				if crdErrs.ToAggregate() == nil || !strings.Contains(crdErrs.ToAggregate().Error(), field) {
					t.Errorf("CRD errors %v, want one on %s", crdErrs, field)
				}
				if kind == "NodePool" {
					return
				}
			}
			var goErrs []string
			switch kind {
			case "NodePool":
				goErrs = goParity[karpv1.NodePool](t, admitted, raw)
			case "EC2NodeClass":
				goErrs = goParity[awsv1.EC2NodeClass](t, admitted, raw)
			}
			_, wantInvalid := refusedSeeds[name]
			if (len(crdErrs) > 0) != wantInvalid || (len(goErrs) > 0) != wantInvalid {
				t.Errorf("CRD errors %v, Go errors %v; want invalid = %v", crdErrs, goErrs, wantInvalid)
			}
		})
	}
}

// apiObject is a NodePool or an EC2NodeClass: defaulted and validated in Go.
type apiObject[T any] interface {
	*T
	SetDefaults()
	Validate() field.ErrorList
}

// goParity types a document as the API server admitted it (CRD defaults applied) and as written,
// checks that SetDefaults gives the written one what the CRD gave, and returns Go validation's
// errors for it.
func goParity[T any, P apiObject[T]](t *testing.T, admitted, raw map[string]any) []string {
	t.Helper()
	fromCRD, fromGo := P(new(T)), P(new(T))
	typed(t, admitted, fromCRD)
	typed(t, raw, fromGo)
	fromGo.SetDefaults()
	if !reflect.DeepEqual(fromCRD, fromGo) {
		t.Errorf("CRD defaults give\n%+v\nSetDefaults gives\n%+v", fromCRD, fromGo)
	}
	var errs []string
	for _, e := range fromGo.Validate() {
		errs = append(errs, e.Error())
	}
	return errs
}

// TestInvalidSamplesAgainstCRDs checks that the API server, too, rejects the invalid samples
// that CRD rules cover (unknown fields are pruned by an API server, not rejected, and YAML
// syntax never reaches it).
func TestInvalidSamplesAgainstCRDs(t *testing.T) {
	schema := crdtest.New(t, crdByKind(t, "NodePool"))
	for _, file := range []string{"weight-1000.yaml", "gt-two-values.yaml", "bad.yaml", "schedule-without-duration.yaml", "unknown-operator.yaml", "many-problems.yaml"} {
		t.Run(file, func(t *testing.T) {
			docs := documents(t, filepath.Join("../../../testdata/manifests/invalid", file))
			for name, obj := range docs {
				if obj["kind"] != "NodePool" {
					continue
				}
				if errs := schema.Admit(obj, nil); len(errs) == 0 {
					t.Errorf("%s: the CRD admits it", name)
				}
			}
		})
	}
}

func deepCopyMap(t *testing.T, obj map[string]interface{}) map[string]interface{} {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	out, err := crdtest.Object(data)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
