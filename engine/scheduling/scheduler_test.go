package scheduling

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/requirements"
)

func TestPacksOntoOneCheapNode(t *testing.T) {
	r := Solve(&Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(20))}, Pods: pods(5, "inflate", "1", "")})
	if len(r.NewNodeClaims) != 1 || len(r.Unschedulable) != 0 {
		t.Fatalf("%d nodeclaims, %d unschedulable; want 1, 0", len(r.NewNodeClaims), len(r.Unschedulable))
	}
	nc := r.NewNodeClaims[0]
	// Five 1-CPU pods need 5 CPUs plus the 100m reserved: fake-6 is the smallest that fits.
	if nc.InstanceType.Name != "fake-6" || len(nc.Pods) != 5 {
		t.Errorf("launches %s with %d pods, want fake-6 with 5", nc.InstanceType.Name, len(nc.Pods))
	}
	if nc.Offering.CapacityType != spot {
		t.Errorf("capacity type %s, want spot (allowed and cheaper)", nc.Offering.CapacityType)
	}
	if got := nc.Requests.Cpu().String(); got != "5" {
		t.Errorf("requests cpu %s, want 5", got)
	}
	for i := 1; i < len(nc.InstanceTypes); i++ {
		if nc.InstanceTypes[i-1].Name == nc.InstanceTypes[i].Name {
			t.Fatal("duplicate instance type option")
		}
	}
}

func TestNodePoolChoice(t *testing.T) {
	types := syntheticTypes(10)
	taint := corev1.Taint{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule}
	tainted := pool("tainted", 100, types)
	tainted.Taints = []corev1.Taint{taint}
	tests := []struct {
		name  string
		pools []NodePool
		pod   *corev1.Pod
		want  string
	}{
		{"highest weight first", []NodePool{pool("low", 1, types), pool("high", 10, types)}, pod("p", "1", ""), "high"},
		{"equal weight by name", []NodePool{pool("b", 5, types), pool("a", 5, types)}, pod("p", "1", ""), "a"},
		{"taint skips the pool", []NodePool{tainted, pool("plain", 1, types)}, pod("p", "1", ""), "plain"},
		{"toleration uses the pool", []NodePool{tainted, pool("plain", 1, types)},
			pod("p", "1", "", withToleration("dedicated", "batch", corev1.TaintEffectNoSchedule)), "tainted"},
		{"node selector picks the pool", []NodePool{pool("a", 10, types), pool("b", 1, types)},
			pod("p", "1", "", withNodeSelector(karpv1.NodePoolLabelKey, "b")), "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Solve(&Input{NodePools: tt.pools, Pods: []*corev1.Pod{tt.pod}})
			if len(r.NewNodeClaims) != 1 || r.NewNodeClaims[0].NodePool != tt.want {
				t.Fatalf("got %+v, want one NodeClaim from %s", r.NewNodeClaims, tt.want)
			}
		})
	}
}

func TestExistingNodesFirst(t *testing.T) {
	node := func(name string, initialized bool, cpu string) ExistingNode {
		return ExistingNode{Name: name, Initialized: initialized,
			Labels:      map[string]string{corev1.LabelHostname: name, zoneKey: "test-zone-1"},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourcePods: resource.MustParse("110")}}
	}
	in := &Input{
		NodePools: []NodePool{pool("default", 0, syntheticTypes(10))},
		Nodes:     []ExistingNode{node("booting", false, "4"), node("ready", true, "2")},
		Pods:      pods(4, "p", "1", ""),
	}
	r := Solve(in)
	got := placement(r)
	// The initialized node takes two pods first, then the booting one the other two.
	count := map[string]int{}
	for _, host := range got {
		count[host]++
	}
	if count["ready"] != 2 || count["booting"] != 2 || len(r.NewNodeClaims) != 0 {
		t.Errorf("placement %v, %d new nodeclaims", count, len(r.NewNodeClaims))
	}
}

func TestLimits(t *testing.T) {
	p := pool("limited", 0, syntheticTypes(8))
	p.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("6")}
	p.Usage = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
	// Anti-affinity forces one pod per node; 4 CPUs are left, each node needs a 2-CPU type.
	in := &Input{NodePools: []NodePool{p},
		Pods: pods(3, "p", "1500m", "", withLabels("app", "x"), withAntiAffinity(corev1.LabelHostname, map[string]string{"app": "x"}))}
	r := Solve(in)
	if len(r.NewNodeClaims) != 2 || len(r.Unschedulable) != 1 {
		t.Fatalf("%d nodeclaims, %d unschedulable; want 2 and 1", len(r.NewNodeClaims), len(r.Unschedulable))
	}
	var capacity int64
	for _, nc := range r.NewNodeClaims {
		for _, it := range nc.InstanceTypes {
			if it.Capacity.Cpu().Value() > 4 {
				t.Errorf("option %s exceeds what the limit leaves", it.Name)
			}
		}
		capacity += nc.InstanceType.Capacity.Cpu().Value()
	}
	if capacity > 4 {
		t.Errorf("planned %d CPUs, limit leaves 4", capacity)
	}
	if got := r.Unschedulable[0].Reasons[0]; got.Code != ReasonLimitExceeded || !strings.Contains(got.Message, "cpu limit 6") {
		t.Errorf("reason %+v, want LimitExceeded naming the cpu limit", got)
	}
}

