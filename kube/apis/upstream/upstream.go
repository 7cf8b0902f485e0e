// Package upstream gives the fidelity tests Karpenter's own facts: its CRDs, its hashes of a
// corpus of objects, its metric families and event reasons, as hack/build-fidelity.sh read
// them from Karpenter's modules (which need a newer Go than nodepilot, so they are never
// linked here). Every function fails the test, naming the script, when the facts are missing:
// the fidelity tier never skips.
package upstream

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// Facts is what hack/fidelity read from Karpenter's code.
type Facts struct {
	Version                 string      `json:"version"`
	NodePoolHashVersion     string      `json:"nodePoolHashVersion"`
	EC2NodeClassHashVersion string      `json:"ec2NodeClassHashVersion"`
	WellKnownLabels         []string    `json:"wellKnownLabels"`
	Metrics                 []Metric    `json:"metrics"`
	Events                  []Event     `json:"events"`
	SchedulingSuite         []SuiteCase `json:"schedulingSuite"`
	// AWSOperations are the AWS API operations Karpenter's AWS provider may call.
	AWSOperations []AWSOperation `json:"awsOperations"`
	// LaunchReasons are Karpenter's names for launch failures EC2 describes so.
	LaunchReasons []LaunchReason `json:"launchReasons"`
}

// LaunchReason is what Karpenter's AWS provider names a launch failure ("code: message").
type LaunchReason struct {
	Said   string `json:"said"`
	Reason string `json:"reason"`
}

// AWSOperation is one AWS API operation, by service (EC2, IAM, EKS, Pricing, SSM, SQS...).
type AWSOperation struct {
	Service   string `json:"service"`
	Operation string `json:"operation"`
}

// SuiteCase is one case of Karpenter's provisioning and scheduling suites, named by its
// Describe and Context path ("Scheduling / Binpacking / should pack nodes tightly").
type SuiteCase struct {
	File string `json:"file"`
	Name string `json:"name"`
}

// Metric is one of Karpenter's metric families.
type Metric struct {
	Name   string   `json:"name"`
	Type   string   `json:"type"`
	Labels []string `json:"labels"`
	// DynamicLabels: Karpenter adds labels computed at run time; Labels are the fixed ones.
	DynamicLabels bool   `json:"dynamicLabels"`
	Source        string `json:"source"`
}

// Event is one event reason of Karpenter's and the kind of object it is recorded on.
type Event struct {
	Reason string `json:"reason"`
	Type   string `json:"type"`
	Object string `json:"object"`
	Source string `json:"source"`
}

// Hash is Karpenter's hash of one NodePool or EC2NodeClass of a corpus file.
type Hash struct {
	File  string `json:"file"`
	Index int    `json:"index"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
	Hash  string `json:"hash"`
}

// Dir is the folder hack/build-fidelity.sh fills for the current hack/fidelity sources.
func Dir(t testing.TB) string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(self), "..", "..", "..", "hack", "fidelity")
	gofiles, err := filepath.Glob(filepath.Join(src, "*.go"))
	if err != nil || len(gofiles) == 0 {
		t.Fatalf("fidelity: no sources in %s: %v", src, err)
	}
	sort.Strings(gofiles)
	// The same key as the script's: sha256 of go.mod, go.sum and the .go files in name order.
	sum := sha256.New()
	for _, f := range append([]string{filepath.Join(src, "go.mod"), filepath.Join(src, "go.sum")}, gofiles...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("fidelity: %v", err)
		}
		sum.Write(data)
	}
	root := os.Getenv("NODEPILOT_CACHE")
	if root == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		root = filepath.Join(cache, "nodepilot")
	}
	dir := filepath.Join(root, "fidelity", hex.EncodeToString(sum.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, "facts.json")); err != nil {
		t.Fatalf("fidelity: Karpenter's facts are missing (%v): run hack/build-fidelity.sh (make test runs it first)", err)
	}
	return dir
}

// Load returns Karpenter's facts.
func Load(t testing.TB) Facts {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Dir(t), "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f Facts
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("fidelity: facts.json: %v", err)
	}
	return f
}

// CRD returns Karpenter's CRD of the given file name (karpenter.sh_nodepools.yaml, ...).
func CRD(t testing.TB, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Dir(t), "crds", name))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatalf("fidelity: %s: %v", name, err)
	}
	return crd
}

// Hashes returns Karpenter's hashes of every NodePool and EC2NodeClass in files; the
// EC2NodeClass hashes cover caBundle, as Karpenter's do the cluster's CA bundle.
func Hashes(t testing.TB, caBundle string, files ...string) []Hash {
	t.Helper()
	var hashes []Hash
	if err := json.Unmarshal(runFidelity(t, append([]string{"hashes", "-ca-bundle", caBundle}, files...)...), &hashes); err != nil {
		t.Fatalf("fidelity hashes: %v", err)
	}
	return hashes
}

// runFidelity runs hack/fidelity with args and returns what it printed.
func runFidelity(t testing.TB, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(filepath.Join(Dir(t), "fidelity"), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fidelity %s: %v: %s", args[0], err, stderr.String())
	}
	return out
}

// Examples returns the paths of the AWS provider's example manifests.
func Examples(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(Dir(t), "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("fidelity: no upstream examples: %v", err)
	}
	return files
}
