package ui

import (
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/nodepilot/nodepilot/ui/model"
)

// tableKeys are the keys of a pane, by its kind: drill down, describe, YAML, explain, the node
// actions, and one Shift-letter per sortable column.
func (c *Console) tableKeys(p *pane) keymap {
	if p == nil {
		return nil
	}
	k := p.spec.Kind
	name, help := enterKey(k)
	km := keymap{{key: codeKey(tcell.KeyEnter), name: name, help: help, hint: true, do: func() { c.enter(p) }}}
	if k != model.KindSkins && k != model.KindContexts {
		km = append(km, action{key: runeKey('d'), name: "describe", help: "describe the selected object", hint: true, do: func() { c.describe(p) }})
	}
	if k != model.KindSkins && k != model.KindContexts && k != model.KindRightSizing {
		km = append(km, action{key: runeKey('y'), name: "yaml", help: "the selected object's YAML", hint: true, do: func() { c.yaml(p) }})
	}
	switch k {
	case model.KindPending, model.KindPods, model.KindNodes, model.KindNodePools, model.KindNodeClaims, model.KindTouched:
		km = append(km, action{key: runeKey('x'), name: "explain", hint: true, do: func() { c.explain(p) },
			help: "explain: why a pod is pending (per NodePool), why a node is or is not disrupted, what a NodePool's budgets allow now"})
	}
	switch k {
	case model.KindPods, model.KindPending, model.KindTouched:
		// Hinted in pod tables only: the dashboard's hint line is full; the help lists them.
		hint := k == model.KindPods
		km = append(km, action{key: runeKey('l'), name: "logs", help: "the selected pod's logs (picks a container when it has several)", hint: hint, do: func() { c.openLogs(p) }},
			action{key: runeKey('s'), name: "shell", help: "a shell in the selected pod's container (bash, else sh), as kubectl exec -it; exit comes back", perm: permWrite, hint: hint, do: func() { c.openShell(p) }})
	}
	switch k {
	case model.KindNodes, model.KindNodeClaims, model.KindTouched:
		km = append(km,
			action{key: runeKey('c'), name: "cordon", help: "cordon the selected node", perm: permWrite, hint: true, do: func() { c.cordon(p, true) }},
			action{key: runeKey('u'), name: "uncordon", help: "uncordon the selected node", perm: permWrite, hint: true, do: func() { c.cordon(p, false) }},
			action{key: runeKey('r'), name: "drain", help: "drain the selected node (asks first)", perm: permWrite, hint: true, do: func() { c.drain(p) }},
			action{key: codeKey(tcell.KeyCtrlD), name: "delete", help: "delete the selected node's NodeClaim (asks first)", perm: permWrite, hint: true, do: func() { c.deleteClaim(p) }},
		)
		if c.demo != nil {
			km = append(km, action{key: runeKey('i'), name: "interrupt", help: "demo: send a spot interruption for the selected spot node", perm: permSteer, hint: true, do: func() { c.interrupt(p) }})
		}
	}
	for i, col := range p.grid.columns {
		if col.Sort == 0 {
			continue
		}
		km = append(km, action{key: runeKey(col.Sort), name: "sort " + strings.ToLower(col.Name), help: "sort by " + col.Name + " (again: reverse)",
			sort: true, do: func() { c.sortBy(p, i) }})
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