func TestZonalSpread(t *testing.T) {
	in := &Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(10))},
		Pods: pods(7, "web", "1", "", withLabels("app", "web"), withSpread(zoneKey, 1, corev1.DoNotSchedule, map[string]string{"app": "web"}))}
	r := Solve(in)
	perZone := map[string]int{}
	for _, nc := range r.NewNodeClaims {
		z := zoneOf(nc)
		if z == "" {
			t.Fatalf("nodeclaim %s with spread pods is not pinned to a zone", nc.Hostname)
		}
		perZone[z] += len(nc.Pods)
	}
	if len(r.Unschedulable) != 0 || perZone["test-zone-1"] < 2 || perZone["test-zone-2"] < 2 || perZone["test-zone-3"] < 2 {
		t.Errorf("pods per zone %v, unschedulable %d; want 3/2/2 in some order", perZone, len(r.Unschedulable))
	}
}

func TestSpreadRespectsExistingPods(t *testing.T) {
	existing := ExistingNode{Name: "n1", Initialized: true,
		Labels:      map[string]string{corev1.LabelHostname: "n1", zoneKey: "test-zone-1"},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourcePods: resource.MustParse("10")},
		Pods:        []*corev1.Pod{pod("old-0", "", "", withLabels("app", "web")), pod("old-1", "", "", withLabels("app", "web"))}}
	in := &Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(10))}, Nodes: []ExistingNode{existing},
		Pods: pods(2, "web", "1", "", withLabels("app", "web"), withSpread(zoneKey, 1, corev1.DoNotSchedule, map[string]string{"app": "web"}))}
	r := Solve(in)
	for _, nc := range r.NewNodeClaims {
		if zoneOf(nc) == "test-zone-1" {
			t.Errorf("a new pod went to test-zone-1, which already has 2 matching pods")
		}
	}
}

func TestHostnameConstraints(t *testing.T) {
	tests := []struct {
		name      string
		pods      []*corev1.Pod
		wantNodes int
	}{
		{"anti-affinity puts each pod on its own node", pods(4, "a", "100m", "", withLabels("app", "a"),
			withAntiAffinity(corev1.LabelHostname, map[string]string{"app": "a"})), 4},
		{"hostname spread maxSkew 1", pods(3, "s", "100m", "", withLabels("app", "s"),
			withSpread(corev1.LabelHostname, 1, corev1.DoNotSchedule, map[string]string{"app": "s"})), 3},
		{"hostname spread maxSkew 2", pods(4, "s", "100m", "", withLabels("app", "s"),
			withSpread(corev1.LabelHostname, 2, corev1.DoNotSchedule, map[string]string{"app": "s"})), 2},
		{"hostname affinity keeps pods together", pods(4, "f", "100m", "", withLabels("app", "f"),
			withPodAffinity(corev1.LabelHostname, map[string]string{"app": "f"})), 1},
		{"host ports conflict", pods(3, "h", "100m", "", withHostPort(8080)), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Solve(&Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(10))}, Pods: tt.pods})
			if len(r.NewNodeClaims) != tt.wantNodes || len(r.Unschedulable) != 0 {
				t.Errorf("%d nodeclaims, %d unschedulable; want %d, 0", len(r.NewNodeClaims), len(r.Unschedulable), tt.wantNodes)
			}
		})
	}
}

func TestInverseAntiAffinityOfExistingPods(t *testing.T) {
	guard := pod("guard", "", "", withAntiAffinity(corev1.LabelHostname, map[string]string{"app": "noisy"}))
	existing := ExistingNode{Name: "n1", Initialized: true,
		Labels:      map[string]string{corev1.LabelHostname: "n1", zoneKey: "test-zone-1"},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourcePods: resource.MustParse("10")},
		Pods:        []*corev1.Pod{guard}}
	in := &Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(10))}, Nodes: []ExistingNode{existing},
		Pods: []*corev1.Pod{pod("noisy", "1", "", withLabels("app", "noisy")), pod("quiet", "1", "")}}
	got := placement(Solve(in))
	if got["noisy"] == "n1" || got["quiet"] != "n1" {
		t.Errorf("placement %v: noisy must avoid n1 (guard's anti-affinity), quiet may use it", got)
	}
}

func TestZonalAffinity(t *testing.T) {
	in := &Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(4))},
		Pods: pods(6, "db", "3", "", withLabels("app", "db"), withPodAffinity(zoneKey, map[string]string{"app": "db"}))}
	r := Solve(in)
	zones := map[string]bool{}
	for _, nc := range r.NewNodeClaims {
		zones[zoneOf(nc)] = true
	}
	if len(r.NewNodeClaims) < 2 || len(zones) != 1 || zones[""] {
		t.Errorf("%d nodeclaims in zones %v; want several, all in one zone", len(r.NewNodeClaims), zones)
	}
}

func TestPreferences(t *testing.T) {
	unsatisfiable := withPreferredNodeAffinity(10, zoneKey, corev1.NodeSelectorOpIn, "no-such-zone")
	tests := []struct {
		name   string
		policy PreferencePolicy
		pod    *corev1.Pod
		zone   string
	}{
		{"satisfiable preference holds", PreferencesRespect, pod("p", "1", "", withPreferredNodeAffinity(10, zoneKey, corev1.NodeSelectorOpIn, "test-zone-3")), "test-zone-3"},
		{"unsatisfiable preference is relaxed", PreferencesRespect, pod("p", "1", "", unsatisfiable), ""},
		{"preferences ignored", PreferencesIgnore, pod("p", "1", "", withPreferredNodeAffinity(10, zoneKey, corev1.NodeSelectorOpIn, "test-zone-3")), ""},
		{"second required term after the first fails", PreferencesRespect, pod("p", "1", "", withRequiredNodeAffinityTerms(
			[]corev1.NodeSelectorRequirement{{Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"no-such-zone"}}},
			[]corev1.NodeSelectorRequirement{{Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-2"}}})), "test-zone-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Solve(&Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(4))}, Pods: []*corev1.Pod{tt.pod},
				Options: Options{PreferencePolicy: tt.policy}})
			if len(r.NewNodeClaims) != 1 {
				t.Fatalf("%d nodeclaims, %d unschedulable", len(r.NewNodeClaims), len(r.Unschedulable))
			}
			if got := zoneOf(r.NewNodeClaims[0]); got != tt.zone {
				t.Errorf("zone %q, want %q", got, tt.zone)
			}
		})
	}
}

