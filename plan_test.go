package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/requirements"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/plan"
)

const seeds = "testdata/manifests/seeds/"

func runPlan(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"plan"}, args...), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// planOnDefaultPool plans manifests (written to a file) on the seeds' default NodePool and
// EC2NodeClass, and returns the JSON plan.
func planOnDefaultPool(t *testing.T, manifests string) plan.Plan {
	t.Helper()
	file := t.TempDir() + "/manifests.yaml"
	if err := os.WriteFile(file, []byte(manifests), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runPlan(t, "-o", "json", "-f", seeds+"05-nodepool-default-study.yaml", "-f", seeds+"08-ec2nodeclass-default.yaml", "-f", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p plan.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPlanInflateOnItsNodePool(t *testing.T) {
	out, errOut, code := runPlan(t, "-o", "json", "-f", seeds+"05-nodepool-default-study.yaml",
		"-f", seeds+"08-ec2nodeclass-default.yaml", "-f", seeds+"06-inflate.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p plan.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("output is not the documented JSON: %v\n%s", err, out)
	}
	if len(p.NodeClaims) != 1 || len(p.NodeClaims[0].Pods) != 5 || len(p.Unschedulable) != 0 {
		t.Fatalf("want one node holding the five inflate pods, got %+v", p)
	}
	nc := p.NodeClaims[0]
	// The cheapest on-demand c, m or r type of generation 3+ with room for 5 CPUs and the
	// kubelet's reservation in the embedded catalog: c6g.2xlarge at $0.272.
	if nc.InstanceType != "c6g.2xlarge" || nc.CapacityType != "on-demand" || nc.PricePerHour != 0.272 || nc.PriceSource != "catalog" {
		t.Errorf("got %s %s at %v (%s), want c6g.2xlarge on-demand at 0.272 from the catalog", nc.InstanceType, nc.CapacityType, nc.PricePerHour, nc.PriceSource)
	}
	if nc.NodePool != "default" || nc.Zone == "" || len(nc.InstanceTypeOptions) != 60 || nc.InstanceTypeOptions[0] != nc.InstanceType {
		t.Errorf("nodeclaim %+v", nc)
	}
	if got := nc.Requests.Cpu().String(); got != "5" {
		t.Errorf("requests cpu %s, want 5", got)
	}
	if p.TotalPricePerHour != 0.272 {
		t.Errorf("total %v", p.TotalPricePerHour)
	}
}

// TestPlanZones: --zones keeps every planned node in the zones given.
func TestPlanZones(t *testing.T) {
	for _, zones := range []string{"us-east-1b", "us-east-1d,us-east-1e"} {
		out, errOut, code := runPlan(t, "-o", "json", "-f", seeds, "--zones", zones)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var p plan.Plan
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		if len(p.NodeClaims) == 0 {
			t.Fatalf("--zones %s: no node planned", zones)
		}
		for _, nc := range p.NodeClaims {
			if !strings.Contains(zones, nc.Zone) {
				t.Errorf("--zones %s: %s planned in %s", zones, nc.InstanceType, nc.Zone)
			}
		}
	}
}

func TestPlanAllSeeds(t *testing.T) {
	for _, format := range []string{"table", "json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := runPlan(t, "-f", seeds, "-o", format)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, want := range []string{"general-purpose", "gpu-workloads"} {
				if !strings.Contains(out, want) {
					t.Errorf("%s output lacks %q:\n%s", format, want, out)
				}
			}
			if format == "table" && !strings.Contains(out, "synthetic") {
				t.Errorf("spot prices shown without the synthetic label:\n%s", out)
			}
		})
	}
}

