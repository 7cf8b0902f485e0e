package ui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/nodepilot/nodepilot/ui/draw"
	"github.com/nodepilot/nodepilot/ui/keymap"
	"github.com/nodepilot/nodepilot/ui/prompt"
	"github.com/nodepilot/nodepilot/ui/render"
)

const (
	// logTail is how many of the last lines a log view starts with, as k9s's default.
	logTail = 100
	// logKeep bounds a log view's memory: it keeps the last logKeep lines of a stream.
	logKeep = 5000
	// logLineMax cuts lines longer than this many bytes (a JSON blob on one line), so one
	// line cannot take the memory logKeep bounds.
	logLineMax = 16 << 10
)

// logView streams one container's logs: follow (the view scrolls with new lines), wrap,
// timestamps, the previous instance, a "/" filter of its own and save. Its stream belongs to it:
// changing timestamps or previous restarts it, leaving the view (close) cancels it.
type logView struct {
	*tview.Box
	c                   *Console
	namespace, pod, ctr string
	opts                LogOptions
	pal                 *palette

	// Written by the stream's goroutine, under mu.
	mu     sync.Mutex
	lines  []string
	gen    uint64
	status string
	// notified is set while a redraw for new lines is posted and not yet run.
	notified atomic.Bool
	cancel   context.CancelFunc

	// UI goroutine.
	follow, wrap bool
	offset       int
	filter       render.Filter
	// rows are the lines drawn (filtered, wrapped) for the stream generation, filter and width
	// they were made for.
	rows                 []string
	rowsGen              uint64
	rowsFilter           string
	rowsWidth, rowsCount int
}

func newLogView(c *Console, namespace, pod, ctr string) *logView {
	return &logView{Box: tview.NewBox(), c: c, namespace: namespace, pod: pod, ctr: ctr, pal: c.pal, follow: true,
		opts: LogOptions{Container: ctr, Follow: true, TailLines: logTail}}
}

func (v *logView) crumb() string           { return "logs " + v.namespace + "/" + v.pod }
func (v *logView) plans() []plan           { return nil }
func (v *logView) active() *pane           { return nil }
func (v *logView) point(int, int) *pane    { return nil }
func (v *logView) setPalette(pal *palette) { v.pal = pal }

// keys are the log view's toggles; "/" and Esc come before the global ones, so they filter
// and clear the log lines.
func (v *logView) keys(c *Console) keymap.Map {
	return keymap.Map{
		{Key: keymap.Rune('/'), Name: "filter", Help: "filter the log lines: a regular expression, !regexp for the lines that do not match", Hint: true, Do: v.openFilter},
		{Key: keymap.Code(tcell.KeyEscape), Name: "back", Help: "clear the filter, else close the logs", Hint: true, Do: v.back},
		{Key: keymap.Rune('f'), Name: "follow", Help: "follow: scroll with new lines (on, off)", Hint: true, Do: func() { v.toggle(&v.follow, "follow") }},
		{Key: keymap.Rune('w'), Name: "wrap", Help: "wrap long lines (on, off)", Hint: true, Do: func() { v.toggle(&v.wrap, "wrap") }},
		{Key: keymap.Rune('t'), Name: "timestamps", Help: "prefix each line with its time (restarts the stream)", Hint: true, Do: func() { v.restartWith(func(o *LogOptions) { o.Timestamps = !o.Timestamps }) }},
		{Key: keymap.Rune('p'), Name: "previous", Help: "the previous instance's logs (a restarted container), or the current one again", Hint: true, Do: func() {
			v.restartWith(func(o *LogOptions) { o.Previous = !o.Previous; o.Follow = !o.Previous })
		}},
		{Key: keymap.Code(tcell.KeyCtrlS), Name: "save", Help: "save the lines shown to a file under " + c.opts.LogDir, Hint: true, Do: v.save},
	}
}

// start opens the stream with the view's options, replacing the one running. UI goroutine.
func (v *logView) start() {
	v.close()
	ctx, cancel := context.WithCancel(context.Background())
	v.mu.Lock()
	v.cancel = cancel
	v.lines, v.status = nil, "connecting"
	v.gen++
	gen := v.gen
	v.mu.Unlock()
	opts := v.opts
	go v.stream(ctx, gen, opts)
}

