package enginetest

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/pods"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// PodOption changes a pod template.
type PodOption func(*corev1.Pod)

// Resources is a resource list of CPU and memory; an empty string leaves a resource out.
func Resources(cpu, memory string) corev1.ResourceList {
	out := corev1.ResourceList{}
	if cpu != "" {
		out[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		out[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return out
}

// WithLabels adds labels to the pods.
func WithLabels(labels map[string]string) PodOption {
	return func(p *corev1.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		maps.Copy(p.Labels, labels)
	}
}

// WithAnnotations adds annotations to the pods.
func WithAnnotations(annotations map[string]string) PodOption {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		maps.Copy(p.Annotations, annotations)
	}
}

// DoNotDisrupt annotates the pods karpenter.sh/do-not-disrupt with value ("true" or a duration).
func DoNotDisrupt(value string) PodOption {
	return WithAnnotations(map[string]string{karpv1.DoNotDisruptAnnotationKey: value})
}

// WithNodeSelector sets the pods' node selector.
func WithNodeSelector(selector map[string]string) PodOption {
	return func(p *corev1.Pod) { p.Spec.NodeSelector = maps.Clone(selector) }
}

// WithNodeRequirements adds a required node affinity term (ANDed requirements).
func WithNodeRequirements(reqs ...corev1.NodeSelectorRequirement) PodOption {
	return func(p *corev1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: slices.Clone(reqs)}}}}
	}
}

// WithTolerations adds tolerations to the pods.
func WithTolerations(tolerations ...corev1.Toleration) PodOption {
	return func(p *corev1.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, tolerations...) }
}

// OnePerNode keeps the pods on distinct nodes: a required anti-affinity on the hostname
// against pods with the same "app" label.
func OnePerNode() PodOption {
	return func(p *corev1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey:   corev1.LabelHostname,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": p.Labels["app"]}},
		}}}
	}
}

// WithPriorityClass sets the pods' priority class; the system classes get their priority.
func WithPriorityClass(name string) PodOption {
	return func(p *corev1.Pod) {
		p.Spec.PriorityClassName = name
		switch name {
		case "system-node-critical":
			p.Spec.Priority = ptr.To[int32](2000001000)
		case "system-cluster-critical":
			p.Spec.Priority = ptr.To[int32](2000000000)
		}
	}
}

// WithGracePeriod sets the pods' termination grace period.
func WithGracePeriod(seconds int64) PodOption {
	return func(p *corev1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr.To(seconds) }
}

// podTemplate is a pod of one container requesting requests, labelled app=name, with opts.
func podTemplate(name string, requests corev1.ResourceList, opts []PodOption) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
			Resources: corev1.ResourceRequirements{Requests: requests.DeepCopy()}}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Pod creates one pod without a controller (deleted, it stays deleted), named name.
func (e *Env) Pod(name string, requests corev1.ResourceList, opts ...PodOption) *corev1.Pod {
	e.T.Helper()
	p := podTemplate(name, requests, opts)
	p.Name = name
	created, err := e.API.CreatePod(e.T.Context(), p)
	if err != nil {
		e.T.Fatalf("enginetest: creating pod %s: %v", name, err)
	}
	return created
}

// deployment is a Deployment (with its one ReplicaSet) the Env keeps at its replicas.
type deployment struct {
	name     string
	uid      types.UID
	replicas int
	template *corev1.Pod
}

// Deployment creates a Deployment of replicas pods named name-xxxxx, labelled app=name, each
// requesting requests, in namespace "default", and keeps it at that scale: the Env's
// Deployment controller replaces pods that finish or are being deleted (evicted pods at once,
// as a ReplicaSet does) and removes extra ones (pending first, then the newest). Its
// PodDisruptionBudgets see replicas as the expected scale.
func (e *Env) Deployment(name string, replicas int, requests corev1.ResourceList, opts ...PodOption) {
	e.T.Helper()
	if _, dup := e.deployments[name]; dup {
		e.T.Fatalf("enginetest: deployment %s exists", name)
	}
	d := &deployment{name: name, uid: types.UID("deployment-" + name), replicas: replicas, template: podTemplate(name, requests, opts)}
	e.deployments[name] = d
	e.API.SetScale(d.uid, replicas)
	if _, err := e.stepDeployment(e.T.Context(), d, nil); err != nil {
		e.T.Fatalf("enginetest: deployment %s: %v", name, err)
	}
}

// Scale changes a Deployment's replicas; the next Step creates or removes pods.
func (e *Env) Scale(name string, replicas int) {
	e.T.Helper()
	d, ok := e.deployments[name]
	if !ok {
		e.T.Fatalf("enginetest: no deployment %s", name)
	}
	d.replicas = replicas
	e.API.SetScale(d.uid, replicas)
}