func TestPlanUnschedulableStillExitsZero(t *testing.T) {
	// Without its GPU NodePool, the training pod fits nowhere; the plan says why, per NodePool.
	// Setting only limits, the pod asks for what they say, as the API server defaults it.
	for _, pod := range []string{"gpu-pod-only.yaml", "gpu-limits-only.yaml"} {
		t.Run(pod, func(t *testing.T) {
			out, _, code := runPlan(t, "-o", "json", "-f", seeds+"05-nodepool-default-study.yaml", "-f", seeds+"08-ec2nodeclass-default.yaml",
				"-f", "testdata/manifests/"+pod)
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			var p plan.Plan
			if err := json.Unmarshal([]byte(out), &p); err != nil {
				t.Fatal(err)
			}
			if len(p.Unschedulable) != 1 || len(p.Unschedulable[0].Reasons) != 1 {
				t.Fatalf("want one unschedulable pod with one reason, got %+v", p.Unschedulable)
			}
			r := p.Unschedulable[0].Reasons[0]
			if r.NodePool != "default" || r.Reason != "InsufficientResources" || !strings.Contains(r.Message, "nvidia.com/gpu 1") {
				t.Errorf("reason %+v", r)
			}
		})
	}
}

// TestPlanNamesANodePoolWithoutItsEC2NodeClass: without the EC2NodeClass file, the pods' reason
// names the NodePool, the missing EC2NodeClass and the fix, and a note says it was left out.
func TestPlanNamesANodePoolWithoutItsEC2NodeClass(t *testing.T) {
	out, errOut, code := runPlan(t, "-o", "json", "-f", seeds+"05-nodepool-default-study.yaml", "-f", seeds+"06-inflate.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p plan.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.NodeClaims) != 0 || len(p.Unschedulable) != 5 {
		t.Fatalf("want the five inflate pods unschedulable, got %d nodeclaims, %d unschedulable", len(p.NodeClaims), len(p.Unschedulable))
	}
	r := p.Unschedulable[0].Reasons
	if len(r) != 1 || r[0].NodePool != "default" || r[0].Reason != "NodeClassNotFound" ||
		!strings.Contains(r[0].Message, `NodePool "default" references EC2NodeClass "default", which does not exist`) {
		t.Errorf("reasons %+v", r)
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), `create EC2NodeClass "default"`) {
		t.Errorf("notes lack the fix: %q", p.Notes)
	}
}

