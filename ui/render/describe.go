package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodepilot/nodepilot/engine/journal"
	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
)

// DescribePod is kubectl describe's gist for a pod.
func DescribePod(p *corev1.Pod, now time.Time) Text {
	var w Writer
	status, _ := PodStatus(p)
	cpu, mem := PodRequests(p)
	w.Field(0, "Name", p.Name).Field(0, "Namespace", p.Namespace)
	w.Field(0, "Node", orNone(p.Spec.NodeName)).Field(0, "Status", status)
	w.Field(0, "Created", created(p.CreationTimestamp, now))
	w.Field(0, "Requests", fmt.Sprintf("cpu %s, memory %s", CPU(cpu), Mem(mem)))
	if len(p.OwnerReferences) > 0 {
		o := p.OwnerReferences[0]
		w.Field(0, "Controlled By", o.Kind+"/"+o.Name)
	}
	if p.Spec.PriorityClassName != "" {
		w.Field(0, "Priority Class", p.Spec.PriorityClassName)
	}
	stringMap(&w, "Labels", p.Labels)
	stringMap(&w, "Annotations", p.Annotations)
	stringMap(&w, "Node-Selectors", p.Spec.NodeSelector)
	if len(p.Spec.Tolerations) > 0 {
		w.Add("Tolerations", ToneKey).Add(":", ToneColon).End()
		for _, t := range p.Spec.Tolerations {
			w.Para(2, toleration(t), ToneValue)
		}
	}
	w.Add("Containers", ToneKey).Add(":", ToneColon).End()
	for _, c := range p.Spec.Containers {
		ccpu, cmem := Resources(c.Resources.Requests)
		w.Para(2, c.Name+":", ToneKey)
		w.Field(4, "Image", c.Image).Field(4, "Requests", fmt.Sprintf("cpu %s, memory %s", CPU(ccpu), Mem(cmem)))
	}
	if len(p.Status.Conditions) > 0 {
		w.Add("Conditions", ToneKey).Add(":", ToneColon).End()
		for _, c := range p.Status.Conditions {
			w.Field(2, string(c.Type), strings.TrimSpace(fmt.Sprintf("%s %s %s", c.Status, c.Reason, c.Message)))
		}
	}
	return w.Text()
}

// DescribeNode is kubectl describe's gist for a node, with its NodeClaim, price and pods.
func DescribeNode(n *Node, now time.Time) Text {
	var w Writer
	status, _ := NodeStatus(n.State)
	w.Field(0, "Name", n.Name).Field(0, "Status", status)
	w.Field(0, "Instance", fmt.Sprintf("%s %s in %s", orNone(n.InstanceType), orNone(n.CapacityType), orNone(n.Zone)))
	w.Field(0, "NodePool", orNone(n.NodePool))
	if n.State.NodeClaim != nil {
		w.Field(0, "NodeClaim", n.State.NodeClaim.Name)
	}
	w.Field(0, "ProviderID", orNone(n.State.ProviderID()))
	price := "unknown"
	if n.Priced {
		price = Dollars(n.PerHour) + "/h (" + Monthly(n.PerHour) + "/month)"
	}
	w.Field(0, "Price", price)
	w.Field(0, "Created", created(metav1.NewTime(n.Created), now))
	w.Field(0, "Allocated", fmt.Sprintf("cpu %s of %s (%s), memory %s of %s (%s), %d pods",
		CPU(n.CPUReq), CPU(n.CPUAlloc), Percent(float64(n.CPUReq), float64(n.CPUAlloc)),
		Mem(n.MemReq), Mem(n.MemAlloc), Percent(float64(n.MemReq), float64(n.MemAlloc)), n.Pods))
	if n.Blocked != "" {
		w.Field(0, "Not disrupted", blocker(n, now))
	}
	stringMap(&w, "Labels", n.State.Labels())
	if n.State.Node != nil {
		stringMap(&w, "Annotations", n.State.Node.Annotations)
	}
	if taints := n.State.Taints(); len(taints) > 0 {
		w.Add("Taints", ToneKey).Add(":", ToneColon).End()
		for _, t := range taints {
			w.Para(2, taint(t), ToneValue)
		}
	}
	if n.State.Node != nil && len(n.State.Node.Status.Conditions) > 0 {
		w.Add("Conditions", ToneKey).Add(":", ToneColon).End()
		for _, c := range n.State.Node.Status.Conditions {
			w.Field(2, string(c.Type), strings.TrimSpace(string(c.Status)+" "+c.Reason))
		}
	}
	if len(n.State.Pods) > 0 {
		w.Add("Pods", ToneKey).Add(":", ToneColon).End()
		for _, p := range n.State.Pods {
			cpu, mem := PodRequests(p)
			w.Para(2, fmt.Sprintf("%-50s cpu %-6s memory %s", p.Namespace+"/"+p.Name, CPU(cpu), Mem(mem)), ToneValue)
		}
	}
	return w.Text()
}

