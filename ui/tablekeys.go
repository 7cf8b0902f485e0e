package ui

import (
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/nodepilot/nodepilot/ui/keymap"
	"github.com/nodepilot/nodepilot/ui/model"
)

// tableKeys are the keys of a pane, by its kind: drill down, describe, YAML, explain, the node
// actions, and one Shift-letter per sortable column.
func (c *Console) tableKeys(p *pane) keymap.Map {
	if p == nil {
		return nil
	}
	k := p.spec.Kind
	name, help := enterKey(k)
	km := keymap.Map{{Key: keymap.Code(tcell.KeyEnter), Name: name, Help: help, Hint: true, Do: func() { c.enter(p) }}}
	if k != model.KindSkins && k != model.KindContexts {
		km = append(km, keymap.Action{Key: keymap.Rune('d'), Name: "describe", Help: "describe the selected object", Hint: true, Do: func() { c.describe(p) }})
	}
	if k != model.KindSkins && k != model.KindContexts && k != model.KindRightSizing {
		km = append(km, keymap.Action{Key: keymap.Rune('y'), Name: "yaml", Help: "the selected object's YAML", Hint: true, Do: func() { c.yaml(p) }})
	}
	switch k {
	case model.KindPending, model.KindPods, model.KindNodes, model.KindNodePools, model.KindNodeClaims, model.KindTouched:
		km = append(km, keymap.Action{Key: keymap.Rune('x'), Name: "explain", Hint: true, Do: func() { c.explain(p) },
			Help: "explain: why a pod is pending (per NodePool), why a node is or is not disrupted, what a NodePool's budgets allow now"})
	}
	switch k {
	case model.KindPods, model.KindPending, model.KindTouched:
		// Hinted in pod tables only: the dashboard's hint line is full; the help lists them.
		hint := k == model.KindPods
		km = append(km, keymap.Action{Key: keymap.Rune('l'), Name: "logs", Help: "the selected pod's logs (picks a container when it has several)", Hint: hint, Do: func() { c.openLogs(p) }},
			keymap.Action{Key: keymap.Rune('s'), Name: "shell", Help: "a shell in the selected pod's container (bash, else sh), as kubectl exec -it; exit comes back", Perm: keymap.Write, Hint: hint, Do: func() { c.openShell(p) }})
	}
	switch k {
	case model.KindNodes, model.KindNodeClaims, model.KindTouched:
		km = append(km,
			keymap.Action{Key: keymap.Rune('c'), Name: "cordon", Help: "cordon the selected node", Perm: keymap.Write, Hint: true, Do: func() { c.cordon(p, true) }},
			keymap.Action{Key: keymap.Rune('u'), Name: "uncordon", Help: "uncordon the selected node", Perm: keymap.Write, Hint: true, Do: func() { c.cordon(p, false) }},
			keymap.Action{Key: keymap.Rune('r'), Name: "drain", Help: "drain the selected node (asks first)", Perm: keymap.Write, Hint: true, Do: func() { c.drain(p) }},
			keymap.Action{Key: keymap.Code(tcell.KeyCtrlD), Name: "delete", Help: "delete the selected node's NodeClaim (asks first)", Perm: keymap.Write, Hint: true, Do: func() { c.deleteClaim(p) }},
		)
		if c.demo != nil {
			km = append(km, keymap.Action{Key: keymap.Rune('i'), Name: "interrupt", Help: "demo: send a spot interruption for the selected spot node", Perm: keymap.Steer, Hint: true, Do: func() { c.interrupt(p) }})
		}
	}
	for i, col := range p.grid.columns {
		if col.Sort == 0 {
			continue
		}
		km = append(km, keymap.Action{Key: keymap.Rune(col.Sort), Name: "sort " + strings.ToLower(col.Name), Help: "sort by " + col.Name + " (again: reverse)",
			Sort: true, Do: func() { c.sortBy(p, i) }})
	}
	return km
}

// enterKey names what Enter does in a view of kind k, and says it for the help screen.
func enterKey(k model.Kind) (name, help string) {
	switch k {
	case model.KindNodePools:
		return "nodes", "the NodePool's nodes"
	case model.KindNodes, model.KindNodeClaims:
		return "pods", "the node's pods"
	case model.KindDecisions, model.KindInterruptions, model.KindEvents:
		return "objects", "the nodes and pods the entry touched"
	case model.KindSkins:
		return "use skin", "use the selected skin"
	case model.KindContexts:
		return "switch", "switch to the selected context (asks first when the autoscaler would act on its cluster)"
	case model.KindPending:
		return "explain", "why the pod is pending"
	case model.KindRightSizing:
		return "describe", "how the workload's fit is computed, and the command that applies it"
	}
	return "open", "open the selected object"
}