func TestPreferredAntiAffinityRelaxesHeaviestFirst(t *testing.T) {
	// The zonal term (weight 10) cannot hold for more than three pods; the hostname term
	// (weight 1) can, so after relaxing the zonal one every pod still gets its own node.
	ps := pods(5, "p", "1", "", withLabels("app", "p"),
		withPreferredAntiAffinity(zoneKey, 10, map[string]string{"app": "p"}),
		withPreferredAntiAffinity(corev1.LabelHostname, 1, map[string]string{"app": "p"}))
	r := Solve(&Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(4))}, Pods: ps})
	if len(r.NewNodeClaims) != 5 || len(r.Unschedulable) != 0 {
		t.Errorf("%d nodeclaims, %d unschedulable; want 5, 0", len(r.NewNodeClaims), len(r.Unschedulable))
	}
}

func TestDaemonSetOverhead(t *testing.T) {
	ds := func(name, cpu string, nodeSelector map[string]string) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
			Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{NodeSelector: nodeSelector,
				Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}}}
	}
	in := &Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(10))}, Pods: pods(1, "p", "1800m", ""),
		DaemonSets: []*appsv1.DaemonSet{ds("logs", "500m", nil), ds("arm-only", "4", map[string]string{corev1.LabelArchStable: "arm64"})}}
	r := Solve(in)
	nc := r.NewNodeClaims[0]
	// 1800m + 500m + 100m reserved needs 3 CPUs; the arm64-only DaemonSet does not run on amd64.
	if nc.InstanceType.Name != "fake-3" {
		t.Errorf("launches %s, want fake-3", nc.InstanceType.Name)
	}
	if got := nc.DaemonSetOverhead.Cpu().String(); got != "500m" {
		t.Errorf("daemonset overhead %s, want 500m", got)
	}
}

// TestDaemonSetOverheadUnderPreferNoSchedule: a DaemonSet without tolerations runs on nodes
// whose only taint is PreferNoSchedule, so its pods count there; a NoSchedule taint keeps it off.
func TestDaemonSetOverheadUnderPreferNoSchedule(t *testing.T) {
	logs := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "logs", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}}}}}
	for _, tc := range []struct {
		effect       corev1.TaintEffect
		overhead     string
		instanceType string
	}{
		{corev1.TaintEffectPreferNoSchedule, "500m", "fake-3"},
		{corev1.TaintEffectNoSchedule, "0", "fake-2"},
	} {
		t.Run(string(tc.effect), func(t *testing.T) {
			np := pool("default", 0, syntheticTypes(10))
			np.Taints = []corev1.Taint{{Key: "dedicated", Value: "batch", Effect: tc.effect}}
			p := pod("p", "1800m", "")
			p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
			r := Solve(&Input{NodePools: []NodePool{np}, Pods: []*corev1.Pod{p}, DaemonSets: []*appsv1.DaemonSet{logs}})
			if len(r.NewNodeClaims) != 1 {
				t.Fatalf("%d nodeclaims, unschedulable %+v", len(r.NewNodeClaims), r.Unschedulable)
			}
			nc := r.NewNodeClaims[0]
			if got := nc.DaemonSetOverhead.Cpu().String(); got != tc.overhead || nc.InstanceType.Name != tc.instanceType {
				t.Errorf("overhead %s on %s, want %s on %s", got, nc.InstanceType.Name, tc.overhead, tc.instanceType)
			}
		})
	}
}

// TestDaemonSetHostPorts: a port a DaemonSet binds on every node of a NodePool is taken on the
// nodes the plan would launch there.
func TestDaemonSetHostPorts(t *testing.T) {
	exporter := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "node-exporter", Namespace: "monitoring"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{{ContainerPort: 9100, HostPort: 9100, Protocol: corev1.ProtocolTCP}}}}}}}}
	for _, tc := range []struct {
		name     string
		port     int32
		protocol corev1.Protocol
		want     string // "" when it fits
	}{
		{"the DaemonSet's port", 9100, corev1.ProtocolTCP, ReasonHostPortConflict},
		{"another port", 8080, corev1.ProtocolTCP, ""},
		{"the same port over UDP", 9100, corev1.ProtocolUDP, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pod("p", "1", "")
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: tc.port, HostPort: tc.port, Protocol: tc.protocol}}
			r := Solve(&Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(4))}, Pods: []*corev1.Pod{p}, DaemonSets: []*appsv1.DaemonSet{exporter}})
			switch {
			case tc.want == "" && len(r.NewNodeClaims) != 1:
				t.Errorf("unschedulable: %+v", r.Unschedulable)
			case tc.want != "" && (len(r.Unschedulable) != 1 || r.Unschedulable[0].Reasons[0].Code != tc.want ||
				!strings.Contains(r.Unschedulable[0].Reasons[0].Message, "9100")):
				t.Errorf("want %s naming the port, got %d nodeclaims, %+v", tc.want, len(r.NewNodeClaims), r.Unschedulable)
			}
		})
	}
}