func TestPlanInputErrors(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no files", nil, "no manifests"},
		{"bad format", []string{"-f", seeds, "-o", "xml"}, `-o "xml": use one of table, json, yaml`},
		{"bad policy", []string{"-f", seeds, "--preference-policy", "Sometimes"}, "use Respect or Ignore"},
		{"price cliff of 1", []string{"-f", seeds, "--price-cliff", "1"}, "--price-cliff 1: use a ratio above 1, such as 1.5, or 0 to grow NodeClaims as Karpenter does"},
		{"price cliff not a number", []string{"-f", seeds, "--price-cliff", "NaN"}, "--price-cliff NaN: use a ratio above 1"},
		{"unknown zone", []string{"-f", seeds, "--zones", "us-east-1a,us-west-2a"}, `--zones "us-west-2a": the catalog's zones are us-east-1a, us-east-1b, us-east-1c, us-east-1d, us-east-1e, us-east-1f`},
		{"empty zone", []string{"-f", seeds, "--zones", "us-east-1a,,us-east-1b"}, `--zones "": the catalog's zones are us-east-1a`},
		{"missing file", []string{"-f", "testdata/no-such-file.yaml"}, "-f testdata/no-such-file.yaml: no such file or folder"},
		{"folder with no manifest", []string{"-f", empty}, "-f " + empty + ": a folder with no manifest in it"},
		{"usage file missing", []string{"-f", seeds, "--usage", "testdata/no-such-file.json"}, "--usage testdata/no-such-file.json: no such file or folder"},
		{"gt with two values", []string{"-f", "testdata/manifests/invalid/gt-two-values.yaml"},
			`spec.template.spec.requirements[0]: operator "Gt" needs exactly one non-negative integer, got ["5", "6"]`},
		{"weight 1000", []string{"-f", "testdata/manifests/invalid/weight-1000.yaml"}, "spec.weight"},
		{"request above limit", []string{"-f", "testdata/manifests/invalid/request-above-limit.yaml"},
			`testdata/manifests/invalid/request-above-limit.yaml: document 1: Pod "greedy": spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1`},
		{"typo'd Karpenter kind", []string{"-f", "testdata/manifests/invalid/nodepool-kind-typo.yaml"},
			`nodepool-kind-typo.yaml: document 1: NodePol "default": kind NodePol is not a kind of karpenter.sh: did you mean NodePool?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runPlan(t, tt.args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (stdout %q)", code, out)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.want)
			}
		})
	}
}

// TestPlanPacking: plan packs as the provisioner does (Karpenter's packing, short of a price
// cliff) unless told --packing Cost, and says what Cost packing would save; a bad value is refused.
func TestPlanPacking(t *testing.T) {
	args := []string{"-o", "json", "-f", seeds}
	var plans = map[string]plan.Plan{}
	for _, packing := range []string{"", "Karpenter", "Cost"} {
		a := args
		if packing != "" {
			a = append(a, "--packing", packing)
		}
		out, errOut, code := runPlan(t, a...)
		if code != 0 {
			t.Fatalf("--packing %q: exit %d: %s", packing, code, errOut)
		}
		var p plan.Plan
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		plans[packing] = p
	}
	if plans[""].TotalPricePerHour != plans["Karpenter"].TotalPricePerHour {
		t.Errorf("the default costs $%v/h, Karpenter packing $%v/h: the default is not Karpenter's", plans[""].TotalPricePerHour, plans["Karpenter"].TotalPricePerHour)
	}
	if plans["Cost"].TotalPricePerHour > plans["Karpenter"].TotalPricePerHour {
		t.Errorf("cost packing costs $%v/h, more than Karpenter packing's $%v/h", plans["Cost"].TotalPricePerHour, plans["Karpenter"].TotalPricePerHour)
	}
	_, errOut, code := runPlan(t, append(args, "--packing", "Tight")...)
	if code != 1 || !strings.Contains(errOut, `--packing "Tight": use Karpenter or Cost`) {
		t.Errorf("--packing Tight: exit %d, %q", code, errOut)
	}
}

// TestPlanPriceCliff: on the conformance tier's 1,000 pods, the plan stops NodeClaims short of the
// m8i.96xlarge Karpenter's packing grows into and names it per NodeClaim; --price-cliff 0 plans as
// Karpenter packs, dearer and with no NodeClaim stopped.
func TestPlanPriceCliff(t *testing.T) {
	price := map[string]float64{}
	for _, cliff := range []string{"1.5", "0"} {
		out, errOut, code := runPlan(t, "-o", "json", "-f", "conformance/testdata/common", "-f", "conformance/testdata/thousand", "--price-cliff", cliff)
		if code != 0 {
			t.Fatalf("--price-cliff %s: exit %d: %s", cliff, code, errOut)
		}
		var p plan.Plan
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		var stops []string
		for _, nc := range p.NodeClaims {
			if c := nc.StoppedShortOf; c != nil {
				stops = append(stops, fmt.Sprintf("%s at %.2fx", c.InstanceType, c.Ratio))
				if c.InstanceType != "m8i.96xlarge" || c.Ratio <= 1.5 {
					t.Errorf("--price-cliff %s: a NodeClaim of %s stopped short of %s at %.2fx, want the m8i.96xlarge above 1.5x", cliff, nc.InstanceType, c.InstanceType, c.Ratio)
				}
			}
		}
		if (cliff == "0") != (len(stops) == 0) {
			t.Errorf("--price-cliff %s: NodeClaims stopped short of %v", cliff, stops)
		}
		price[cliff] = p.TotalPricePerHour
	}
	if price["1.5"] >= price["0"] {
		t.Errorf("the plan costs $%v/h with the price cliff, $%v/h without: want it cheaper", price["1.5"], price["0"])
	}
}

// TestPackingNote: when Karpenter's packing costs more than cost packing, or than stopping at a
// price cliff, plan says how much.
func TestPackingNote(t *testing.T) {
	instanceType := func(name string, cpu int64, price float64) *cloudprovider.InstanceType {
		return &cloudprovider.InstanceType{Name: name,
			Requirements: requirements.FromLabels(map[string]string{corev1.LabelInstanceTypeStable: name, corev1.LabelTopologyZone: "z1",
				karpv1.CapacityTypeLabelKey: karpv1.CapacityTypeOnDemand}),
			Offerings: cloudprovider.Offerings{{Zone: "z1", CapacityType: karpv1.CapacityTypeOnDemand, Price: price, Available: true}},
			Capacity: corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI),
				corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")}}
	}
	var pods []*corev1.Pod
	for i := range 3 {
		pods = append(pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("p", i), Namespace: "default", UID: types.UID(fmt.Sprint("p", i))},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}})
	}
	// A small type holds one pod; the only larger one is poor value.
	pool := scheduling.NodePool{Name: "default", Requirements: requirements.FromLabels(map[string]string{karpv1.NodePoolLabelKey: "default"}),
		InstanceTypes: []*cloudprovider.InstanceType{instanceType("small", 1, 0.1), instanceType("huge", 64, 10)}}
	for _, tc := range []struct {
		packing scheduling.Packing
		cliff   float64
		want    string
	}{
		{scheduling.PackingKarpenter, 0, "packed as Karpenter packs (each new node takes pods while any of its instance types holds them all): $10.00/h on 1 nodes; " +
			"--packing Cost would launch 3 nodes for $0.30/h (97% less)"},
		{scheduling.PackingKarpenter, scheduling.DefaultPriceCliff, "packed as Karpenter packs (each new node takes pods while any of its instance types holds them all, " +
			"short of a type that costs 1.5x as much for them): $0.30/h on 3 nodes; Karpenter (--price-cliff 0) would launch 1 nodes for $10.00/h (3233% more)"},
		{scheduling.PackingCost, 0, ""},
	} {
		in := &scheduling.Input{NodePools: []scheduling.NodePool{pool}, Pods: pods, Options: scheduling.Options{Packing: tc.packing, PriceCliff: tc.cliff}}
		if got := packingNote(in, scheduling.Solve(in)); got != tc.want {
			t.Errorf("%s, price cliff %g: note %q, want %q", tc.packing, tc.cliff, got, tc.want)
		}
	}
}

// TestPlanStaticNodePool: a static NodePool launches its replicas (within limits.nodes) as the
// cheapest type its template allows, pods go to those nodes, and nothing is launched for pods
// from it; a pod that fits none of them names the static NodePool.
func TestPlanStaticNodePool(t *testing.T) {
	for _, tc := range []struct {
		name            string
		replicas, limit string // limit "" for none
		static, placed  int
		unschedulable   int
		note            string
	}{
		{name: "two replicas hold the five pods", replicas: "2", static: 2, placed: 5},
		{name: "limits.nodes holds it at one", replicas: "2", limit: "1", static: 1, placed: 5, note: "limits.nodes 1 holds it at 1 nodes"},
		{name: "no replicas", replicas: "0", unschedulable: 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			limits := ""
			if tc.limit != "" {
				limits = "\n  limits:\n    nodes: " + tc.limit
			}
			file := t.TempDir() + "/static.yaml"
			pool := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: fixed
spec:
  replicas: ` + tc.replicas + limits + `
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m6i.2xlarge, m6i.4xlarge]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
`
			if err := os.WriteFile(file, []byte(pool), 0o600); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runPlan(t, "-o", "json", "-f", file, "-f", seeds+"08-ec2nodeclass-default.yaml", "-f", seeds+"06-inflate.yaml")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var p plan.Plan
			if err := json.Unmarshal([]byte(out), &p); err != nil {
				t.Fatal(err)
			}
			placed, total := 0, 0.0
			for _, nc := range p.NodeClaims {
				if !nc.Static || nc.NodePool != "fixed" || nc.InstanceType != "m6i.2xlarge" || nc.CapacityType != "on-demand" {
					t.Errorf("nodeclaim %+v, want a static on-demand m6i.2xlarge of fixed", nc)
				}
				placed += len(nc.Pods)
				total += nc.PricePerHour
			}
			if len(p.NodeClaims) != tc.static || placed != tc.placed || len(p.Unschedulable) != tc.unschedulable {
				t.Fatalf("%d nodeclaims holding %d pods, %d unschedulable; want %d, %d, %d", len(p.NodeClaims), placed, len(p.Unschedulable),
					tc.static, tc.placed, tc.unschedulable)
			}
			if math.Abs(p.TotalPricePerHour-total) > 1e-4 || (tc.static > 0 && total == 0) {
				t.Errorf("total $%v/h, want the static nodes' $%v/h", p.TotalPricePerHour, total)
			}
			for _, u := range p.Unschedulable {
				if len(u.Reasons) != 1 || u.Reasons[0].Reason != scheduling.ReasonStaticNodePool {
					t.Errorf("%s: reasons %+v, want the static NodePool named", u.Pod, u.Reasons)
				}
			}
			notes := strings.Join(p.Notes, "\n")
			if !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q lack %q", p.Notes, tc.note)
			}
			if strings.Contains(notes, "packed as Karpenter packs") {
				t.Errorf("a packing note where nothing is launched for pods: %q", p.Notes)
			}
		})
	}
}