// close cancels the stream: the view is left.
func (v *logView) close() {
	v.mu.Lock()
	cancel := v.cancel
	v.cancel = nil
	v.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// stream reads the logs into the view until ctx ends or the stream does. A stream replaced by
// a newer one (gen) stops writing into the view.
func (v *logView) stream(ctx context.Context, gen uint64, opts LogOptions) {
	rc, err := v.c.backend.Logs(ctx, v.namespace, v.pod, opts)
	if err != nil {
		v.setStatus(gen, fmt.Sprintf("logs of %s/%s %s: %v", v.namespace, v.pod, v.ctr, err))
		return
	}
	defer rc.Close()
	v.setStatus(gen, "streaming")
	r := bufio.NewReaderSize(rc, 32<<10)
	for {
		text, err := r.ReadString('\n')
		if text != "" {
			if !v.add(gen, strings.TrimRight(text, "\r\n"), r.Buffered() == 0) {
				return
			}
		}
		switch {
		case err == nil:
			continue
		case errors.Is(err, io.EOF):
			v.setStatus(gen, "stream ended")
		case ctx.Err() != nil:
		default:
			v.setStatus(gen, "stream broke: "+err.Error())
		}
		return
	}
}

// add keeps a line (the last logKeep), and asks for a redraw when no more input is buffered.
// It reports false once the stream is replaced.
func (v *logView) add(gen uint64, text string, redraw bool) bool {
	if len(text) > logLineMax {
		text = text[:logLineMax] + "…"
	}
	v.mu.Lock()
	if gen != v.gen {
		v.mu.Unlock()
		return false
	}
	if len(v.lines) == 2*logKeep {
		// Dropping the oldest half at once keeps appends amortized O(1).
		v.lines = append(v.lines[:0:0], v.lines[logKeep:]...)
	}
	v.lines = append(v.lines, text)
	v.mu.Unlock()
	if redraw {
		v.redraw()
	}
	return true
}

func (v *logView) setStatus(gen uint64, status string) {
	v.mu.Lock()
	if gen == v.gen {
		v.status = status
	}
	v.mu.Unlock()
	v.redraw()
}

// redraw posts one redraw at a time for lines that arrive faster than frames.
func (v *logView) redraw() {
	if v.notified.CompareAndSwap(false, true) {
		v.c.posted.push(func() { v.notified.Store(false) })
	}
}

// kept are the last logKeep lines, and the stream's generation and status.
func (v *logView) kept() ([]string, uint64, string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	lines := v.lines
	if len(lines) > logKeep {
		lines = lines[len(lines)-logKeep:]
	}
	return lines, v.gen, v.status
}

// shown are the kept lines the filter keeps.
func (v *logView) shown(lines []string) []string {
	if v.filter.Empty() {
		return lines
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if v.filter.Match(&render.Row{Cells: []string{l}}) {
			out = append(out, l)
		}
	}
	return out
}

// rowsFor are the screen rows of the shown lines at a width, computed again only when the
// lines, the filter, the wrap or the width changed.
func (v *logView) rowsFor(width int) []string {
	lines, gen, _ := v.kept()
	if !v.wrap {
		width = 0
	}
	if v.rows != nil && gen == v.rowsGen && len(lines) == v.rowsCount && v.filter.Text() == v.rowsFilter && width == v.rowsWidth {
		return v.rows
	}
	shown := v.shown(lines)
	rows := shown
	if width > 0 {
		rows = make([]string, 0, len(shown))
		for _, l := range shown {
			rows = append(rows, wrapLine(l, width)...)
		}
	}
	v.rows, v.rowsGen, v.rowsCount, v.rowsFilter, v.rowsWidth = rows, gen, len(lines), v.filter.Text(), width
	return rows
}

// wrapLine cuts a line into rows of at most width runes.
func wrapLine(l string, width int) []string {
	r := []rune(l)
	if len(r) <= width {
		return []string{l}
	}
	var out []string
	for len(r) > width {
		out = append(out, string(r[:width]))
		r = r[width:]
	}
	return append(out, string(r))
}

// Draw implements tview.Primitive.
func (v *logView) Draw(screen tcell.Screen) {
	x, y, w, h := v.GetRect()
	_, _, status := v.kept()
	title := []draw.Span{draw.Text(" Logs ", v.pal.title(titleKind)), draw.Text(v.namespace+"/"+v.pod, v.pal.title(titleHighlight)),
		draw.Text(" ("+v.ctr+") ", v.pal.title(titleKind)), draw.Text("["+v.modes()+"] ", v.pal.title(titleCounter))}
	if t := v.filter.Text(); t != "" {
		title = append(title, draw.Text("</"+t+"> ", v.pal.title(titleFilter)))
	}
	ix, iy, iw, ih := draw.Box(screen, x, y, w, h, v.pal.border(true), title)
	body := v.pal.body()
	rows := v.rowsFor(iw - 1)
	ih-- // the last line says how the stream is
	if v.follow {
		v.offset = len(rows) - ih
	}
	v.offset = max(0, min(v.offset, len(rows)-ih))
	normal := v.pal.text(render.ToneNormal)
	for i := range ih {
		spans := []draw.Span{draw.Text(" ", body)}
		if j := v.offset + i; j < len(rows) {
			spans = append(spans, draw.Text(rows[j], normal))
		}
		draw.Line(screen, ix, iy+i, iw, body, spans)
	}
	tone := render.ToneCompleted
	if strings.Contains(status, ": ") {
		tone = render.ToneError
	}
	draw.Line(screen, ix, iy+ih, iw, body, []draw.Span{draw.Text(" ", body), draw.Text(fmt.Sprintf("%d lines, %s", len(rows), status), v.pal.text(tone))})
}

// modes says which toggles are on, as the title shows them.
func (v *logView) modes() string {
	on := map[bool]string{true: "on", false: "off"}
	return fmt.Sprintf("follow:%s wrap:%s timestamps:%s previous:%s", on[v.follow], on[v.wrap], on[v.opts.Timestamps], on[v.opts.Previous])
}

func (v *logView) toggle(b *bool, name string) {
	*b = !*b
	v.c.flash.info(name + " " + map[bool]string{true: "on", false: "off"}[*b])
}

// restartWith changes the stream's options and opens it again from the tail.
func (v *logView) restartWith(change func(*LogOptions)) {
	change(&v.opts)
	v.rows = nil
	v.start()
	v.c.flash.info("logs: " + v.modes())
}

// back clears the filter, else leaves the logs.
func (v *logView) back() {
	if !v.filter.Empty() {
		v.filter = render.Filter{}
		return
	}
	v.c.views.pop()
}

// openFilter opens the "/" prompt over the log lines; the lines follow the typing, Enter keeps
// the filter, Esc restores the previous one.
func (v *logView) openFilter() {
	previous := v.filter
	pr := prompt.New(prompt.Filter, previous.Text(), nil, nil)
	parse := func(text string) (render.Filter, error) {
		if s := strings.TrimSpace(text); s == "-l" || strings.HasPrefix(s, "-l ") {
			return render.Filter{}, fmt.Errorf("filter %q: log lines have no labels; type a regular expression", text)
		}
		return render.ParseFilter(text)
	}
	pr.Changed = func(text string) {
		f, err := parse(text)
		pr.Invalid = err != nil
		if err == nil {
			v.filter = f
		}
	}
	pr.Done = func(text string, ok bool) {
		v.c.prompt = nil
		if !ok {
			v.filter = previous
			return
		}
		f, err := parse(text)
		if err != nil {
			v.c.flash.err(err.Error())
			v.filter = previous
			return
		}
		v.filter = f
	}
	v.c.prompt = pr
}

// save writes the lines shown (the filter applies) to a new file under the console's log
// directory, off the UI goroutine, and flashes its path.
func (v *logView) save() {
	lines, _, _ := v.kept()
	shown := append([]string(nil), v.shown(lines)...)
	name := logFileName(v.namespace, v.pod, v.ctr, v.c.opts.Clock.Now())
	dir := v.c.opts.LogDir
	v.c.jobs.push(func(context.Context) {
		path, err := saveLines(dir, name, shown)
		v.c.posted.push(func() {
			if err != nil {
				v.c.flash.err(err.Error())
				return
			}
			v.c.flash.info(fmt.Sprintf("saved %d lines to %s", len(shown), path))
		})
	})
}

// openLogs opens the logs of the selected pod: at once when it has one container, else
// through a container picker.
func (c *Console) openLogs(p *pane) {
	c.withContainer(p, "l shows a pod's logs: select a pod", "logs", func(ns, name, ctr string) {
		v := newLogView(c, ns, name, ctr)
		c.views.push(v)
		v.start()
	})
}

// InputHandler implements tview.Primitive: scrolling. Scrolling up stops following; End or G
// follows again.
func (v *logView) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		_, _, _, h := v.GetInnerRect()
		page := max(1, h-2)
		step := 0
		switch ev.Key() {
		case tcell.KeyUp:
			step = -1
		case tcell.KeyDown:
			step = 1
		case tcell.KeyPgUp, tcell.KeyCtrlB:
			step = -page
		case tcell.KeyPgDn, tcell.KeyCtrlF:
			step = page
		case tcell.KeyHome:
			v.follow, v.offset = false, 0
		case tcell.KeyEnd:
			v.follow = true
		case tcell.KeyRune:
			switch ev.Rune() {
			case 'k':
				step = -1
			case 'j':
				step = 1
			case 'g':
				v.follow, v.offset = false, 0
			case 'G':
				v.follow = true
			case ' ':
				step = page
			}
		}
		if step < 0 {
			v.follow = false
		}
		v.offset = max(0, v.offset+step)
	}
}