func TestMinValues(t *testing.T) {
	three, many := 3, 50
	tests := []struct {
		name      string
		minValues *int
		wantTypes int
		wantCode  string
	}{
		{"kept", &three, 3, ""},
		{"impossible", &many, 0, ReasonMinValues},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := requirements.New(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpExists).WithMinValues(tt.minValues)
			// A pod needing 8 CPUs leaves fake-9 and fake-10 only with the 10 types, so ask for 5.
			r := Solve(&Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(10), req)}, Pods: pods(1, "p", "5", ""),
				Options: Options{MaxInstanceTypes: 1}})
			if tt.wantCode != "" {
				if len(r.Unschedulable) != 1 || r.Unschedulable[0].Reasons[0].Code != tt.wantCode {
					t.Fatalf("want %s, got %+v", tt.wantCode, r.Unschedulable)
				}
				return
			}
			if len(r.NewNodeClaims) != 1 || len(r.NewNodeClaims[0].InstanceTypes) < tt.wantTypes {
				t.Fatalf("want a nodeclaim keeping %d types despite MaxInstanceTypes 1, got %+v", tt.wantTypes, r.NewNodeClaims)
			}
		})
	}
}

func TestCapacityTypeAndOptions(t *testing.T) {
	tests := []struct {
		name     string
		reqs     []*requirements.Requirement
		wantCT   string
		wantZone string
	}{
		{"spot preferred", nil, spot, "test-zone-1"},
		{"on-demand only", []*requirements.Requirement{requirements.New(ctKey, corev1.NodeSelectorOpIn, od)}, od, "test-zone-1"},
		{"zone without spot", []*requirements.Requirement{requirements.New(zoneKey, corev1.NodeSelectorOpIn, "test-zone-3")}, od, "test-zone-3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Solve(&Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(100), tt.reqs...)}, Pods: pods(1, "p", "1", "")})
			nc := r.NewNodeClaims[0]
			if nc.Offering.CapacityType != tt.wantCT || nc.Offering.Zone != tt.wantZone {
				t.Errorf("offering %+v, want %s in %s", nc.Offering, tt.wantCT, tt.wantZone)
			}
			if len(nc.InstanceTypes) != DefaultMaxInstanceTypes {
				t.Errorf("%d options, want %d", len(nc.InstanceTypes), DefaultMaxInstanceTypes)
			}
			for i := 1; i < len(nc.InstanceTypes); i++ {
				a, _ := cheapestOffering(nc.InstanceTypes[i-1].Offerings, nc.Requirements, tt.wantCT)
				b, _ := cheapestOffering(nc.InstanceTypes[i].Offerings, nc.Requirements, tt.wantCT)
				if a.Price > b.Price {
					t.Fatalf("options not cheapest first at %d", i)
				}
			}
		})
	}
}

func TestExplainer(t *testing.T) {
	types := syntheticTypes(8)
	taint := corev1.Taint{Key: "dedicated", Value: "general", Effect: corev1.TaintEffectNoSchedule}
	tainted := pool("tainted", 50, types)
	tainted.Taints = []corev1.Taint{taint}
	onDemand := pool("on-demand", 40, types, requirements.New(ctKey, corev1.NodeSelectorOpIn, od))
	limited := pool("limited", 30, types)
	limited.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
	limited.Usage = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
	zone3 := pool("zone-3", 20, types, requirements.New(zoneKey, corev1.NodeSelectorOpIn, "test-zone-3"))
	noArm := pool("amd64", 10, types)
	tests := []struct {
		name  string
		pools []NodePool
		pod   *corev1.Pod
		want  map[string]string
		text  string
	}{
		{"too large for every pool", []NodePool{tainted, onDemand}, pod("big", "64", ""),
			map[string]string{"tainted": ReasonTaintNotTolerated, "on-demand": ReasonInsufficientResources}, "the most cpu any offers is 7.9"},
		{"spot on an on-demand pool", []NodePool{onDemand}, pod("s", "1", "", withNodeSelector(ctKey, spot)),
			map[string]string{"on-demand": ReasonRequirementConflict}, "karpenter.sh/capacity-type In [spot], the NodePool allows In [on-demand]"},
		{"limit reached", []NodePool{limited}, pod("l", "1", ""),
			map[string]string{"limited": ReasonLimitExceeded}, "cpu limit 2, 2 in use"},
		{"spot where only on-demand is offered", []NodePool{zone3}, pod("z", "1", "", withNodeSelector(ctKey, spot)),
			map[string]string{"zone-3": ReasonNoOffering}, "none is offered"},
		{"unknown architecture", []NodePool{noArm}, pod("a", "1", "", withNodeSelector(corev1.LabelArchStable, "arm64")),
			map[string]string{"amd64": ReasonRequirementConflict}, "8 excluded by the pod's requirement on kubernetes.io/arch"},
		{"label no node carries", []NodePool{noArm}, pod("g", "1", "", withNodeSelector("team", "x")),
			map[string]string{"amd64": ReasonRequirementConflict}, "a label this NodePool's nodes do not carry"},
		{"zonal anti-affinity exhausted", []NodePool{zone3}, pod("x", "1", "", withLabels("app", "x"),
			withAntiAffinity(zoneKey, map[string]string{"app": "x"}), withNodeSelector(zoneKey, "test-zone-3")),
			map[string]string{"zone-3": ReasonTopologyUnsatisfiable}, "pod anti-affinity on topology.kubernetes.io/zone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &Input{NodePools: tt.pools, Pods: []*corev1.Pod{tt.pod}}
			if strings.Contains(tt.name, "anti-affinity") {
				// A pod already in test-zone-3 that the new one must avoid.
				in.Nodes = []ExistingNode{{Name: "n", Labels: map[string]string{corev1.LabelHostname: "n", zoneKey: "test-zone-3"},
					Pods: []*corev1.Pod{pod("x-old", "", "", withLabels("app", "x"))}}}
			}
			r := Solve(in)
			if len(r.Unschedulable) != 1 {
				t.Fatalf("want the pod unschedulable, got %d nodeclaims", len(r.NewNodeClaims))
			}
			pe := r.Unschedulable[0]
			got := reasonCodes(pe)
			for pool, code := range tt.want {
				if got[pool] != code {
					t.Errorf("pool %s: code %s, want %s", pool, got[pool], code)
				}
			}
			var all []string
			for _, reason := range pe.Reasons {
				if reason.Message == "" || reason.Hint == "" {
					t.Errorf("reason %+v lacks a message or a hint", reason)
				}
				all = append(all, reason.Message)
			}
			if joined := strings.Join(all, "\n"); !strings.Contains(joined, tt.text) {
				t.Errorf("messages %q do not mention %q", joined, tt.text)
			}
		})
	}
}

