// Package prompt is the console's one-line input, for a command (":") or a filter ("/"): it
// suggests a completion, walks a history, and reports each change and the final text.
package prompt

import (
	"github.com/gdamore/tcell/v2"

	"github.com/nodepilot/nodepilot/ui/draw"
	"github.com/nodepilot/nodepilot/ui/skin"
)

// Kind says what a prompt reads.
type Kind uint8

const (
	// Command is the ":" prompt.
	Command Kind = iota
	// Filter is the "/" prompt.
	Filter
)

// Prompt is one open prompt. Tab or Right takes the suggestion, Up and Down walk the history,
// Enter and Esc close it.
type Prompt struct {
	kind    Kind
	text    []rune
	suggest func(text string) string
	history *History
	// histPos is the history entry shown (-1: what is being typed).
	histPos int
	typed   string
	// Invalid marks text the console cannot use (a bad regular expression); it draws in the
	// error color.
	Invalid bool
	// Changed is called after each edit; Done when the prompt closes (ok false on Esc).
	Changed func(text string)
	Done    func(text string, ok bool)
}

// New opens a prompt on text. suggest (may be nil) completes what is typed; history (may be nil)
// is walked with Up and Down.
func New(kind Kind, text string, suggest func(text string) string, history *History) *Prompt {
	return &Prompt{kind: kind, text: []rune(text), suggest: suggest, history: history, histPos: -1}
}

func (p *Prompt) String() string { return string(p.text) }

// Suggestion is the completion of the current text, or "".
func (p *Prompt) Suggestion() string {
	if p.suggest == nil || len(p.text) == 0 {
		return ""
	}
	return p.suggest(string(p.text))
}

// Handle edits the prompt with a key.
func (p *Prompt) Handle(ev *tcell.EventKey) {
	switch ev.Key() {
	case tcell.KeyEnter:
		p.Done(string(p.text), true)
		return
	case tcell.KeyEscape:
		p.Done(string(p.text), false)
		return
	case tcell.KeyTab, tcell.KeyRight:
		if s := p.Suggestion(); s != "" {
			p.text = append(p.text, []rune(s)...)
		}
	case tcell.KeyBackspace, tcell.KeyBackspace2:
		if len(p.text) > 0 {
			p.text = p.text[:len(p.text)-1]
		}
	case tcell.KeyCtrlU:
		p.text = p.text[:0]
	case tcell.KeyCtrlW:
		p.text = deleteWord(p.text)
	case tcell.KeyUp:
		p.walk(1)
	case tcell.KeyDown:
		p.walk(-1)
	case tcell.KeyRune:
		p.text = append(p.text, ev.Rune())
	default:
		return
	}
	if p.Changed != nil {
		p.Changed(string(p.text))
	}
}

// walk moves through the history: +1 is older.
func (p *Prompt) walk(step int) {
	if p.history == nil {
		return
	}
	if p.histPos == -1 {
		p.typed = string(p.text)
	}
	next := p.histPos + step
	if next < 0 {
		p.histPos, p.text = -1, []rune(p.typed)
		return
	}
	if s, ok := p.history.At(next); ok {
		p.histPos, p.text = next, []rune(s)
	}
}

func deleteWord(t []rune) []rune {
	i := len(t)
	for i > 0 && t[i-1] == ' ' {
		i--
	}
	for i > 0 && t[i-1] != ' ' {
		i--
	}
	return t[:i]
}

// Draw draws the prompt on one line in the skin's prompt colors: the sigil, the text, the
// suggestion and a cursor.
func (p *Prompt) Draw(screen tcell.Screen, x, y, w int, sk *skin.Skin) {
	s := sk.Prompt
	base := draw.Style(s.Fg, s.Bg)
	sigil := ":"
	if p.kind == Filter {
		sigil = "/"
	}
	text := base
	if p.Invalid {
		text = draw.Style(sk.Frame.Status.Error, s.Bg)
	}
	used := draw.PutSpans(screen, x, y, w, []draw.Span{draw.Text(" "+sigil, base.Bold(true)), draw.Text(string(p.text), text)})
	sug := p.Suggestion()
	if used < w {
		cur := ' '
		rest := ""
		if sug != "" {
			cur, rest = []rune(sug)[0], string([]rune(sug)[1:])
		}
		screen.SetContent(x+used, y, cur, nil, draw.Style(s.Bg, s.Fg))
		used++
		used += draw.Put(screen, x+used, y, w-used, rest, draw.Style(s.Suggest, s.Bg))
	}
	draw.Blank(screen, x+used, y, w-used, base)
}
