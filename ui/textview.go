package ui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/nodepilot/nodepilot/ui/draw"
	"github.com/nodepilot/nodepilot/ui/keymap"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/render"
)

// textView shows a text (describe, YAML, explain, help) that scrolls. A source, when set, is
// rendered anew for every frame off the UI goroutine, so that countdowns stay live.
type textView struct {
	*tview.Box
	name, title string
	source      func(*model.World) render.Text
	text        render.Text
	offset      int
	pal         *palette
}

func newTextView(name, title string, pal *palette, source func(*model.World) render.Text) *textView {
	return &textView{Box: tview.NewBox(), name: name, title: title, source: source, pal: pal,
		text: render.Text{{{Text: "loading…", Tone: render.ToneCompleted}}}}
}

func (v *textView) crumb() string                                { return v.name }
func (v *textView) keys(*Console) keymap.Map                     { return nil }
func (v *textView) active() *pane                                { return nil }
func (v *textView) point(int, int) *pane                         { return nil }
func (v *textView) setPalette(pal *palette)                      { v.pal = pal }
func (v *textView) setSource(src func(*model.World) render.Text) { v.source = src }

func (v *textView) plans() []plan {
	src := v.source
	if src == nil {
		return nil
	}
	return []plan{func(w *model.World) func() {
		t := src(w)
		return func() { v.text = t }
	}}
}

// Draw implements tview.Primitive.
func (v *textView) Draw(screen tcell.Screen) {
	x, y, w, h := v.GetRect()
	ix, iy, iw, ih := draw.Box(screen, x, y, w, h, v.pal.border(true), []draw.Span{draw.Text(" "+v.title+" ", v.pal.title(titleKind))})
	v.offset = max(0, min(v.offset, len(v.text)-ih))
	body := v.pal.body()
	for i := range ih {
		spans := []draw.Span{draw.Text(" ", body)}
		if j := v.offset + i; j < len(v.text) {
			for _, s := range v.text[j] {
				spans = append(spans, draw.Text(s.Text, v.pal.text(s.Tone)))
			}
		}
		draw.Line(screen, ix, iy+i, iw, body, spans)
	}
}

// InputHandler implements tview.Primitive: scrolling.
func (v *textView) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		_, _, _, h := v.GetInnerRect()
		page := max(1, h-2)
		switch ev.Key() {
		case tcell.KeyUp:
			v.offset--
		case tcell.KeyDown:
			v.offset++
		case tcell.KeyPgUp, tcell.KeyCtrlB:
			v.offset -= page
		case tcell.KeyPgDn, tcell.KeyCtrlF:
			v.offset += page
		case tcell.KeyHome:
			v.offset = 0
		case tcell.KeyEnd:
			v.offset = len(v.text)
		case tcell.KeyRune:
			switch ev.Rune() {
			case 'k':
				v.offset--
			case 'j':
				v.offset++
			case 'g':
				v.offset = 0
			case 'G':
				v.offset = len(v.text)
			case ' ':
				v.offset += page
			}
		}
		v.offset = max(0, v.offset)
	}
}