func TestNoNodePoolAndDeadline(t *testing.T) {
	r := Solve(&Input{Pods: pods(1, "p", "1", "")})
	if r.Unschedulable[0].Reasons[0].Code != ReasonNoNodePool {
		t.Errorf("got %+v", r.Unschedulable[0].Reasons)
	}
	r = Solve(&Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(4))}, Pods: pods(3, "p", "1", ""),
		Options: Options{Deadline: time.Now().Add(-time.Second)}})
	if len(r.Unschedulable) != 3 || r.Unschedulable[0].Reasons[0].Code != ReasonSolveTimedOut {
		t.Errorf("got %d unschedulable: %+v", len(r.Unschedulable), r.Unschedulable)
	}
}

// TestDeprecatedZoneSelector: a pod selecting the deprecated zone label lands in that zone, as
// one selecting topology.kubernetes.io/zone does.
func TestDeprecatedZoneSelector(t *testing.T) {
	for _, key := range []string{corev1.LabelTopologyZone, corev1.LabelFailureDomainBetaZone} {
		t.Run(key, func(t *testing.T) {
			r := Solve(&Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(4))},
				Pods: []*corev1.Pod{pod("p", "1", "", withNodeSelector(key, "test-zone-2"))}})
			if len(r.NewNodeClaims) != 1 || r.NewNodeClaims[0].Offering.Zone != "test-zone-2" {
				t.Fatalf("want one nodeclaim in test-zone-2, got %d, unschedulable %+v", len(r.NewNodeClaims), r.Unschedulable)
			}
		})
	}
}

// TestNodeLimit: limits.nodes counts nodes, whatever their size: the planned NodeClaims and the
// NodePool's nodes together stay within it.
func TestNodeLimit(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		limit, used           string
		claims, unschedulable int
	}{
		{"room for two", "2", "0", 2, 1},
		{"room for one", "2", "1", 1, 2},
		{"none left", "1", "1", 0, 3},
		{"no node limit", "", "", 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := pool("default", 0, syntheticTypes(4))
			if tc.limit != "" {
				np.Limits = corev1.ResourceList{karpv1.ResourceNodes: resource.MustParse(tc.limit)}
				np.Usage = corev1.ResourceList{karpv1.ResourceNodes: resource.MustParse(tc.used)}
			}
			// Three pods of 3 CPUs, the largest type holding 3.9: one a node.
			r := Solve(&Input{NodePools: []NodePool{np}, Pods: pods(3, "big", "3", "")})
			if len(r.NewNodeClaims) != tc.claims || len(r.Unschedulable) != tc.unschedulable {
				t.Fatalf("%d nodeclaims, %d unschedulable; want %d and %d", len(r.NewNodeClaims), len(r.Unschedulable), tc.claims, tc.unschedulable)
			}
			for _, pe := range r.Unschedulable {
				if pe.Reasons[0].Code != ReasonLimitExceeded || !strings.Contains(pe.Reasons[0].Message, "nodes") {
					t.Errorf("reason %+v, want the node limit", pe.Reasons[0])
				}
			}
		})
	}
}

