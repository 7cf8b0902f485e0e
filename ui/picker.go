package ui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodepilot/nodepilot/ui/draw"
	"github.com/nodepilot/nodepilot/ui/keymap"
)

// pickerView asks which of a few items to use (a pod's containers): Up and Down move, Enter
// picks, Esc goes back.
type pickerView struct {
	*tview.Box
	name, title string
	items       []string
	notes       []string
	selected    int
	pal         *palette
	pick        func(string)
}

func (v *pickerView) crumb() string           { return v.name }
func (v *pickerView) plans() []plan           { return nil }
func (v *pickerView) active() *pane           { return nil }
func (v *pickerView) point(int, int) *pane    { return nil }
func (v *pickerView) setPalette(pal *palette) { v.pal = pal }

func (v *pickerView) keys(*Console) keymap.Map {
	return keymap.Map{{Key: keymap.Code(tcell.KeyEnter), Name: "pick", Help: "use the selected container", Hint: true, Do: func() { v.pick(v.items[v.selected]) }}}
}

// Draw implements tview.Primitive.
func (v *pickerView) Draw(screen tcell.Screen) {
	x, y, w, h := v.GetRect()
	ix, iy, iw, ih := draw.Box(screen, x, y, w, h, v.pal.border(true), []draw.Span{draw.Text(" "+v.title+" ", v.pal.title(titleKind))})
	body := v.pal.body()
	for i := range ih {
		var spans []draw.Span
		if i < len(v.items) {
			st := body
			if i == v.selected {
				st = st.Reverse(true)
			}
			spans = []draw.Span{draw.Text(" "+v.items[i]+" ", st), draw.Text(v.notes[i], v.pal.title(titleCounter))}
		}
		draw.Line(screen, ix, iy+i, iw, body, spans)
	}
}

// InputHandler implements tview.Primitive: moving the selection.
func (v *pickerView) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		switch {
		case ev.Key() == tcell.KeyUp || ev.Key() == tcell.KeyRune && ev.Rune() == 'k':
			v.selected--
		case ev.Key() == tcell.KeyDown || ev.Key() == tcell.KeyRune && ev.Rune() == 'j':
			v.selected++
		}
		v.selected = max(0, min(v.selected, len(v.items)-1))
	}
}

// pickContainer calls use with the pod's container: at once when it has one, else after the
// operator picks one (init containers included, marked) in a picker that then gives way.
func (c *Console) pickContainer(what string, pod *corev1.Pod, use func(ctr string)) {
	var items, notes []string
	for _, ct := range pod.Spec.InitContainers {
		items, notes = append(items, ct.Name), append(notes, "init")
	}
	for _, ct := range pod.Spec.Containers {
		items, notes = append(items, ct.Name), append(notes, "")
	}
	switch len(items) {
	case 0:
		c.flash.warn("pod " + pod.Namespace + "/" + pod.Name + " has no containers")
		return
	case 1:
		use(items[0])
		return
	}
	key := pod.Namespace + "/" + pod.Name
	v := &pickerView{Box: tview.NewBox(), name: what + " " + key, title: "Container of " + key + " (" + what + ")", items: items, notes: notes, pal: c.pal}
	// The first app container, as kubectl picks by default.
	v.selected = len(pod.Spec.InitContainers)
	v.pick = func(ctr string) {
		c.views.pop()
		use(ctr)
	}
	c.views.push(v)
}

// withContainer runs open on the selected pod's container, picked when the pod has several
// (what names the action in the picker); without a selected pod it flashes need.
func (c *Console) withContainer(p *pane, need, what string, open func(namespace, pod, container string)) {
	s := selectionOf(p.selected())
	if s.pod == nil {
		c.flash.warn(need)
		return
	}
	ns, name := s.pod.Namespace, s.pod.Name
	c.pickContainer(what, s.pod, func(ctr string) { open(ns, name, ctr) })
}
