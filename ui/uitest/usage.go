package uitest

import (
	"context"
	"hash/fnv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/pods"
	"github.com/nodepilot/nodepilot/engine/requirements"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/rightsizing"
	"github.com/nodepilot/nodepilot/usage"
)

// share is a stable fraction in [0.1, 0.9) drawn from a name: what a pod uses of its requests.
func share(name string) float64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return 0.1 + 0.8*float64(h.Sum32()%1000)/1000
}

// used is what a running pod uses: a stable share of its CPU request, and a larger one of its
// memory's.
func used(p *corev1.Pod) usage.Use {
	req := usage.Of(pods.Requests(p))
	s := share(p.Name)
	return usage.Use{CPU: int64(float64(req.CPU) * s), Mem: int64(float64(req.Mem) * min(0.95, s+0.1))}
}

// readUsage is what metrics.k8s.io would say of the running pods and their nodes now.
func (f *Fake) readUsage() *usage.Snapshot {
	snap := f.Cluster.Snapshot()
	s := &usage.Snapshot{Time: f.Clock.Now(), Nodes: map[string]usage.Use{}, Pods: map[types.NamespacedName]usage.Use{}}
	for _, sn := range snap.Nodes {
		if sn.Node == nil {
			continue
		}
		system := usage.Use{CPU: 60, Mem: 350 << 20} // the kubelet and the node's daemons
		for _, p := range sn.Pods {
			if p.Status.Phase == corev1.PodRunning {
				u := used(p)
				s.Pods[pods.Key(p)] = u
				system = system.Add(u)
			}
		}
		s.Nodes[sn.Name()] = system
	}
	return s
}

// Usage implements ui.Backend: figures for every running pod and node, unless SetUsage said
// otherwise.
func (f *Fake) Usage() *usage.Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.usage != nil {
		return f.usage
	}
	return f.readUsage()
}

// SetUsage makes Usage return s (a snapshot with a Status plays metrics-server missing or
// failing); nil goes back to generated figures.
func (f *Fake) SetUsage(s *usage.Snapshot) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.usage = s
}

// RightSizing implements ui.Backend: the real right-sizing of the generated pods, each with
// forty readings at its generated use, planned over the fake catalog in one NodePool.
func (f *Fake) RightSizing(ctx context.Context) (*rightsizing.Report, error) {
	f.called("right-sizing")
	if err := f.failure(); err != nil {
		return nil, err
	}
	snap := f.Cluster.Snapshot()
	stats := func(_ rightsizing.Key, ps []*corev1.Pod, _ string) usage.Stats {
		var s usage.Stats
		for _, p := range ps {
			if p.Status.Phase != corev1.PodRunning {
				continue
			}
			u := used(p)
			s.Samples += 40
			s.CPU, s.Mem = max(s.CPU, u.CPU), max(s.Mem, u.Mem)
		}
		return s
	}
	ws := rightsizing.Suggest(snap.Pods, stats, rightsizing.DefaultPolicy())
	var placed []*corev1.Pod
	for _, p := range snap.Pods {
		if !pods.IsOwnedByDaemonSet(p) {
			placed = append(placed, p)
		}
	}
	in := &scheduling.Input{Pods: placed, Options: scheduling.DefaultOptions(), NodePools: []scheduling.NodePool{{
		Name: "default", InstanceTypes: instanceTypes(),
		Requirements: requirements.Of(requirements.New(karpv1.NodePoolLabelKey, corev1.NodeSelectorOpIn, "default")),
	}}}
	r := rightsizing.Simulate(ctx, in, ws)
	return &r, nil
}

// instanceTypes are the fake catalog as the scheduler sees it: on-demand and spot in every zone.
func instanceTypes() []*cloudprovider.InstanceType {
	var out []*cloudprovider.InstanceType
	for _, it := range catalog() {
		var offerings cloudprovider.Offerings
		for _, z := range zoneNames() {
			offerings = append(offerings,
				cloudprovider.Offering{Zone: z, CapacityType: karpv1.CapacityTypeOnDemand, Price: it.onDemand, Available: true},
				cloudprovider.Offering{Zone: z, CapacityType: karpv1.CapacityTypeSpot, Price: it.onDemand * spotDiscount, Available: true})
		}
		out = append(out, &cloudprovider.InstanceType{
			Name: it.name,
			Requirements: requirements.FromLabels(map[string]string{
				corev1.LabelInstanceTypeStable: it.name, corev1.LabelArchStable: arch(it.name), corev1.LabelOSStable: "linux",
			}).Add(
				requirements.New(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zoneNames()...),
				requirements.New(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeOnDemand, karpv1.CapacityTypeSpot),
			),
			Offerings: offerings,
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewQuantity(it.cpu, resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(it.memGi<<30, resource.BinarySI),
				corev1.ResourcePods:   *resource.NewQuantity(58, resource.DecimalSI),
			},
		})
	}
	return out
}
