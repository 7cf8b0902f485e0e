package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const seedsDir = "../../testdata/manifests/seeds"

func TestLoadEachSeed(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(seedsDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seed manifests: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			if _, err := Load(file); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestLoadSeedsFolder(t *testing.T) {
	t.Chdir(seedsDir)
	set, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	var nodePools, nodeClasses, pods []string
	for _, np := range set.NodePools {
		nodePools = append(nodePools, np.Name)
	}
	for _, nc := range set.EC2NodeClasses {
		nodeClasses = append(nodeClasses, nc.Name)
	}
	for _, p := range set.Pods {
		pods = append(pods, p.Name)
	}
	check := func(what string, got []string, want string) {
		t.Helper()
		if strings.Join(got, " ") != want {
			t.Errorf("%s = %q, want %q", what, strings.Join(got, " "), want)
		}
	}
	check("NodePools", nodePools, "on-demand-general spot-batch default general-purpose spot-workloads gpu-workloads mixed-capacity")
	check("EC2NodeClasses", nodeClasses, "default-ec2 default gpu-nodes")
	check("Pods", pods, "api-0 api-1 api-2 inflate-0 inflate-1 inflate-2 inflate-3 inflate-4 ml-training")
	if len(set.PDBs) != 1 || set.PDBs[0].Name != "api-pdb" || set.PDBs[0].Namespace != "default" {
		t.Errorf("PDBs = %v, want api-pdb in default", set.PDBs)
	}
	check("Notes", set.Notes, strings.Join([]string{
		`01-ec2nodeclass-default-ec2.yaml: document 1: EC2NodeClass "default-ec2": Karpenter v1.14 refuses it (spec.amiSelectorTerms: Required value); planned with [{alias: al2@latest}] from amiFamily AL2, as Karpenter's v1beta1 conversion does; fix: add amiSelectorTerms: [{alias: al2@latest}]`,
		`02-nodepool-on-demand-general.yaml: document 1: NodePool "on-demand-general": Karpenter v1.14 refuses it (spec.disruption.consolidateAfter: Required value); planned with consolidateAfter 0s; fix: add consolidateAfter: 0s under spec.disruption`,
		`03-nodepool-spot-batch.yaml: document 1: NodePool "spot-batch": Karpenter v1.14 refuses it (spec.disruption.consolidateAfter: Required value); planned with consolidateAfter 0s; fix: add consolidateAfter: 0s under spec.disruption`,
	}, " "))
}

func TestLoadSeedDefaults(t *testing.T) {
	set, err := Load(seedsDir)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, np := range set.NodePools {
		byName[np.Name] = i
	}
	spotBatch := set.NodePools[byName["spot-batch"]]
	if got := spotBatch.Spec.Template.Spec.ExpireAfter.String(); got != "168h" {
		t.Errorf("spot-batch expireAfter = %s, want 168h as written", got)
	}
	if got := spotBatch.Spec.Disruption.ConsolidateAfter.String(); got != "0s" {
		t.Errorf("spot-batch consolidateAfter = %s, want the default 0s", got)
	}
	mixed := set.NodePools[byName["mixed-capacity"]]
	if got := mixed.Spec.Template.Spec.ExpireAfter.String(); got != "720h" {
		t.Errorf("mixed-capacity expireAfter = %s, want the default 720h", got)
	}
	if b := mixed.Spec.Disruption.Budgets; len(b) != 1 || b[0].Nodes != "10%" {
		t.Errorf("mixed-capacity budgets = %+v, want the default [{nodes: 10%%}]", b)
	}
	if got := mixed.Spec.Disruption.ConsolidationPolicy; got != "WhenEmptyOrUnderutilized" {
		t.Errorf("mixed-capacity consolidationPolicy = %s", got)
	}
	gpu := set.EC2NodeClasses[2]
	if m := gpu.Spec.MetadataOptions; m == nil || *m.HTTPTokens != "required" || *m.HTTPPutResponseHopLimit != 1 {
		t.Errorf("gpu-nodes metadataOptions = %+v, want the defaults", m)
	}
}

func TestLoadInvalid(t *testing.T) {
	t.Chdir("../../testdata/manifests/invalid")
	tests := []struct {
		file string
		want []string
	}{
		{"weight-1000.yaml", []string{`weight-1000.yaml: document 1: NodePool "heavy": spec.weight: must be between 1 and 100, got 1000`}},
		{"gt-two-values.yaml", []string{`gt-two-values.yaml: document 1: NodePool "gen": spec.template.spec.requirements[0]: operator "Gt" needs exactly one non-negative integer, got ["5", "6"]`}},
		{"bad.yaml", []string{`bad.yaml: document 2: NodePool "spot-batch": spec.template.spec.requirements[1]: operator "Gt" needs exactly one non-negative integer, got ["five"]`}},
		{"schedule-without-duration.yaml", []string{`schedule-without-duration.yaml: document 1: NodePool "office-hours": spec.disruption.budgets[0].duration: schedule "0 9 * * 1-5" needs a duration (how long the budget applies after each hit)`}},
		{"unknown-operator.yaml", []string{`unknown-operator.yaml: document 1: NodePool "zonal": spec.template.spec.requirements[0]: operator "Within" is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte`}},
		{"unknown-field.yaml", []string{`unknown-field.yaml: document 1: NodePool "typo": unknown field "spec.template.spec.expiresAfter"`}},
		{"bad-syntax.yaml", []string{`bad-syntax.yaml: document 2: yaml: line 10: mapping values are not allowed in this context`}},
		{"missing-kind.yaml", []string{`missing-kind.yaml: document 1: kind is missing (apiVersion karpenter.sh/v1)`}},
		{"duplicate-nodepool.yaml", []string{`duplicate-nodepool.yaml: document 2: NodePool "default": duplicate name: NodePool "default" is already defined in duplicate-nodepool.yaml document 1`}},
		{"many-problems.yaml", []string{
			`many-problems.yaml: document 1: NodePool "messy": spec.weight: must be between 1 and 100, got 0`,
			`many-problems.yaml: document 1: NodePool "messy": spec.disruption.consolidationPolicy: must be one of WhenEmpty, WhenEmptyOrUnderutilized, Balanced, got "WhenUnderutilized"`,
			`many-problems.yaml: document 1: NodePool "messy": spec.template.spec.requirements[0]: label "kubernetes.io/hostname" is restricted: the provisioner sets it`,
			`many-problems.yaml: document 2: EC2NodeClass "both": spec.amiSelectorTerms[0].alias: alias "al2023" must have the form family@version, such as al2023@latest`,
			`many-problems.yaml: document 2: EC2NodeClass "both": spec: must specify exactly one of role and instanceProfile, got both`,
			`many-problems.yaml: document 3: Deployment "negative": spec.replicas: must be 0 or more, got -2`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			set, err := Load(tt.file)
			if err == nil {
				t.Fatalf("Load succeeded with %+v, want errors", set)
			}
			if got, want := err.Error(), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("Load error =\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestLoadReportsEveryFile(t *testing.T) {
	t.Chdir("../../testdata/manifests/invalid")
	_, err := Load(".")
	if err == nil {
		t.Fatal("Load succeeded, want errors")
	}
	files, _ := filepath.Glob("*.yaml")
	for _, file := range files {
		if !strings.Contains(err.Error(), file+": ") {
			t.Errorf("no problem reported for %s", file)
		}
	}
}

func TestLoadDuplicateAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	np := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: twice}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n"
	for _, name := range []string{"a.yaml", "b.yml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(np), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Load(dir)
	want := filepath.Join(dir, "b.yml") + `: document 1: NodePool "twice": duplicate name: NodePool "twice" is already defined in ` + filepath.Join(dir, "a.yaml") + " document 1"
	if err == nil || err.Error() != want {
		t.Errorf("Load error = %v, want %s", err, want)
	}
}

// TestLoadPathWithoutManifests: a path that does not exist, and a folder with no manifest file
// below it (a mistyped folder, or one of other files), are errors naming the path, not an empty
// set of manifests.
func TestLoadPathWithoutManifests(t *testing.T) {
	empty := t.TempDir()
	others := t.TempDir()
	if err := os.WriteFile(filepath.Join(others, "README.md"), []byte("# notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path, want string }{
		{"missing", "no-such-file.yaml", "no-such-file.yaml: no such file or folder"},
		{"empty folder", empty, empty + ": a folder with no manifest in it"},
		{"folder of other files", others, others + ": a folder with no manifest in it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Load(tc.path)
			if set != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load = %v, %v; want no set and an error containing %q", set, err, tc.want)
			}
		})
	}
}
