package enginetest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/nodepilot/nodepilot/engine/pods"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// KubeletOptions time what the kubelets do. Zero durations mean "at once".
type KubeletOptions struct {
	// JoinDelay is how long after its launch an instance registers its Node.
	JoinDelay time.Duration
	// ReadyDelay is how long after registering a Node turns Ready.
	ReadyDelay time.Duration
	// StartupTaintDelay is how long after its Node registered, and once the autoscaler removed
	// the unregistered taint, the startup taints go (as a CNI DaemonSet would remove them).
	StartupTaintDelay time.Duration
	// KeepStartupTaints leaves startup taints in place forever.
	KeepStartupTaints bool
	// NoUnregisteredTaint registers Nodes without karpenter.sh/unregistered, as a node whose
	// launch template or kubelet flags dropped it.
	NoUnregisteredTaint bool
	// PodTerminationDelay bounds how long a pod takes to stop: a deleted pod is gone after
	// the smaller of its grace period and this.
	PodTerminationDelay time.Duration
}

// DefaultKubeletOptions are plausible EC2 timings: nodes join 30 s after launch and are Ready
// 10 s later, startup taints go 10 s after registration, pods stop within 5 s.
func DefaultKubeletOptions() KubeletOptions {
	return KubeletOptions{JoinDelay: 30 * time.Second, ReadyDelay: 10 * time.Second, StartupTaintDelay: 10 * time.Second,
		PodTerminationDelay: 5 * time.Second}
}

// Kubelet plays the kubelets of every instance of a Cloud, plus the controllers that clean up
// after nodes: Step registers a Node for each running instance JoinDelay after launch (named
// after the instance, with its provider ID, the instance's labels plus the hostname, the
// unregistered taint plus the NodeClaim's taints and startup taints, the type's capacity and
// allocatable, NotReady), makes it Ready after ReadyDelay, removes startup taints, runs the pods
// bound to Ready nodes (Running, Ready, a start time) and finishes pods being deleted.
//
// Simplified: a terminated instance's Node is marked NotReady and deleted at once, and its pods
// are removed at once (as the pod garbage collector would, eventually); pods bound to a node
// that does not exist are removed likewise; containers, probes, images, volumes and the
// NoExecute taint manager are not modelled; a Node deleted while its instance runs registers
// again, as a kubelet does. Nodes without an instance (seeded by a test) run their pods but
// are otherwise left alone.
type Kubelet struct {
	api   *API
	cloud *Cloud
	clock clock.PassiveClock
	opts  KubeletOptions
}

// NewKubelet returns the kubelets of cloud's instances, writing to api.
func NewKubelet(api *API, cloud *Cloud, clk clock.PassiveClock, opts KubeletOptions) *Kubelet {
	return &Kubelet{api: api, cloud: cloud, clock: clk, opts: opts}
}

// Step does what is due now and reports whether it changed anything. Conflicts and objects
// deleted meanwhile are left for the next step; other errors are returned.
func (k *Kubelet) Step(ctx context.Context) (bool, error) {
	now := k.clock.Now()
	launched := k.cloud.Instances()
	instances := map[string]Instance{}
	for _, inst := range launched {
		instances[inst.ProviderID] = inst
	}
	nodes := map[string]*corev1.Node{}
	for _, n := range k.api.nodesShared() {
		nodes[n.Name] = n
	}
	s := &kubeletStep{k: k, ctx: ctx, now: now}
	s.register(launched, nodes)
	for _, n := range k.api.nodesShared() {
		inst, managed := instances[n.Spec.ProviderID]
		switch {
		case managed && !inst.Running():
			s.retire(n)
		case managed:
			s.tend(n, inst)
		}
	}
	for _, p := range k.api.podsShared() {
		s.runPod(p, nodes, instances)
	}
	return s.changed, errors.Join(s.errs...)
}

// kubeletStep is one Step's work in progress.
type kubeletStep struct {
	k       *Kubelet
	ctx     context.Context
	now     time.Time
	changed bool
	errs    []error
}

// done records the outcome of one write.
func (s *kubeletStep) done(err error) {
	switch {
	case err == nil:
		s.changed = true
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
	default:
		s.errs = append(s.errs, err)
	}
}

// register creates the Node of every running instance that joined and has none.
func (s *kubeletStep) register(instances []Instance, nodes map[string]*corev1.Node) {
	has := map[string]bool{}
	for _, n := range nodes {
		has[n.Spec.ProviderID] = true
	}
	for _, inst := range instances {
		if !inst.Running() || has[inst.ProviderID] || s.now.Before(inst.LaunchedAt.Add(s.k.opts.JoinDelay)) {
			continue
		}
		if _, taken := nodes[NodeName(inst)]; taken {
			continue // the old Node is still being deleted
		}
		n, err := s.k.api.CreateNode(s.ctx, nodeFor(inst, s.now, !s.k.opts.NoUnregisteredTaint))
		s.done(err)
		if err == nil {
			nodes[n.Name] = n
		}
	}
}