// TestPlanWellKnownLabels: pods that select on Karpenter's AWS well-known labels are planned onto
// types that carry them (they were pending before the catalog held these facts).
func TestPlanWellKnownLabels(t *testing.T) {
	// attributes are the letters after a family's generation: m6a -> "a", c7gn -> "gn".
	attributes := func(it string) string {
		family, _, _ := strings.Cut(it, ".")
		return strings.TrimLeft(strings.TrimLeftFunc(family, unicode.IsLetter), "0123456789")
	}
	for _, tc := range []struct {
		selector string
		fits     func(instanceType string) bool
	}{
		{"karpenter.k8s.aws/instance-cpu-manufacturer: amd", func(it string) bool { return strings.Contains(attributes(it), "a") }},
		{"karpenter.k8s.aws/instance-cpu-manufacturer: intel", func(it string) bool { return !strings.ContainsAny(attributes(it), "ag") }},
		{"karpenter.k8s.aws/instance-encryption-in-transit-supported: \"true\"", func(string) bool { return true }},
		{"karpenter.k8s.aws/instance-capability-flex: \"true\"", func(it string) bool { return strings.Contains(it, "-flex.") }},
		{"karpenter.k8s.aws/instance-tenancy: dedicated", func(string) bool { return true }},
	} {
		t.Run(tc.selector, func(t *testing.T) {
			p := planOnDefaultPool(t, `apiVersion: v1
kind: Pod
metadata: {name: picky, namespace: default}
spec:
  nodeSelector: {`+tc.selector+`}
  containers: [{name: c, image: pause, resources: {requests: {cpu: "1"}}}]
`)
			if len(p.NodeClaims) != 1 || !tc.fits(p.NodeClaims[0].InstanceType) {
				t.Fatalf("plan %+v, want one node of a type that carries the label", p)
			}
		})
	}
}

