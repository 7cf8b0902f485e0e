package ui

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
)

// tableArgs is what a table command's arguments ask for: a scope, a filter as "/" takes it, and
// the words of the title's scope.
type tableArgs struct {
	scope  model.Scope
	filter string
	title  []string
}

// zonePattern is the shape of an AWS availability zone's name (us-east-1a, ap-southeast-3b,
// us-gov-west-1a).
var zonePattern = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+[a-z]$`)

// capacityTypes are the values of karpenter.sh/capacity-type.
var capacityTypes = []string{karpv1.CapacityTypeSpot, karpv1.CapacityTypeOnDemand, karpv1.CapacityTypeReserved}

// table is the command that opens a kind's table, narrowed as its arguments say, as k9s's
// ":pods kube-system" or ":pods -l app=web" are.
func table(k model.Kind) func(c *Console, args []string) error {
	return func(c *Console, args []string) error {
		a, err := parseTableArgs(k, args, c.world)
		if err != nil {
			return err
		}
		if k == model.KindNodePools && a.scope.NodePool != "" {
			// A NodePool named: its nodes, as Enter on its row, with the NodePools behind.
			c.openKind(model.KindNodePools)
			c.drill(model.Spec{Kind: model.KindNodes, Scope: model.Scope{NodePool: a.scope.NodePool}}, a.scope.NodePool, "nodepool "+a.scope.NodePool)
			return nil
		}
		f, err := render.ParseFilter(a.filter)
		if err != nil {
			return err
		}
		spec := model.Spec{Kind: k, Scope: a.scope, Query: render.Query{Filter: f, Sort: render.Unsorted()}}
		c.views.reset(newTableView(spec, strings.Join(a.title, " "), string(k), c.pal))
		return nil
	}
}

// parseTableArgs reads a table command's arguments: "-l SELECTOR", "/REGEX", "-n NAMESPACE"
// (and a bare namespace) for pods, a capacity type, zone or NodePool for nodes and NodeClaims
// (several combine), a NodePool's name for NodePools. w, when not nil, names the NodePools
// there are.
func parseTableArgs(k model.Kind, args []string, w *model.World) (tableArgs, error) {
	var a tableArgs
	var selector []string
	pods := k == model.KindPods || k == model.KindPending
	nodes := k == model.KindNodes || k == model.KindNodeClaims
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "-l" || arg == "-n":
			if i+1 == len(args) {
				return a, fmt.Errorf("%s needs a value", arg)
			}
			i++
			if arg == "-l" {
				selector = append(selector, args[i])
				a.title = append(a.title, args[i])
				continue
			}
			if !pods {
				return a, fmt.Errorf("-n %s: only pods have namespaces", args[i])
			}
			a.scope.Namespace = args[i]
			a.title = append(a.title, args[i])
		case arg == "-A" || arg == "--all-namespaces":
			if !pods {
				return a, fmt.Errorf("%s: only pods have namespaces", arg)
			}
			a.scope.Namespace = ""
		case strings.HasPrefix(arg, "/"):
			if a.filter != "" {
				return a, fmt.Errorf("%s: one /REGEX at a time", arg)
			}
			a.filter = arg[1:]
			a.title = append(a.title, arg)
		case pods:
			a.scope.Namespace = arg
			a.title = append(a.title, arg)
		case nodes && slices.Contains(capacityTypes, arg):
			selector = append(selector, karpv1.CapacityTypeLabelKey+"="+arg)
			a.title = append(a.title, arg)
		case nodes && zonePattern.MatchString(arg):
			selector = append(selector, corev1.LabelTopologyZone+"="+arg)
			a.title = append(a.title, arg)
		case (nodes || k == model.KindNodePools) && (w == nil || hasPool(w, arg)):
			if k == model.KindNodePools && (a.scope.NodePool != "" || a.filter != "") {
				return a, fmt.Errorf("%s: one NodePool at a time", arg)
			}
			if nodes {
				selector = append(selector, karpv1.NodePoolLabelKey+"="+arg)
			} else {
				a.scope.NodePool = arg
			}
			a.title = append(a.title, arg)
		case nodes:
			return a, fmt.Errorf("%q is no capacity type (%s), zone or NodePool", arg, strings.Join(capacityTypes, ", "))
		case k == model.KindNodePools:
			return a, fmt.Errorf("no NodePool %q", arg)
		default:
			return a, fmt.Errorf("%q: this table takes -l SELECTOR or /REGEX", arg)
		}
	}
	if len(selector) > 0 {
		if a.filter != "" {
			return a, errors.New("a label selector and a /REGEX cannot filter together: pick one")
		}
		a.filter = "-l " + strings.Join(selector, ",")
	}
	return a, nil
}

// explainNamed explains what its one argument names: a pod (NAMESPACE/NAME, or a name one pod
// has), a node or a NodePool.
func explainNamed(c *Console, args []string) error {
	if len(args) != 1 {
		return errors.New("names one pod, node or NodePool")
	}
	name, w := args[0], c.world
	if w == nil {
		return errors.New("the cluster has not been read yet")
	}
	if pod := findPod(w, name); pod != nil {
		c.explainPod(pod)
		return nil
	}
	if w.Node(name) != nil {
		c.explainNode(name)
		return nil
	}
	if hasPool(w, name) {
		c.views.push(newTextView("explain "+name, "Explain NodePool "+name, c.pal, func(w *model.World) render.Text { return explainPool(w, name) }))
		return nil
	}
	return fmt.Errorf("no pod, node or NodePool named %q", name)
}

func hasPool(w *model.World, name string) bool {
	_, ok := w.Pool(name)
	return ok
}

// findPod finds a pod by NAMESPACE/NAME, or by a name only one pod has.
func findPod(w *model.World, name string) *corev1.Pod {
	if strings.Contains(name, "/") {
		return w.Pod(name)
	}
	var found *corev1.Pod
	for _, p := range w.Snapshot.Pods {
		if p.Name == name {
			if found != nil {
				return nil
			}
			found = p
		}
	}
	return found
}

// completeLine completes a command line: the command's name, then its last argument from what
// the cluster has (namespaces, NodePools, zones, capacity types, nodes) or, for :ctx, the
// kubeconfig's contexts.
func (c *Console) completeLine(text string) string {
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return ""
	}
	if len(fields) == 1 && !strings.HasSuffix(text, " ") {
		return complete(text)
	}
	cmd, ok := findCommand(fields[0])
	if ok && cmd.name == "ctx" {
		return c.completeContext(fields, text)
	}
	if !ok || strings.HasSuffix(text, " ") || c.world == nil {
		return ""
	}
	// The prompt asks on every frame while it is open: the words are gathered once per World.
	if c.candidates.world != c.world || c.candidates.command != cmd.name {
		c.candidates = candidates{world: c.world, command: cmd.name, words: argCandidates(cmd.name, c.world)}
	}
	last := fields[len(fields)-1]
	for _, cand := range c.candidates.words {
		if strings.HasPrefix(cand, last) && cand != last {
			return cand[len(last):]
		}
	}
	return ""
}

// candidates are the words a command's arguments may be, gathered from one World.
type candidates struct {
	world   *model.World
	command string
	words   []string
}

// argCandidates are the words a command's arguments may be, sorted.
func argCandidates(command string, w *model.World) []string {
	var out []string
	pools := func() {
		for _, p := range w.Pools {
			out = append(out, p.Pool.Name)
		}
	}
	switch command {
	case "pods", "pending":
		for _, p := range w.Snapshot.Pods {
			out = append(out, p.Namespace)
		}
	case "nodepools":
		pools()
	case "nodes", "nodeclaims":
		out = append(out, capacityTypes...)
		for _, n := range w.Nodes {
			out = append(out, n.Zone)
		}
		pools()
	case "explain":
		for _, n := range w.Nodes {
			out = append(out, n.Name)
		}
		pools()
		for _, p := range w.Snapshot.Pods {
			out = append(out, p.Namespace+"/"+p.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
