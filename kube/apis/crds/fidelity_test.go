package crds_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/nodepilot/nodepilot/kube/apis/crds/crdtest"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
	"github.com/nodepilot/nodepilot/kube/apis/upstream"
)

// corpusObject is one NodePool, NodeClaim or EC2NodeClass of the admission corpus.
type corpusObject struct {
	name string // file#index name
	kind string
	obj  map[string]interface{}
}

// corpus reads every Karpenter object of files.
func corpus(t *testing.T, files []string) []corpusObject {
	t.Helper()
	var out []corpusObject
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range strings.Split(string(data), "\n---\n") {
			obj, err := crdtest.Object([]byte(doc))
			if err != nil {
				t.Fatalf("%s document %d: %v", file, i, err)
			}
			kind, _ := obj["kind"].(string)
			switch kind {
			case "NodePool", "NodeClaim", "EC2NodeClass":
				meta, _ := obj["metadata"].(map[string]interface{})
				out = append(out, corpusObject{name: fmt.Sprintf("%s/%s %v", filepath.Base(file), kind, meta["name"]), kind: kind, obj: obj})
			}
		}
	}
	return out
}

// TestCRDsAdmitAsKarpenters admits a corpus (Karpenter's own examples, the seed manifests, the
// hash corpus and edge cases) through nodepilot's CRDs and Karpenter v1.14's, with the API
// server's pruning, defaulting, OpenAPI and CEL validation, and requires the same verdict and
// the same stored object for each.
func TestCRDsAdmitAsKarpenters(t *testing.T) {
	theirs := map[string]*crdtest.Schema{
		"NodePool":     crdtest.New(t, upstream.CRD(t, "karpenter.sh_nodepools.yaml")),
		"NodeClaim":    crdtest.New(t, upstream.CRD(t, "karpenter.sh_nodeclaims.yaml")),
		"EC2NodeClass": crdtest.New(t, upstream.CRD(t, "karpenter.k8s.aws_ec2nodeclasses.yaml")),
	}
	ours := map[string]*crdtest.Schema{}
	for kind := range theirs {
		ours[kind] = crdtest.New(t, crdByKind(t, kind))
	}
	files := upstream.Examples(t)
	for _, pattern := range []string{"../../../testdata/fidelity/*.yaml", "../../../testdata/manifests/seeds/*.yaml"} {
		more, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, more...)
	}
	objects := corpus(t, files)
	agree := 0
	for _, o := range objects {
		mine, upstreamObj := deepCopyMap(t, o.obj), deepCopyMap(t, o.obj)
		ourErrs := ours[o.kind].Admit(mine, nil)
		theirErrs := theirs[o.kind].Admit(upstreamObj, nil)
		var problem string
		switch {
		case len(ourErrs) == 0 && len(theirErrs) > 0:
			problem = "nodepilot admits it, Karpenter refuses it: " + theirErrs.ToAggregate().Error()
		case len(ourErrs) > 0 && len(theirErrs) == 0:
			problem = "Karpenter admits it, nodepilot refuses it: " + ourErrs.ToAggregate().Error()
		case len(ourErrs) == 0 && !equality.Semantic.DeepEqual(mine, upstreamObj):
			a, _ := yaml.Marshal(mine)
			b, _ := yaml.Marshal(upstreamObj)
			problem = fmt.Sprintf("stored differently:\nnodepilot:\n%s\nKarpenter:\n%s", a, b)
		}
		if problem != "" {
			t.Errorf("%s: %s", o.name, problem)
			continue
		}
		agree++
		if goErrs := goValidate(t, o); (len(goErrs) > 0) != (len(theirErrs) > 0) {
			t.Errorf("%s: plan's validation says %v, the CRDs %v", o.name, goErrs, theirErrs)
		}
	}
	t.Logf("CRD admission agrees with Karpenter %s on %d of %d objects", upstream.Load(t).Version, agree, len(objects))
}

// goValidate runs the validation plan uses (SetDefaults, then Validate) on a corpus object.
// A NodePool whose disruption block lacks consolidateAfter is refused as Karpenter refuses it,
// though plan then goes on with a note.
func goValidate(t *testing.T, o corpusObject) []string {
	var errs []string
	var obj interface {
		SetDefaults()
		Validate() field.ErrorList
	}
	switch o.kind {
	case "NodePool":
		obj = &karpv1.NodePool{}
		if d, ok := o.obj["spec"].(map[string]interface{})["disruption"].(map[string]interface{}); ok && d["consolidateAfter"] == nil {
			errs = append(errs, "spec.disruption.consolidateAfter: Required value")
		}
	case "NodeClaim":
		obj = &karpv1.NodeClaim{}
	case "EC2NodeClass":
		obj = &awsv1.EC2NodeClass{}
	}
	typed(t, o.obj, obj)
	obj.SetDefaults()
	for _, e := range obj.Validate() {
		errs = append(errs, e.Error())
	}
	return errs
}