// TestSpreadCountsOnlyTheDomainsThePodMayUse: with nodeAffinityPolicy Honor (the default), the
// skew is measured over the zones the pod's own node selector allows, and a node without the
// zone label is in no zone.
func TestSpreadCountsOnlyTheDomainsThePodMayUse(t *testing.T) {
	node := func(name, zone string, pods int) ExistingNode {
		labels := map[string]string{corev1.LabelHostname: name}
		if zone != "" {
			labels[zoneKey] = zone
		}
		n := ExistingNode{Name: name, Initialized: true, Labels: labels,
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourcePods: resource.MustParse("10")}}
		for i := range pods {
			n.Pods = append(n.Pods, pod(fmt.Sprintf("%s-old-%d", name, i), "", "", withLabels("app", "web")))
		}
		return n
	}
	spread := withSpread(zoneKey, 1, corev1.DoNotSchedule, map[string]string{"app": "web"})
	for _, tc := range []struct {
		name  string
		nodes []ExistingNode
		pod   *corev1.Pod
		zones []string // where the pod may go; nil: nowhere
	}{
		// Zone 3 holds none, but the pod may not go there: zones 1 and 2 set the minimum.
		{"the pod's selector excludes the empty zone", []ExistingNode{node("a", "test-zone-1", 1), node("b", "test-zone-2", 1)},
			pod("p", "1", "", withLabels("app", "web"), spread, withRequiredNodeAffinityTerms([]corev1.NodeSelectorRequirement{
				{Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-1", "test-zone-2"}}})),
			[]string{"test-zone-1", "test-zone-2"}},
		{"a node selector on the zone", []ExistingNode{node("a", "test-zone-1", 1), node("b", "test-zone-2", 1)},
			pod("p", "1", "", withLabels("app", "web"), spread, withNodeSelector(zoneKey, "test-zone-1")), []string{"test-zone-1"}},
		// Without the selector, zone 3 is the minimum (0): only there.
		{"every zone counts", []ExistingNode{node("a", "test-zone-1", 1), node("b", "test-zone-2", 1)},
			pod("p", "1", "", withLabels("app", "web"), spread), []string{"test-zone-3"}},
		// Pods on a node without a zone label count in no zone.
		{"a node without the zone label", []ExistingNode{node("a", "test-zone-1", 1), node("b", "test-zone-2", 1), node("c", "test-zone-3", 1),
			node("unlabeled", "", 5)}, pod("p", "1", "", withLabels("app", "web"), spread), []string{"test-zone-1", "test-zone-2", "test-zone-3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Solve(&Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(4))}, Nodes: tc.nodes, Pods: []*corev1.Pod{tc.pod}})
			if len(r.NewNodeClaims) != 1 {
				t.Fatalf("%d nodeclaims, unschedulable %+v", len(r.NewNodeClaims), r.Unschedulable)
			}
			if z := zoneOf(r.NewNodeClaims[0]); z != "" && !slices.Contains(tc.zones, z) {
				t.Errorf("went to %s, want one of %v", z, tc.zones)
			}
		})
	}
}

// TestSpreadSkipsNodesWithoutTheKey: a pod with a hard spread or affinity on zones never lands
// on a node without a zone label (kube-scheduler finds it infeasible), even with room; an
// anti-affinity has nothing to conflict with there.
func TestSpreadSkipsNodesWithoutTheKey(t *testing.T) {
	roomy := ExistingNode{Name: "unlabeled", Initialized: true, Labels: map[string]string{corev1.LabelHostname: "unlabeled"},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourcePods: resource.MustParse("10")}}
	for _, tc := range []struct {
		name     string
		opts     []podOption
		existing bool // placed on the unlabeled node
	}{
		{"a zone spread", []podOption{withLabels("app", "web"), withSpread(zoneKey, 1, corev1.DoNotSchedule, map[string]string{"app": "web"})}, false},
		{"a soft zone spread", []podOption{withLabels("app", "web"), withSpread(zoneKey, 1, corev1.ScheduleAnyway, map[string]string{"app": "web"})}, true},
		{"a zone affinity", []podOption{withLabels("app", "web"), withPodAffinity(zoneKey, map[string]string{"app": "web"})}, false},
		{"a zone anti-affinity", []podOption{withLabels("app", "web"), withAntiAffinity(zoneKey, map[string]string{"app": "web"})}, true},
		{"no spread", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Solve(&Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(4))}, Nodes: []ExistingNode{roomy},
				Pods: []*corev1.Pod{pod("p", "1", "", tc.opts...)}, Options: Options{PreferencePolicy: PreferencesIgnore}})
			onExisting := len(r.ExistingNodes) == 1 && len(r.ExistingNodes[0].Pods) == 1
			if onExisting != tc.existing {
				t.Errorf("on the unlabeled node %v, want %v (%d nodeclaims)", onExisting, tc.existing, len(r.NewNodeClaims))
			}
		})
	}
}

// TestSolveReportsProgress: a solve says how many pods wait in its queue as it starts and runs,
// and says when it is done.
func TestSolveReportsProgress(t *testing.T) {
	var queued []int
	done := 0
	in := &Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(20))}, Pods: pods(100, "inflate", "100m", "")}
	in.Options.Progress = func(q int, ran time.Duration, finished bool) {
		if ran < 0 {
			t.Errorf("ran %v", ran)
		}
		if finished {
			done++
			return
		}
		queued = append(queued, q)
	}
	r := Solve(in)
	if len(r.Unschedulable) != 0 {
		t.Fatalf("%d unschedulable", len(r.Unschedulable))
	}
	// 100 pods: told at the first pop and the 65th, the queue shrinking; then done, once.
	if len(queued) != 2 || queued[0] != 100 || queued[1] != 36 || done != 1 {
		t.Errorf("queue depths %v, done %d times; want [100 36], once", queued, done)
	}
}

