package ui

import (
	"github.com/gdamore/tcell/v2"
)

// promptKind says what a prompt reads.
type promptKind uint8

const (
	promptCommand promptKind = iota
	promptFilter
)

// prompt is the one-line command (":") or filter ("/") input: it suggests a completion
// (Tab or Right takes it), walks the history with Up and Down, and reports each change and the
// final text.
type prompt struct {
	kind    promptKind
	text    []rune
	suggest func(text string) string
	history *history
	// histPos is the history entry shown (-1: what is being typed).
	histPos int
	typed   string
	// invalid marks text the console cannot use (a bad regular expression); it draws in the
	// error color.
	invalid bool
	// changed is called after each edit; done when the prompt closes (ok false on Esc).
	changed func(text string)
	done    func(text string, ok bool)
}

func (p *prompt) String() string { return string(p.text) }

// suggestion is the completion of the current text, or "".
func (p *prompt) suggestion() string {
	if p.suggest == nil || len(p.text) == 0 {
		return ""
	}
	return p.suggest(string(p.text))
}

// handle edits the prompt with a key.
func (p *prompt) handle(ev *tcell.EventKey) {
	switch ev.Key() {
	case tcell.KeyEnter:
		p.done(string(p.text), true)
		return
	case tcell.KeyEscape:
		p.done(string(p.text), false)
		return
	case tcell.KeyTab, tcell.KeyRight:
		if s := p.suggestion(); s != "" {
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
	if p.changed != nil {
		p.changed(string(p.text))
	}
}

// walk moves through the history: +1 is older.
func (p *prompt) walk(step int) {
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
	if s, ok := p.history.at(next); ok {
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

// draw draws the prompt on one line: the sigil, the text, the suggestion and a cursor.
func (p *prompt) draw(screen tcell.Screen, x, y, w int, pal *palette) {
	s := pal.s.Prompt
	base := style(s.Fg, s.Bg)
	sigil := ":"
	if p.kind == promptFilter {
		sigil = "/"
	}
	text := base
	if p.invalid {
		text = style(pal.s.Frame.Status.Error, s.Bg)
	}
	used := putSpans(screen, x, y, w, []span{{" " + sigil, base.Bold(true)}, {string(p.text), text}})
	sug := p.suggestion()
	if used < w {
		cur := ' '
		rest := ""
		if sug != "" {
			cur, rest = []rune(sug)[0], string([]rune(sug)[1:])
		}
		screen.SetContent(x+used, y, cur, nil, style(s.Bg, s.Fg))
		used++
		used += put(screen, x+used, y, w-used, rest, style(s.Suggest, s.Bg))
	}
	blank(screen, x+used, y, w-used, base)
}
