package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodepilot/nodepilot/engine/cloudprovider"
	"github.com/nodepilot/nodepilot/engine/scheduling"
	"github.com/nodepilot/nodepilot/ui/render"
)

// Plan is the stable shape of `nodepilot plan -o json|yaml` (documented in the README).
type Plan struct {
	NodeClaims    []NodeClaim     `json:"nodeClaims"`
	ExistingNodes []ExistingNode  `json:"existingNodes"`
	Unschedulable []Unschedulable `json:"unschedulable"`
	// Limits are the NodePools' limits against what the plan would have them hold.
	Limits            []Limit `json:"limits"`
	TotalPricePerHour float64 `json:"totalPricePerHour"`
	// SyntheticPrices is true when some price in the plan is a synthetic spot price.
	SyntheticPrices bool `json:"syntheticPrices"`
	// Notes are at most MaxNotes notes; NotesOmitted counts those left out.
	Notes        []string `json:"notes,omitempty"`
	NotesOmitted int      `json:"notesOmitted,omitempty"`
	// RightSizing is there with --usage.
	RightSizing *RightSizing `json:"rightSizing,omitempty"`
}

// MaxNotes bounds the notes a plan shows: manifests can hold any number of skipped objects, and
// a screenful of notes would bury the plan.
const MaxNotes = 100

// NodeClaim is a NodeClaim the plan would launch.
type NodeClaim struct {
	NodePool string `json:"nodePool"`
	// InstanceType is the type it would launch first; InstanceTypeOptions all it may launch,
	// cheapest first.
	InstanceType        string   `json:"instanceType"`
	InstanceTypeOptions []string `json:"instanceTypeOptions"`
	CapacityType        string   `json:"capacityType"`
	Zone                string   `json:"zone"`
	PricePerHour        float64  `json:"pricePerHour"`
	// PriceSource is where the price comes from: catalog (on-demand list price) or synthetic.
	PriceSource string   `json:"priceSource"`
	Pods        []string `json:"pods"`
	// Requests sums the pods' requests.
	Requests corev1.ResourceList `json:"requests"`
	// Static marks a node a static NodePool launches for its replicas, not for pods.
	Static bool `json:"static,omitempty"`
	// StoppedShortOf is the larger type a price cliff (--price-cliff) kept it from growing into.
	StoppedShortOf *scheduling.PriceCliffStop `json:"stoppedShortOf,omitempty"`
}

// ExistingNode lists the pods the plan puts on a node that exists.
type ExistingNode struct {
	Node string   `json:"node"`
	Pods []string `json:"pods"`
}

// Unschedulable is a pod the plan cannot place, with a reason per NodePool.
type Unschedulable struct {
	Pod     string   `json:"pod"`
	Reasons []Reason `json:"reasons"`
}

// Reason is why one NodePool cannot take the pod.
type Reason struct {
	NodePool string `json:"nodePool,omitempty"`
	// Reason is a short CamelCase code such as TaintNotTolerated or InsufficientResources.
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// From builds the stable plan from the solve of a problem: the static NodePools' nodes first
// (with the pods the solve put on them), then the NodeClaims launched for pods.
func From(pr *Problem, r *scheduling.Results, notes []string) *Plan {
	static := pr.Static
	p := &Plan{NodeClaims: []NodeClaim{}, ExistingNodes: []ExistingNode{}, Unschedulable: []Unschedulable{}, Limits: limits(pr.Input, r)}
	p.Notes, p.NotesOmitted = notes[:min(len(notes), MaxNotes)], max(len(notes)-MaxNotes, 0)
	// The solve places pods on a static NodePool's planned nodes as on existing ones.
	existing := map[string][]*corev1.Pod{}
	for _, n := range r.ExistingNodes {
		existing[n.Name] = n.Pods
	}
	total := r.TotalPricePerHour()
	for _, st := range static {
		out := p.nodeClaim(st.NodeClaim, existing[st.Name])
		out.Static, out.Requests = true, requestsOf(existing[st.Name])
		p.NodeClaims = append(p.NodeClaims, out)
		total += st.NodeClaim.PricePerHour()
		delete(existing, st.Name)
	}
	for _, nc := range r.NewNodeClaims {
		out := p.nodeClaim(nc, nc.Pods)
		out.Requests = nc.Requests
		p.NodeClaims = append(p.NodeClaims, out)
	}
	for _, n := range r.ExistingNodes {
		if _, ok := existing[n.Name]; ok {
			p.ExistingNodes = append(p.ExistingNodes, ExistingNode{Node: n.Name, Pods: podNames(n.Pods)})
		}
	}
	for _, pe := range r.Unschedulable {
		u := Unschedulable{Pod: pe.Pod.Namespace + "/" + pe.Pod.Name}
		for _, reason := range pe.Reasons {
			u.Reasons = append(u.Reasons, Reason{NodePool: reason.NodePool, Reason: reason.Code, Message: reason.Message, Hint: reason.Hint})
		}
		p.Unschedulable = append(p.Unschedulable, u)
	}
	p.TotalPricePerHour = roundCents(total)
	return p
}

// nodeClaim describes a planned NodeClaim with the pods placed on it.
func (p *Plan) nodeClaim(nc *scheduling.NodeClaim, placed []*corev1.Pod) NodeClaim {
	out := NodeClaim{NodePool: nc.NodePool, CapacityType: nc.Offering.CapacityType, Zone: nc.Offering.Zone,
		PricePerHour: nc.PricePerHour(), PriceSource: nc.Offering.PriceSource.Kind, Pods: podNames(placed)}
	if nc.InstanceType != nil {
		out.InstanceType = nc.InstanceType.Name
	}
	for _, it := range nc.InstanceTypes {
		out.InstanceTypeOptions = append(out.InstanceTypeOptions, it.Name)
	}
	if c := nc.StoppedAt; c != nil {
		out.StoppedShortOf = &scheduling.PriceCliffStop{InstanceType: c.InstanceType, Ratio: math.Round(c.Ratio*100) / 100}
	}
	p.SyntheticPrices = p.SyntheticPrices || nc.Offering.PriceSource.Synthetic()
	return out
}

func podNames(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Namespace + "/" + p.Name
	}
	slices.Sort(out)
	return out
}