// TestIgnoredPods: the pods Karpenter's provisioner ignores are planned for by nobody, and say
// why in Karpenter's words; the others are planned as usual.
func TestIgnoredPods(t *testing.T) {
	matchFields := func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n"}}}}}}}}
	}
	expr := func(key string, op corev1.NodeSelectorOperator, values ...string) podOption {
		return withRequiredNodeAffinityTerms([]corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}})
	}
	for _, tc := range []struct {
		name     string
		opt      podOption
		code     string // "" when the pod is planned
		contains string
	}{
		{"a hostname", withNodeSelector(corev1.LabelHostname, "node-1"), ReasonIgnored, "kubernetes.io/hostname"},
		{"a karpenter.sh label", withNodeSelector("karpenter.sh/team", "a"), ReasonIgnored, "karpenter.sh"},
		{"matchFields", matchFields, ReasonIgnored, "matchFields is not supported"},
		{"a value no label can have", expr("team", corev1.NodeSelectorOpIn, "a b"), ReasonIgnored, "not a label value"},
		{"no karpenter node wanted", expr(karpv1.NodePoolLabelKey, corev1.NodeSelectorOpDoesNotExist), ReasonNotForKarpenter,
			"configured to not run on a Karpenter provisioned node"},
		{"a well-known label", withNodeSelector(corev1.LabelArchStable, "amd64"), "", ""},
		{"a deprecated one, normalized", withNodeSelector("beta.kubernetes.io/arch", "amd64"), "", ""},
		{"the nodepool label", withNodeSelector(karpv1.NodePoolLabelKey, "default"), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Solve(&Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(5))}, Pods: []*corev1.Pod{pod("p", "1", "", tc.opt)},
				WellKnownLabels: karpv1.WellKnownLabels().UnsortedList()})
			if tc.code == "" {
				if len(r.NewNodeClaims) != 1 {
					t.Fatalf("not planned: %+v", r.Unschedulable)
				}
				return
			}
			if len(r.NewNodeClaims) != 0 || len(r.Unschedulable) != 1 {
				t.Fatalf("%d nodeclaims, %d unschedulable; want the pod ignored", len(r.NewNodeClaims), len(r.Unschedulable))
			}
			if reason := r.Unschedulable[0].Reasons[0]; reason.Code != tc.code || strings.HasPrefix(reason.Message, "ignoring pod") || !strings.Contains(reason.Message, tc.contains) {
				t.Errorf("reason %+v, want %s saying %q", reason, tc.code, tc.contains)
			}
		})
	}
}

// hintedError is an error that says what fixes it, as state.VolumeError does.
type hintedError struct {
	error
	hint string
}

func (e hintedError) Hint() string { return e.hint }

// TestVolumeTopology: a pod goes only where the volumes it claims let it run (Input.Volumes),
// which its own spec does not say: pods alike but for their volumes are placed apart, an existing
// node with room in another zone is passed over, and a pod whose claim is missing or being deleted
// is not planned, with the error's own hint where it has one.
func TestVolumeTopology(t *testing.T) {
	ebsZone := "topology.ebs.csi.aws.com/zone" // the EBS CSI driver's key, read as the zone
	zones := map[string]corev1.NodeSelectorRequirement{
		"db-0": {Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-2"}},
		"db-1": {Key: ebsZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-3"}},
	}
	in := &Input{
		NodePools: []NodePool{pool("default", 0, syntheticTypes(4))},
		Nodes: []ExistingNode{{Name: "roomy", Initialized: true, Labels: map[string]string{corev1.LabelHostname: "roomy", zoneKey: "test-zone-1"},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourcePods: resource.MustParse("110")}}},
		Pods: pods(4, "db", "1", ""),
		Volumes: func(p *corev1.Pod) ([]corev1.NodeSelectorRequirement, error) {
			if r, ok := zones[p.Name]; ok {
				return []corev1.NodeSelectorRequirement{r}, nil
			}
			if p.Name == "db-3" {
				return nil, hintedError{errors.New("its PersistentVolumeClaim default/data-db-3 is being deleted"), "give the pod a new claim"}
			}
			return nil, errors.New("its PersistentVolumeClaim default/data-db-2 does not exist")
		},
	}
	r := Solve(in)
	got := map[string]string{}
	for _, nc := range r.NewNodeClaims {
		for _, p := range nc.Pods {
			got[p.Name] = zoneOf(nc)
		}
	}
	if want := map[string]string{"db-0": "test-zone-2", "db-1": "test-zone-3"}; !maps.Equal(got, want) {
		t.Errorf("new nodeclaims' zones by pod %v, want %v (existing: %v)", got, want, placement(r))
	}
	ignored := map[string]Reason{}
	for _, u := range r.Unschedulable {
		ignored[u.Pod.Name] = u.Reasons[0]
	}
	for name, want := range map[string]Reason{
		"db-2": {Message: "data-db-2 does not exist", Hint: "create what it names"},
		"db-3": {Message: "data-db-3 is being deleted", Hint: "give the pod a new claim"}, // the error's own hint
	} {
		if got := ignored[name]; got.Code != ReasonIgnored || !strings.Contains(got.Message, want.Message) || !strings.Contains(got.Hint, want.Hint) {
			t.Errorf("%s: reason %+v, want it ignored saying %q with the hint %q", name, got, want.Message, want.Hint)
		}
	}
	if len(r.Unschedulable) != 2 {
		t.Errorf("unschedulable %+v, want db-2 and db-3 ignored for their claims", r.Unschedulable)
	}
	// A NodePool that launches only where the volume is not: the reason says the volume asks.
	in.NodePools = []NodePool{pool("default", 0, syntheticTypes(4), requirements.New(zoneKey, corev1.NodeSelectorOpIn, "test-zone-1"))}
	in.Nodes, in.Pods = nil, in.Pods[:1]
	r = Solve(in)
	if len(r.Unschedulable) != 1 || !strings.Contains(r.Unschedulable[0].Reasons[0].Message, "its persistent volumes can attach only there") {
		t.Errorf("unschedulable %+v, want db-0 refused for its volume's zone", r.Unschedulable)
	}
}

// TestFirstFitOverManyNodes: among a hundred existing nodes, a pod goes to the first with room, in
// candidate order, though the solve skips blocks of nodes without room; a node that took a pod
// has less left for the next.
func TestFirstFitOverManyNodes(t *testing.T) {
	roomy := map[int]bool{45: true, 90: true} // 4 CPUs free; every other node 1
	var nodes []ExistingNode
	for i := range 100 {
		free := "1"
		if roomy[i] {
			free = "4"
		}
		name := fmt.Sprintf("node-%02d", i)
		nodes = append(nodes, ExistingNode{Name: name, Initialized: true, Labels: map[string]string{corev1.LabelHostname: name},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(free), corev1.ResourcePods: resource.MustParse("110")}})
	}
	r := Solve(&Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(4))}, Nodes: nodes,
		Pods: append(pods(3, "big", "3", ""), pod("small", "500m", ""))})
	got := placement(r)
	for name, want := range map[string]string{"big-0": "node-45", "big-1": "node-90", "small": "node-00"} {
		if got[name] != want {
			t.Errorf("%s placed on %q, want %s (placement %v)", name, got[name], want, got)
		}
	}
	// The third large pod finds no node with room left: node-45 and node-90 took one each.
	if n := got["big-2"]; n == "" || strings.HasPrefix(n, "node-") {
		t.Errorf("big-2 placed on %q, want a new NodeClaim", n)
	}
}