// DescribeNodePool is the gist of a NodePool.
func DescribeNodePool(p NodePool, now time.Time) Text {
	var w Writer
	np := p.Pool
	w.Field(0, "Name", np.Name).Field(0, "Created", created(np.CreationTimestamp, now))
	if ref := np.Spec.Template.Spec.NodeClassRef; ref != nil {
		w.Field(0, "NodeClass", ref.Kind+"/"+ref.Name)
	}
	if np.Spec.Weight != nil {
		w.Field(0, "Weight", itoa(int(*np.Spec.Weight)))
	}
	w.Field(0, "Nodes", itoa(p.Nodes)).Field(0, "Cost", Dollars(p.PerHour)+"/h ("+Monthly(p.PerHour)+"/month)")
	if len(np.Spec.Limits) > 0 {
		w.Add("Limits", ToneKey).Add(":", ToneColon).End()
		for _, name := range slices.Sorted(maps.Keys(np.Spec.Limits)) {
			q := np.Spec.Limits[name]
			w.Field(2, string(name), q.String())
		}
	}
	w.Add("Requirements", ToneKey).Add(":", ToneColon).End()
	for _, r := range np.Spec.Template.Spec.Requirements {
		w.Para(2, fmt.Sprintf("%s %s %s", r.Key, r.Operator, strings.Join(r.Values, ",")), ToneValue)
	}
	for _, t := range np.Spec.Template.Spec.Taints {
		w.Field(0, "Taint", taint(t))
	}
	w.Add("Disruption", ToneKey).Add(":", ToneColon).End()
	w.Field(2, "consolidationPolicy", orNone(string(np.Spec.Disruption.ConsolidationPolicy)))
	w.Field(2, "consolidateAfter", after(np.Spec.Disruption.ConsolidateAfter))
	w.Field(2, "budgets", Budgets(np.Spec.Disruption.Budgets))
	w.Field(0, "ExpireAfter", after(np.Spec.Template.Spec.ExpireAfter))
	if len(np.Status.Conditions) > 0 {
		w.Add("Conditions", ToneKey).Add(":", ToneColon).End()
		for _, c := range np.Status.Conditions {
			w.Field(2, c.Type, strings.TrimSpace(string(c.Status)+" "+c.Reason))
		}
	}
	return w.Text()
}

// DescribeNodeClaim is the gist of a NodeClaim.
func DescribeNodeClaim(nc *karpv1.NodeClaim, now time.Time) Text {
	var w Writer
	state, _ := ClaimState(nc)
	w.Field(0, "Name", nc.Name).Field(0, "State", state).Field(0, "Created", created(nc.CreationTimestamp, now))
	w.Field(0, "Node", orNone(nc.Status.NodeName)).Field(0, "ProviderID", orNone(nc.Status.ProviderID))
	stringMap(&w, "Labels", nc.Labels)
	cpu, mem := Resources(nc.Spec.Resources.Requests)
	w.Field(0, "Requests", fmt.Sprintf("cpu %s, memory %s", CPU(cpu), Mem(mem)))
	cpu, mem = Resources(nc.Status.Allocatable)
	w.Field(0, "Allocatable", fmt.Sprintf("cpu %s, memory %s", CPU(cpu), Mem(mem)))
	if len(nc.Status.Conditions) > 0 {
		w.Add("Conditions", ToneKey).Add(":", ToneColon).End()
		for _, c := range nc.Status.Conditions {
			w.Field(2, c.Type, strings.TrimSpace(fmt.Sprintf("%s %s %s", c.Status, c.Reason, c.Message)))
		}
	}
	return w.Text()
}

// DescribeEntry shows every field of a journal entry.
func DescribeEntry(e *journal.Entry, now time.Time) Text {
	var w Writer
	w.Field(0, "Seq", fmt.Sprint(e.Seq)).Field(0, "Time", e.Time.UTC().Format(time.RFC3339)+" ("+Age(now, e.Time)+" ago)")
	w.Field(0, "Kind", string(e.Kind))
	field := func(name, v string) {
		if v != "" {
			w.Field(0, name, v)
		}
	}
	field("Method", e.Method)
	field("Reason", string(e.Reason))
	field("Message", e.Message)
	field("NodePool", e.NodePool)
	field("Decision", e.Decision)
	field("NodeClaims", strings.Join(e.NodeClaims, ", "))
	field("Nodes", strings.Join(e.Nodes, ", "))
	field("Replacements", strings.Join(e.Replacements, ", "))
	if e.PriceBefore != 0 || e.PriceAfter != 0 {
		w.Field(0, "Price", fmt.Sprintf("%s/h before, %s/h after: saves %s/h (%s/month)",
			Dollars(e.PriceBefore), Dollars(e.PriceAfter), Dollars(e.Saving()), Monthly(e.Saving())))
	}
	if !e.Until.IsZero() {
		w.Field(0, "Until", e.Until.UTC().Format(time.RFC3339)+" ("+Countdown(now, e.Until)+")")
	}
	if e.DryRun {
		w.Field(0, "DryRun", "true (the autoscaler would have done this)")
	}
	if len(e.Pods) > 0 {
		w.Add("Pods", ToneKey).Add(":", ToneColon).End()
		for _, p := range e.Pods {
			w.Para(2, p, ToneValue)
		}
	}
	return w.Text()
}

func created(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return None
	}
	return t.UTC().Format(time.RFC3339) + " (" + Age(now, t.Time) + " ago)"
}

func stringMap(w *Writer, name string, m map[string]string) {
	if len(m) == 0 {
		w.Field(0, name, "<none>")
		return
	}
	w.Add(name, ToneKey).Add(":", ToneColon).End()
	for _, k := range slices.Sorted(maps.Keys(m)) {
		w.Para(2, k+"="+m[k], ToneValue)
	}
}

func taint(t corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

func toleration(t corev1.Toleration) string {
	s := t.Key
	if t.Operator == corev1.TolerationOpExists {
		s += " exists"
	} else if t.Value != "" {
		s += "=" + t.Value
	}
	if t.Effect != "" {
		s += ":" + string(t.Effect)
	}
	if s == " exists" {
		return "everything"
	}
	return s
}