// PodsOf returns the active (not finished, not terminating) pods of a Deployment or DaemonSet
// named name, ordered by name.
func (e *Env) PodsOf(name string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range e.API.Pods() {
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil && ref.Name == name && !pods.IsTerminal(p) && !pods.IsTerminating(p) {
			out = append(out, p)
		}
	}
	return out
}

// stepDeployments brings every Deployment to its scale.
func (e *Env) stepDeployments(ctx context.Context) (bool, error) {
	active := map[types.UID][]*corev1.Pod{}
	for _, p := range e.API.podsShared() {
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil && !pods.IsTerminal(p) && !pods.IsTerminating(p) {
			active[ref.UID] = append(active[ref.UID], p)
		}
	}
	changed := false
	for _, name := range slices.Sorted(maps.Keys(e.deployments)) {
		d := e.deployments[name]
		c, err := e.stepDeployment(ctx, d, active[d.uid])
		if err != nil {
			return changed, err
		}
		changed = changed || c
	}
	return changed, nil
}

// stepDeployment creates or removes pods of one Deployment, whose active pods are given, as
// its ReplicaSet would.
func (e *Env) stepDeployment(ctx context.Context, d *deployment, active []*corev1.Pod) (bool, error) {
	changed := false
	for range d.replicas - len(active) {
		p := d.template.DeepCopy()
		p.GenerateName = d.name + "-"
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: d.name, UID: d.uid,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
		if _, err := e.API.CreatePod(ctx, p); err != nil {
			return changed, fmt.Errorf("deployment %s: %w", d.name, err)
		}
		changed = true
	}
	if extra := len(active) - d.replicas; extra > 0 {
		// Remove the least useful first: unbound, then not running, then the newest.
		active = slices.Clone(active)
		slices.SortStableFunc(active, func(a, b *corev1.Pod) int {
			return cmp.Or(cmp.Compare(boolRank(a.Spec.NodeName != ""), boolRank(b.Spec.NodeName != "")),
				cmp.Compare(boolRank(isHealthy(a)), boolRank(isHealthy(b))),
				b.CreationTimestamp.Compare(a.CreationTimestamp.Time))
		})
		for _, p := range active[:extra] {
			if err := e.API.deletePod(pods.Key(p), nil); err != nil {
				return changed, fmt.Errorf("deployment %s: %w", d.name, err)
			}
			changed = true
		}
	}
	return changed, nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// DaemonSet creates a DaemonSet named name whose pods request requests; the Env's DaemonSet
// controller runs one pod on every node it should run on.
func (e *Env) DaemonSet(name string, requests corev1.ResourceList, opts ...PodOption) *appsv1.DaemonSet {
	e.T.Helper()
	tmpl := podTemplate(name, requests, opts)
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{ObjectMeta: tmpl.ObjectMeta, Spec: tmpl.Spec},
		},
	}
	created, err := e.API.CreateDaemonSet(e.T.Context(), ds)
	if err != nil {
		e.T.Fatalf("enginetest: creating daemonset %s: %v", name, err)
	}
	return created
}

// daemonTolerations are the tolerations the DaemonSet controller adds to its pods.
func daemonTolerations() []corev1.Toleration {
	return []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodePIDPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	}
}

// stepDaemonSets creates the missing pod of every DaemonSet on every node that is not being
// deleted, whose NoSchedule and NoExecute taints the pod tolerates and whose labels its node
// selector and required affinity match. The pod is bound to the node at creation (resources
// are not checked) and the kubelet runs it. Pods are never removed from nodes that stop
// qualifying.
func (e *Env) stepDaemonSets(ctx context.Context) (bool, error) {
	all := e.API.podsShared()
	changed := false
	for _, ds := range e.API.daemonSetsShared() {
		has := map[string]bool{}
		for _, p := range all {
			if ref := metav1.GetControllerOfNoCopy(p); ref != nil && ref.UID == ds.UID && !pods.IsTerminal(p) {
				has[p.Spec.NodeName] = true
			}
		}
		for _, n := range e.API.nodesShared() {
			if has[n.Name] || n.DeletionTimestamp != nil {
				continue
			}
			p := &corev1.Pod{ObjectMeta: *ds.Spec.Template.ObjectMeta.DeepCopy(), Spec: *ds.Spec.Template.Spec.DeepCopy()}
			p.Namespace, p.GenerateName = ds.Namespace, ds.Name+"-"
			p.Spec.Tolerations = append(p.Spec.Tolerations, daemonTolerations()...)
			if _, bad := untolerated(p.Spec.Tolerations, n.Spec.Taints); bad || !matchesNodeAffinity(p, n) {
				continue
			}
			p.Spec.NodeName = n.Name
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
			if _, err := e.API.CreatePod(ctx, p); err != nil {
				return changed, fmt.Errorf("daemonset %s: %w", ds.Name, err)
			}
			changed = true
		}
	}
	return changed, nil
}
