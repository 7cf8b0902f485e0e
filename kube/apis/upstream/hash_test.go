package upstream_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
	"github.com/nodepilot/nodepilot/kube/apis/upstream"
)

// caBundle stands for the cluster's CA bundle, which the EC2NodeClass hash covers.
const caBundle = "Y2EtYnVuZGxl"

// ourHash is nodepilot's hash of document index of file, as Karpenter's hash controllers
// would write it.
func ourHash(t *testing.T, h upstream.Hash) string {
	t.Helper()
	data, err := os.ReadFile(h.File)
	if err != nil {
		t.Fatal(err)
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			t.Fatalf("%s has no document %d", h.File, h.Index)
		}
		if err != nil {
			t.Fatal(err)
		}
		if i != h.Index {
			continue
		}
		switch h.Kind {
		case "NodePool":
			var np karpv1.NodePool
			if err := yaml.Unmarshal(doc, &np); err != nil {
				t.Fatal(err)
			}
			return karpv1.Hash(&np)
		case "EC2NodeClass":
			var nc awsv1.EC2NodeClass
			if err := yaml.Unmarshal(doc, &nc); err != nil {
				t.Fatal(err)
			}
			return awsv1.Hash(&nc, caBundle)
		}
		t.Fatalf("%s document %d: unexpected kind %s", h.File, h.Index, h.Kind)
	}
}

// TestHashesAreKarpenters requires nodepilot's NodePool and EC2NodeClass hashes, and their
// versions, to be Karpenter's, so that after a move in either direction each controller finds
// drift on the other's NodeClaims instead of re-hashing them.
func TestHashesAreKarpenters(t *testing.T) {
	facts := upstream.Load(t)
	if karpv1.NodePoolHashVersion != facts.NodePoolHashVersion || awsv1.EC2NodeClassHashVersion != facts.EC2NodeClassHashVersion {
		t.Errorf("hash versions %s and %s, Karpenter %s writes %s and %s", karpv1.NodePoolHashVersion, awsv1.EC2NodeClassHashVersion,
			facts.Version, facts.NodePoolHashVersion, facts.EC2NodeClassHashVersion)
	}
	files, err := filepath.Glob("../../../testdata/fidelity/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seeds, err := filepath.Glob("../../../testdata/manifests/seeds/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	hashes := upstream.Hashes(t, caBundle, append(files, seeds...)...)
	kinds := map[string]int{}
	equal := 0
	for _, h := range hashes {
		kinds[h.Kind]++
		if ours := ourHash(t, h); ours != h.Hash {
			t.Errorf("%s %s (%s #%d): nodepilot's hash %s, Karpenter's %s", h.Kind, h.Name, filepath.Base(h.File), h.Index, ours, h.Hash)
			continue
		}
		equal++
	}
	if kinds["NodePool"] < 5 || kinds["EC2NodeClass"] < 5 {
		t.Errorf("the corpus has %d NodePools and %d EC2NodeClasses, want at least 5 of each", kinds["NodePool"], kinds["EC2NodeClass"])
	}
	t.Logf("hashes equal to Karpenter %s's: %d of %d", facts.Version, equal, len(hashes))
}