// retire marks the Node of a terminated instance NotReady and deletes it, with its pods.
func (s *kubeletStep) retire(n *corev1.Node) {
	if nodeReadyStatus(n) != corev1.ConditionUnknown {
		_, err := s.k.api.UpdateNodeStatus(s.ctx, n.Name, func(n *corev1.Node) error {
			setNodeReady(n, corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.", s.now)
			return nil
		})
		s.done(err)
	}
	if n.DeletionTimestamp == nil {
		s.done(s.k.api.deleteNode(s.ctx, n.Name))
	}
}

// tend makes a running instance's Node Ready and removes its startup taints when due.
func (s *kubeletStep) tend(n *corev1.Node, inst Instance) {
	if nodeReadyStatus(n) != corev1.ConditionTrue && !s.now.Before(n.CreationTimestamp.Add(s.k.opts.ReadyDelay)) {
		_, err := s.k.api.UpdateNodeStatus(s.ctx, n.Name, func(n *corev1.Node) error {
			setNodeReady(n, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status", s.now)
			return nil
		})
		s.done(err)
	}
	if s.k.opts.KeepStartupTaints || len(inst.StartupTaints) == 0 || hasTaint(n.Spec.Taints, karpv1.UnregisteredNoExecuteTaint()) ||
		s.now.Before(n.CreationTimestamp.Add(s.k.opts.StartupTaintDelay)) ||
		!slices.ContainsFunc(inst.StartupTaints, func(t corev1.Taint) bool { return hasTaint(n.Spec.Taints, t) }) {
		return
	}
	_, err := s.k.api.updateNode(s.ctx, n.Name, func(n *corev1.Node) error {
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return hasTaint(inst.StartupTaints, t) })
		return nil
	})
	s.done(err)
}

// runPod starts a pod bound to a Ready node, finishes one whose deletion is due, and removes
// one whose node or instance is gone.
func (s *kubeletStep) runPod(p *corev1.Pod, nodes map[string]*corev1.Node, instances map[string]Instance) {
	if p.Spec.NodeName == "" {
		return
	}
	key := pods.Key(p)
	n, ok := nodes[p.Spec.NodeName]
	if inst, managed := instances[nodeProviderID(n)]; !ok || managed && !inst.Running() {
		s.done(s.k.api.deletePod(key, ptr.To[int64](0)))
		return
	}
	if p.DeletionTimestamp != nil {
		grace := time.Duration(ptr.Deref(p.DeletionGracePeriodSeconds, 0)) * time.Second
		requested := p.DeletionTimestamp.Add(-grace)
		if !s.now.Before(requested.Add(min(grace, s.k.opts.PodTerminationDelay))) {
			s.done(s.k.api.deletePod(key, ptr.To[int64](0)))
		}
		return
	}
	if p.Status.Phase != corev1.PodPending || nodeReadyStatus(n) != corev1.ConditionTrue {
		return
	}
	_, err := s.k.api.UpdatePodStatus(s.ctx, p.Namespace, p.Name, func(p *corev1.Pod) error {
		p.Status.Phase = corev1.PodRunning
		p.Status.StartTime = &metav1.Time{Time: s.now}
		for _, t := range []corev1.PodConditionType{corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
			setPodCondition(p, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue}, s.now)
		}
		return nil
	})
	s.done(err)
}

// NodeName is the name of an instance's Node: EC2's resource-based hostname, as in
// i-1.ec2.internal (us-east-1) or i-1.us-west-2.compute.internal.
func NodeName(inst Instance) string {
	if r := region(inst.Zone); r != "us-east-1" {
		return inst.ID + "." + r + ".compute.internal"
	}
	return inst.ID + ".ec2.internal"
}

// nodeFor is the Node an instance's kubelet registers, with the unregistered taint or without.
func nodeFor(inst Instance, now time.Time, unregisteredTaint bool) *corev1.Node {
	name := NodeName(inst)
	labels := maps.Clone(inst.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[corev1.LabelHostname] = name
	var taints []corev1.Taint
	if unregisteredTaint {
		taints = append(taints, karpv1.UnregisteredNoExecuteTaint())
	}
	for _, t := range slices.Concat(inst.Taints, inst.StartupTaints) {
		if !hasTaint(taints, t) {
			taints = append(taints, t)
		}
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{ProviderID: inst.ProviderID, Taints: taints},
		Status: corev1.NodeStatus{
			Capacity:    inst.Capacity.DeepCopy(),
			Allocatable: inst.Allocatable.DeepCopy(),
			NodeInfo:    corev1.NodeSystemInfo{Architecture: labels[corev1.LabelArchStable], OperatingSystem: string(corev1.Linux)},
			Phase:       corev1.NodeRunning,
		},
	}
	setNodeReady(n, corev1.ConditionFalse, "KubeletNotReady", "container runtime network not ready", now)
	return n
}

func nodeProviderID(n *corev1.Node) string {
	if n == nil {
		return ""
	}
	return n.Spec.ProviderID
}

// nodeReadyStatus is the status of a node's Ready condition ("" without one).
func nodeReadyStatus(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

// setNodeReady sets a node's Ready condition.
func setNodeReady(n *corev1.Node, status corev1.ConditionStatus, reason, message string, now time.Time) {
	c := corev1.NodeCondition{Type: corev1.NodeReady, Status: status, Reason: reason, Message: message,
		LastHeartbeatTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(now)}
	for i, old := range n.Status.Conditions {
		if old.Type == corev1.NodeReady {
			n.Status.Conditions[i] = c
			return
		}
	}
	n.Status.Conditions = append(n.Status.Conditions, c)
}

// hasTaint reports whether taints hold one with t's key and effect.
func hasTaint(taints []corev1.Taint, t corev1.Taint) bool {
	return slices.ContainsFunc(taints, func(h corev1.Taint) bool { return h.MatchTaint(&t) })
}