// TestSolvesWithoutNodes solves one Prepared again and again, each time without some nodes, as
// disruption does candidate after candidate: each solve must place the pods as a solve of its
// own over the nodes left would, whatever the solves before it placed.
func TestSolvesWithoutNodes(t *testing.T) {
	var nodes []ExistingNode
	for i, free := range []string{"1", "3", "2", "3", "1"} {
		name := fmt.Sprintf("node-%d", i)
		nodes = append(nodes, ExistingNode{Name: name, Initialized: i != 2, Labels: map[string]string{corev1.LabelHostname: name},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(free), corev1.ResourcePods: resource.MustParse("110")}})
	}
	in := &Input{NodePools: []NodePool{pool("default", 0, syntheticTypes(4))}, Nodes: nodes, Pods: pods(2, "app", "2", "")}
	prep := Prepare(in)
	for _, tc := range []struct {
		without []string
		want    map[string]string
	}{
		{nil, map[string]string{"app-0": "node-1", "app-1": "node-3"}},
		{[]string{"node-1"}, map[string]string{"app-0": "node-3", "app-1": "node-2"}}, // node-2, not initialized, comes last
		{[]string{"node-1", "node-3"}, map[string]string{"app-0": "node-2"}},
		{[]string{"node-0", "node-4"}, map[string]string{"app-0": "node-1", "app-1": "node-3"}},
		{nil, map[string]string{"app-0": "node-1", "app-1": "node-3"}},
	} {
		without := map[string]bool{}
		for _, n := range tc.without {
			without[n] = true
		}
		got := placement(prep.Solve(in.Pods, without, nil))
		for pod, want := range tc.want {
			if got[pod] != want {
				t.Errorf("without %v: %s placed on %q, want %s (placement %v)", tc.without, pod, got[pod], want, got)
			}
		}
		for pod, node := range got {
			if without[node] {
				t.Errorf("without %v: %s placed on %s, which the solve leaves out", tc.without, pod, node)
			}
		}
	}
}

// TestPriceCliff: with a price cliff, a new NodeClaim does not grow into a type that costs that
// many times more for pods of its shape; the pod that would take it there opens another. Without
// one it grows as Karpenter's does, into whatever type still holds its pods.
func TestPriceCliff(t *testing.T) {
	for _, tc := range []struct {
		name        string
		largeFactor float64 // fake-4's price, as a multiple of its linear price
		cliff       float64
		onDemand    bool // the fourth pod asks for on-demand
		want        []string
		stops       string // the NodeClaims' StoppedAt
	}{
		{"sizes priced alike", 1, DefaultPriceCliff, false, []string{"fake-4"}, ""},
		{"a cliff, as Karpenter", 2, 0, false, []string{"fake-4"}, ""},
		{"a cliff", 2, DefaultPriceCliff, false, []string{"fake-1", "fake-3"}, "fake-3 stopped short of fake-4 at 2.0x"},
		{"a step below the cliff", 1.4, DefaultPriceCliff, false, []string{"fake-4"}, ""},
		// spot at 35% of on-demand: from fake-3 spot to fake-4 on-demand is 3.8 times the price,
		// but only 1.33 times that of fake-3 on-demand: the pod's capacity type is no cliff
		{"a pod that asks for on-demand", 1, DefaultPriceCliff, true, []string{"fake-4"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			types := syntheticTypes(4)
			for i := range types[3].Offerings {
				types[3].Offerings[i].Price *= tc.largeFactor
			}
			// four pods of 900m (the fourth 800m: the solve takes it last): three fit fake-3 (2.9
			// CPUs allocatable), four only fake-4
			var opts []podOption
			if tc.onDemand {
				opts = append(opts, withNodeSelector(ctKey, od))
				for _, it := range types {
					for i, o := range it.Offerings {
						if o.CapacityType == spot {
							it.Offerings[i].Price *= 0.5
						}
					}
				}
			}
			ps := append(pods(3, "web", "900m", "1Gi"), pod("last", "800m", "1Gi", opts...))
			r := Solve(&Input{NodePools: []NodePool{pool("default", 0, types)}, Pods: ps,
				Options: Options{Packing: PackingKarpenter, PriceCliff: tc.cliff}})
			if len(r.Unschedulable) != 0 {
				t.Fatalf("%d pods unschedulable", len(r.Unschedulable))
			}
			var got, stops []string
			for _, nc := range r.NewNodeClaims {
				got = append(got, nc.InstanceTypes[0].Name)
				if c := nc.StoppedAt; c != nil {
					stops = append(stops, fmt.Sprintf("%s stopped short of %s at %.1fx", nc.InstanceTypes[0].Name, c.InstanceType, c.Ratio))
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("NodeClaims launch as %v, want %v", got, tc.want)
			}
			if strings.Join(stops, "; ") != tc.stops {
				t.Errorf("stops %q, want %q", stops, tc.stops)
			}
		})
	}
}