// TestPlanAtMax: a workload an HPA scales is planned at its replicas as written, or with --at-max
// at the HPA's maximum, where the NodePool's cpu limit leaves pods unplaced and says so.
func TestPlanAtMax(t *testing.T) {
	files := []string{"-o", "json", "-f", seeds + "07-nodepool-general-purpose.yaml", "-f", seeds + "08-ec2nodeclass-default.yaml",
		"-f", seeds + "06-inflate.yaml", "-f", "testdata/manifests/hpa-inflate.yaml"}
	for _, tc := range []struct {
		atMax         bool
		placed        int
		unschedulable bool
		note          string
	}{
		{false, 5, false, "planned at the 5 it has (--at-max plans 1200)"},
		{true, 800, true, "planned at its maximum, 1200 (it has 5)"},
	} {
		t.Run(fmt.Sprint("at-max=", tc.atMax), func(t *testing.T) {
			p, placed := planJSON(t, append(files, fmt.Sprint("--at-max=", tc.atMax))...)
			if tc.unschedulable && (placed < tc.placed || placed+len(p.Unschedulable) != 1200) || !tc.unschedulable && (placed != tc.placed || len(p.Unschedulable) != 0) {
				t.Errorf("%d pods placed, %d unschedulable", placed, len(p.Unschedulable))
			}
			cpu := p.Limits[0]
			if len(p.Limits) != 2 || cpu.NodePool != "general-purpose" || cpu.Resource != "cpu" || cpu.Limit.String() != "1k" ||
				cpu.Reached != tc.unschedulable || cpu.Planned.Cmp(cpu.Limit) > 0 {
				t.Errorf("limits %+v", p.Limits)
			}
			if !strings.Contains(strings.Join(p.Notes, "\n"), `HorizontalPodAutoscaler "default/inflate" scales Deployment inflate between 1 and 1200 replicas: `+tc.note) {
				t.Errorf("notes %q", p.Notes)
			}
		})
	}
	bad := t.TempDir() + "/hpa.yaml"
	if err := os.WriteFile(bad, []byte(strings.Replace(mustRead(t, "testdata/manifests/hpa-inflate.yaml"), "maxReplicas: 1200", "maxReplicas: 0", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runPlan(t, "--at-max", "-f", seeds+"06-inflate.yaml", "-f", bad)
	if want := bad + `: document 1: HorizontalPodAutoscaler "default/inflate": spec.maxReplicas: must be set and greater than 0`; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, %q; want 1 and %q", code, errOut, want)
	}
}

// planJSON runs plan with args (which ask for JSON) and returns the plan and how many pods its
// NodeClaims hold.
func planJSON(t *testing.T, args ...string) (plan.Plan, int) {
	t.Helper()
	out, errOut, code := runPlan(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p plan.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	placed := 0
	for _, nc := range p.NodeClaims {
		placed += len(nc.Pods)
	}
	return p, placed
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const overlays = "testdata/manifests/kustomize/overlays/"

// TestPlanKustomize: -k plans what a kustomization builds (the seed's GitOps layout, overlays
// changing a NodePool's limits), and its errors name the build and the object.
func TestPlanKustomize(t *testing.T) {
	for _, tc := range []struct {
		overlay string
		reached bool
	}{{"staging", true}, {"production", false}} {
		t.Run(tc.overlay, func(t *testing.T) {
			p, placed := planJSON(t, "-o", "json", "-k", overlays+tc.overlay)
			if placed+len(p.Unschedulable) != 40 || (len(p.Unschedulable) > 0) != tc.reached ||
				len(p.Limits) != 1 || p.Limits[0].NodePool != "general" || p.Limits[0].Reached != tc.reached {
				t.Errorf("%d placed, %d unschedulable, limits %+v", placed, len(p.Unschedulable), p.Limits)
			}
		})
	}
	broken := t.TempDir()
	for name, body := range map[string]string{
		"kustomization.yaml": "resources: [np.yaml]\n",
		"np.yaml":            strings.Replace(mustRead(t, "testdata/manifests/kustomize/base/nodepool-general.yaml"), `cpu: "100"`, "cpu: lots", 1),
	} {
		if err := os.WriteFile(broken+"/"+name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	unbuildable := t.TempDir()
	if err := os.WriteFile(unbuildable+"/kustomization.yaml", []byte("resources: [missing.yaml]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"an invalid object it builds", []string{"-k", broken},
			broken + ` (kustomize build): document 1: NodePool "general": spec.limits.cpu: Invalid value: "lots": must be a quantity`},
		{"a folder without a kustomization", []string{"-k", seeds}, "-k " + seeds + ": no kustomization.yaml"},
		{"a kustomization that does not build", []string{"-k", unbuildable}, "kustomize build " + unbuildable + ": "},
		{"-f with -k", []string{"-f", seeds, "-k", overlays + "staging"}, "-f, -k and --compare cannot be combined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runPlan(t, tc.args...)
			if code != 1 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, %q; want 1 and %q", code, errOut, tc.want)
			}
		})
	}
}

// TestPlanCompare: --compare plans two sources the same way and says what changes between them.
func TestPlanCompare(t *testing.T) {
	out, errOut, code := runPlan(t, "-o", "json", "--compare", overlays+"staging", overlays+"production")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var c plan.Comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if c.A.Source != overlays+"staging" || c.A.Unschedulable == 0 || c.B.Unschedulable != 0 || len(c.UnschedulableOnlyInA) != c.A.Unschedulable ||
		len(c.UnschedulableOnlyInB) != 0 || c.B.PricePerHour <= c.A.PricePerHour {
		t.Errorf("comparison A %+v, B %+v, only in A %d", c.A, c.B, len(c.UnschedulableOnlyInA))
	}
	if len(c.NodePools) != 1 || !c.NodePools[0].LimitsReachedA || c.NodePools[0].LimitsReachedB || c.NodePools[0].PricePerHourB != c.B.PricePerHour {
		t.Errorf("node pools %+v", c.NodePools)
	}
	table, _, code := runPlan(t, "--compare", overlays+"staging", overlays+"production")
	for _, want := range []string{"unschedulable pods  " + fmt.Sprint(c.A.Unschedulable), "reached in A only", fmt.Sprintf("UNSCHEDULABLE IN A ONLY (%d)", c.A.Unschedulable)} {
		if code != 0 || !strings.Contains(table, want) {
			t.Errorf("exit %d, table lacks %q:\n%s", code, want, table)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--compare", overlays + "staging"}, "--compare takes two sources, A and B, got 1"},
		{[]string{overlays + "staging"}, "unexpected argument"},
		{[]string{"--compare", overlays + "staging", "testdata/none"}, "--compare testdata/none: no such file or folder"},
	} {
		_, errOut, code := runPlan(t, tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 1 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestPlanUsage right-sizes inflate from twelve readings of its five pods (CPU 100m to 214m,
// memory 20Mi to 31Mi) and one reading of a pod no manifest makes: the 95th percentile of the
// sixty CPU figures is 211m, so each pod should request 243m; memory, not requested, stays so.
// Five pods of 243m fit a far smaller node than five of one CPU.
func TestPlanUsage(t *testing.T) {
	files := []string{"-f", seeds + "05-nodepool-default-study.yaml", "-f", seeds + "08-ec2nodeclass-default.yaml", "-f", seeds + "06-inflate.yaml"}
	p, _ := planJSON(t, append([]string{"-o", "json", "--usage", "testdata/usage/inflate-podmetrics.json"}, files...)...)
	rs := p.RightSizing
	if rs == nil || len(rs.Workloads) != 1 {
		t.Fatalf("right-sizing %+v, want one workload", rs)
	}
	w := rs.Workloads[0]
	if w.Workload != "Deployment default/inflate" || w.Pods != 5 || w.Readings != 60 || w.Pending != "" ||
		w.Used.Cpu().String() != "211m" || w.Suggested.Cpu().String() != "243m" || !w.Suggested.Memory().IsZero() || w.Requests.Cpu().String() != "1" {
		t.Errorf("workload %+v", w)
	}
	if rs.Readings != 60 || rs.Unmatched != 1 || rs.PricePerHourAsRequested != p.TotalPricePerHour || rs.NodesAsRequested != 1 || rs.NodesRightSized != 1 ||
		rs.PricePerHourRightSized >= rs.PricePerHourAsRequested/2 || math.Abs(w.SavingPerHour-(rs.PricePerHourAsRequested-rs.PricePerHourRightSized)) > 1e-9 {
		t.Errorf("right-sizing %+v", rs)
	}

	out, errOut, code := runPlan(t, append([]string{"--usage", "testdata/usage/inflate-podmetrics.json"}, files...)...)
	if code != 0 || !strings.Contains(out, "RIGHT-SIZING (60 readings; 1 reading of pods that no workload here makes left out;") ||
		!strings.Contains(out, "Deployment default/inflate  5     60        1        211m      243m") {
		t.Errorf("exit %d, %s\n%s", code, errOut, out)
	}

	dir := t.TempDir()
	negative, mixed := dir+"/negative.json", dir+"/mixed"
	if err := os.Mkdir(mixed, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"testdata/usage/inflate-podmetrics.json", seeds + "06-inflate.yaml"} {
		if err := os.WriteFile(mixed+"/"+f[strings.LastIndex(f, "/")+1:], []byte(mustRead(t, f)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(negative, []byte(strings.Replace(mustRead(t, "testdata/usage/inflate-podmetrics.json"), `"cpu": "100m"`, `"cpu": "-100m"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"readings that are not", []string{"--usage", seeds + "06-inflate.yaml"}, "--usage " + seeds + "06-inflate.yaml: no PodMetrics readings in it; write some with kubectl get --raw"},
		{"manifests among the readings", []string{"--usage", mixed}, "--usage " + mixed + ": it holds 5 objects other than PodMetrics readings; give manifests with -f"},
		{"a negative reading", []string{"--usage", negative}, "--usage: " + negative + `: document 1: items[0]: PodMetrics "default/inflate-5d8f7c9b4-ax0": containers[0].usage.cpu: must not be negative`},
		{"with --compare", []string{"--compare", "--usage", "testdata/usage/inflate-podmetrics.json", seeds, seeds}, "--usage works with -f or -k, not --compare"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if !slices.Contains(args, "--compare") {
				args = append(args, files...)
			}
			_, errOut, code := runPlan(t, args...)
			if code != 1 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, %q; want 1 and %q", code, errOut, tc.want)
			}
		})
	}
}

// TestPlanVolumes: plan places pods where the manifests' volumes and classes let them run, as the
// controller does: a StatefulSet's claims follow their class's allowed zones, a claim bound to a
// volume follows the volume, and a pod whose class the manifests lack is not planned and says
// which. Manifests without any of these kinds are planned as before, with a note.
func TestPlanVolumes(t *testing.T) {
	const class = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: gp3-east-1c}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies: [{matchLabelExpressions: [{key: topology.ebs.csi.aws.com/zone, values: [us-east-1c]}]}]
---
`
	statefulSet := func(class string) string {
		return `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  template:
    spec: {containers: [{name: db, image: pause, resources: {requests: {cpu: "3"}}}]}
  volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], storageClassName: ` + class + `}}]
`
	}
	const bound = `apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-cache}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}
  nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1b]}]}]}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: cache}
spec: {accessModes: [ReadWriteOnce], volumeName: pv-cache, storageClassName: ""}
---
apiVersion: v1
kind: Pod
metadata: {name: cache}
spec:
  containers: [{name: cache, image: pause, resources: {requests: {cpu: "1"}}}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: cache}}]
`
	for _, tc := range []struct {
		name, manifests string
		zones           string // every planned node's zone, space-separated, sorted
		ignored, note   string
	}{
		{name: "claims follow their class", manifests: class + statefulSet("gp3-east-1c"), zones: "us-east-1c"},
		{name: "a claim follows its volume", manifests: bound, zones: "us-east-1b"},
		{name: "a class the manifests lack", manifests: class + statefulSet("io2"),
			ignored: "its PersistentVolumeClaim default/data-db-0 asks for StorageClass io2, which does not exist"},
		{name: "no volume kinds", manifests: statefulSet("gp3-east-1c"),
			note: "the manifests hold no PersistentVolumeClaim, PersistentVolume or StorageClass: pods with persistent volumes are placed as if their volumes could attach anywhere"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := planOnDefaultPool(t, tc.manifests)
			var zones []string
			for _, nc := range p.NodeClaims {
				if !slices.Contains(zones, nc.Zone) {
					zones = append(zones, nc.Zone)
				}
			}
			slices.Sort(zones)
			if tc.zones != "" && strings.Join(zones, " ") != tc.zones {
				t.Errorf("nodes planned in %v, want %s", zones, tc.zones)
			}
			if tc.ignored != "" && (len(p.Unschedulable) != 2 || !strings.Contains(p.Unschedulable[0].Reasons[0].Message, tc.ignored)) {
				t.Errorf("unschedulable %+v, want both pods saying %q", p.Unschedulable, tc.ignored)
			}
			if tc.ignored == "" && (len(p.Unschedulable) != 0 || len(p.NodeClaims) == 0) {
				t.Errorf("unschedulable %+v, nodeclaims %d; want every pod planned", p.Unschedulable, len(p.NodeClaims))
			}
			if tc.note != "" && !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, tc.note) }) {
				t.Errorf("notes %q, want one saying %q", p.Notes, tc.note)
			}
		})
	}
}