func roundCents(v float64) float64 {
	return float64(int64(v*10000+0.5)) / 10000
}

// Formats are the output formats Render knows.
func Formats() []string { return []string{"table", "json", "yaml"} }

// Render writes the plan in a format: table, json or yaml.
func Render(w io.Writer, p *Plan, format string) error {
	return write(w, p, format, func() error { return renderTable(w, p) })
}

// write writes v as JSON or YAML, or as table writes it.
func write(w io.Writer, v any, format string, table func() error) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "yaml":
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case "table":
		return table()
	}
	return fmt.Errorf("unknown output format %q: use one of %s", format, strings.Join(Formats(), ", "))
}

func renderTable(w io.Writer, p *Plan) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "NODECLAIMS TO LAUNCH (%d)\n", len(p.NodeClaims))
	if len(p.NodeClaims) > 0 {
		fmt.Fprintln(tw, "NODEPOOL\tINSTANCE TYPE\tOPTIONS\tCAPACITY\tZONE\t$/HOUR\tPODS\tCPU\tMEMORY")
		for _, nc := range p.NodeClaims {
			pool := nc.NodePool
			if nc.Static {
				pool += " (static)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%d\t%s\t%s\n", pool, nc.InstanceType, len(nc.InstanceTypeOptions),
				nc.CapacityType, nc.Zone, price(nc.PricePerHour, nc.PriceSource), len(nc.Pods), quantity(nc.Requests, corev1.ResourceCPU),
				quantity(nc.Requests, corev1.ResourceMemory))
		}
	}
	if len(p.ExistingNodes) > 0 {
		fmt.Fprintf(tw, "\nPODS ON EXISTING NODES (%d nodes)\nNODE\tPODS\n", len(p.ExistingNodes))
		for _, n := range p.ExistingNodes {
			fmt.Fprintf(tw, "%s\t%s\n", n.Node, strings.Join(n.Pods, ", "))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(p.Limits) > 0 {
		fmt.Fprintln(tw, "\nNODEPOOL LIMITS\nNODEPOOL\tRESOURCE\tPLANNED\tLIMIT\tSTATE")
		for _, l := range p.Limits {
			reached := "within"
			if l.Reached {
				reached = "pods refused at its limits"
			}
			// As the console writes them: 1000 beside 1000 rather than 1k, 1850Gi rather than 1939865600Ki.
			planned, limit := l.Planned.String(), l.Limit.String()
			switch corev1.ResourceName(l.Resource) {
			case corev1.ResourceCPU:
				planned, limit = render.CPU(l.Planned.MilliValue()), render.CPU(l.Limit.MilliValue())
			case corev1.ResourceMemory:
				planned, limit = render.Mem(l.Planned.Value()), render.Mem(l.Limit.Value())
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", l.NodePool, l.Resource, planned, limit, reached)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(p.Unschedulable) > 0 {
		fmt.Fprintf(w, "\nUNSCHEDULABLE PODS (%d)\n", len(p.Unschedulable))
		for _, u := range p.Unschedulable {
			fmt.Fprintf(w, "%s\n", u.Pod)
			for _, r := range u.Reasons {
				pool := r.NodePool
				if pool == "" {
					pool = "-"
				}
				fmt.Fprintf(w, "  %s: %s: %s\n", pool, r.Reason, r.Message)
				if r.Hint != "" {
					fmt.Fprintf(w, "      fix: %s\n", r.Hint)
				}
			}
		}
	}
	nodes := "nodes"
	if len(p.NodeClaims) == 1 {
		nodes = "node"
	}
	fmt.Fprintf(w, "\nTOTAL %s/hour for %d new %s", dollars(p.TotalPricePerHour), len(p.NodeClaims), nodes)
	if p.SyntheticPrices {
		fmt.Fprint(w, " (* spot prices are synthetic estimates, not AWS quotes)")
	}
	fmt.Fprintln(w)
	if p.RightSizing != nil {
		if err := renderRightSizing(w, p.RightSizing); err != nil {
			return err
		}
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if p.NotesOmitted > 0 {
		fmt.Fprintf(w, "note: ... and %d more notes (not shown; -o json counts them in notesOmitted)\n", p.NotesOmitted)
	}
	return nil
}

func price(v float64, source string) string {
	if source == cloudprovider.PriceSynthetic {
		return dollars(v) + "*"
	}
	return dollars(v)
}

func dollars(v float64) string { return fmt.Sprintf("$%.4f", v) }

func quantity(l corev1.ResourceList, name corev1.ResourceName) string {
	q, ok := l[name]
	if !ok {
		return "0"
	}
	return q.String()
}
