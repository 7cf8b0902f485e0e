package ui

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"k8s.io/utils/clock"

	"github.com/nodepilot/nodepilot/ui/dialog"
	"github.com/nodepilot/nodepilot/ui/model"
	"github.com/nodepilot/nodepilot/ui/prompt"
	"github.com/nodepilot/nodepilot/ui/skin"
)

// Options tune a Console. The zero value is fine.
type Options struct {
	// Clock gives the time ages and countdowns are computed against; nil is the real clock.
	Clock clock.PassiveClock
	// Screen is where Run draws; nil opens the terminal.
	Screen tcell.Screen
	// SkinName names the skin the console starts with, for :skins ("default" if empty).
	SkinName string
	// Skins lists the skins :skins offers and LoadSkin loads one by name; nil means the
	// shipped skins (skin.Shipped, skin.LoadShipped).
	Skins    func() []string
	LoadSkin func(name string) (*skin.Skin, error)
	// FrameInterval is the shortest time between two frames (at most 10 per second by default).
	FrameInterval time.Duration
	// RefreshInterval is the longest time between two frames, so that ages and countdowns move
	// (1 s by default).
	RefreshInterval time.Duration
	// Mouse takes the terminal's mouse: click selects, double-click opens, the wheel scrolls.
	Mouse bool
	// Terminal is where a shell session runs while the console is suspended; nil is the
	// console's own terminal.
	Terminal Terminal
	// LogDir is where the log view saves logs; "" is DefaultLogDir.
	LogDir string
	// Flash is a warning the console opens with: why a context switch failed and the previous
	// context came back, or what the switch left behind; "" for none.
	Flash string
}

func (o Options) withDefaults() Options {
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.SkinName == "" {
		o.SkinName = "default"
	}
	if o.Skins == nil {
		o.Skins = skin.Shipped
	}
	if o.LoadSkin == nil {
		o.LoadSkin = skin.LoadShipped
	}
	if o.Terminal == nil {
		o.Terminal = ttyTerminal{}
	}
	if o.LogDir == "" {
		o.LogDir = DefaultLogDir()
	}
	if o.FrameInterval <= 0 {
		o.FrameInterval = 100 * time.Millisecond
	}
	if o.RefreshInterval <= 0 {
		o.RefreshInterval = time.Second
	}
	return o
}

// Console is the terminal console. Build it with New and run it with Run; Draw, HandleKey and
// Settle drive it synchronously instead (tests, screenshots).
type Console struct {
	backend Backend
	demo    Demo
	opts    Options
	skins   []string

	// Owned by the UI goroutine.
	pal    *palette
	views  views
	prompt *prompt.Prompt
	dialog *dialog.Dialog
	flash  flash
	world  *model.World
	// candidates are the completions of the command being typed (UI goroutine).
	candidates candidates
	info       Info
	story      string
	history    *prompt.History
	root       *root
	stop       func()
	// switchTo is the context the operator switched to (:ctx): Run returns SwitchContext.
	switchTo string
	// contextsAsked: the open ":" prompt has read the contexts for completion once.
	contextsAsked bool
	// suspend gives the terminal to a function (tview's Suspend) while Run runs; nil otherwise.
	suspend   func(func()) bool
	replanned bool

	// posted are changes for the UI goroutine to run before the next draw, jobs actions that
	// may block (backend calls) for the worker. Safe from any goroutine.
	posted *inbox[func()]
	jobs   *inbox[func(context.Context)]

	// Shared with the builder and the worker, under mu.
	mu                            sync.Mutex
	plans                         []plan
	frame                         *frame
	skinName                      string
	rightSizing                   *model.RightSizing
	contexts                      contextList
	wakeBuild, wakeJobs, wakeDraw chan struct{}
	// wakeWorld asks the builder for a new World (what it is built from changed).
	wakeWorld chan struct{}

	// The builder's latest World and the facts it hands to the next one, under buildMu.
	buildMu sync.Mutex
	built   *model.World
	cache   *model.Cache
}

// frame is what the builder made for the next draw.
type frame struct {
	world   *model.World
	info    Info
	story   string
	applies []func()
}

// New returns a console over a backend, drawing with a skin. A Backend that also implements
// Demo gets the demo keys. The console starts on the dashboard.
func New(b Backend, s *skin.Skin, opts Options) *Console {
	opts = opts.withDefaults()
	c := &Console{backend: b, opts: opts, pal: newPalette(s), flash: flash{clock: opts.Clock}, history: prompt.NewHistory(50), skinName: opts.SkinName, cache: model.NewCache(),
		wakeBuild: make(chan struct{}, 1), wakeJobs: make(chan struct{}, 1), wakeDraw: make(chan struct{}, 1), wakeWorld: make(chan struct{}, 1)}
	c.posted, c.jobs = newInbox[func()](c.wakeDraw), newInbox[func(context.Context)](c.wakeJobs)
	if d, ok := b.(Demo); ok {
		c.demo = d
	}
	c.skins = opts.Skins()
	c.info = b.Info()
	c.root = &root{Box: tview.NewBox(), c: c}
	c.stop = func() {}
	c.views.changed = c.replan
	c.views.reset(c.newDashboard())
	if opts.Flash != "" {
		c.flash.warn(opts.Flash)
	}
	return c
}

// Run draws the console on the terminal (or Options.Screen) until ctx ends or the operator
// quits, or switches to another kubeconfig context: then it returns SwitchContext, and the
// caller opens a console over that context. It owns four goroutines, all stopped before it
// returns: the builder (view models off the UI goroutine), the worker (actions that call the
// backend), the drawer (at most one frame per FrameInterval, through tview's QueueUpdateDraw)
// and the stopper (which stops tview once the drawer is done, since a QueueUpdateDraw left
// pending on a stopped application never returns).
func (c *Console) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	screen := c.opts.Screen
	if screen == nil {
		var err error
		if screen, err = tcell.NewScreen(); err != nil {
			return fmt.Errorf("opening the terminal: %w", err)
		}
	}
	app := tview.NewApplication()
	app.SetScreen(painted{screen})
	app.SetRoot(c.root, true)
	app.EnableMouse(c.opts.Mouse)
	// Ctrl-C quits through the console, not through tview's own Stop.
	app.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		if ev.Key() == tcell.KeyCtrlC {
			c.quit()
			return nil
		}
		return ev
	})
	c.stop = cancel
	c.suspend = app.Suspend
	defer func() { c.suspend = nil }()
	var loops sync.WaitGroup
	for _, loop := range []func(context.Context){c.buildLoop, c.workLoop} {
		loops.Add(1)
		go func() {
			defer loops.Done()
			loop(ctx)
		}()
	}
	drawn := make(chan struct{})
	go func() {
		defer close(drawn)
		c.drawLoop(ctx, app)
	}()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		<-drawn
		app.Stop()
	}()
	err := app.Run()
	cancel()
	loops.Wait()
	select {
	case <-stopped:
	case <-time.After(time.Second):
		// tview stopped on its own (a terminal error) while the drawer waited on it: that
		// update is never run, and the drawer and the stopper stay blocked.
	}
	if err == nil && c.switchTo != "" {
		return SwitchContext{Name: c.switchTo}
	}
	return err
}

// SetSkin swaps the skin live. With an error (an invalid skin file was saved) it keeps the
// current skin and flashes the error. Safe from any goroutine; skin.Watch's callback can call it.
func (c *Console) SetSkin(s *skin.Skin, err error) {
	c.posted.push(func() {
		if err != nil {
			c.flash.err("skin not applied, keeping the current one: " + err.Error())
			return
		}
		if s != nil {
			c.setPalette(s)
			c.flash.info("skin reloaded")
		}
	})
}

// Draw draws the console on the whole screen and shows it, synchronously.
func (c *Console) Draw(screen tcell.Screen) {
	w, h := screen.Size()
	c.root.SetRect(0, 0, w, h)
	c.root.Draw(screen)
	screen.Show()
}

// HandleKey handles a key press synchronously, as Run's event loop does.
func (c *Console) HandleKey(ev *tcell.EventKey) { c.handleKey(ev) }

// HandleMouse handles a mouse action (tview's, which tells clicks from double clicks)
// synchronously, as Run's event loop does when Options.Mouse is on.
func (c *Console) HandleMouse(action tview.MouseAction, ev *tcell.EventMouse) {
	c.handleMouse(action, ev)
}

// Settle does synchronously what Run's goroutines do: it builds a frame, runs the queued
// actions and applies their results, until nothing is left to do.
func (c *Console) Settle() {
	for range 20 {
		c.replanned = false
		c.build(true)
		for job, ok := c.jobs.pop(); ok; job, ok = c.jobs.pop() {
			job(context.Background())
		}
		c.applyPending()
		c.mu.Lock()
		idle := c.frame == nil
		c.mu.Unlock()
		idle = idle && c.jobs.empty() && c.posted.empty()
		select {
		case <-c.wakeWorld: // a job changed what Worlds are built from
			idle = false
		default:
		}
		if idle && !c.replanned {
			return
		}
	}
}

// painted is the screen tview draws on. The console writes every cell of every frame, so the
// Clear that tview does before each draw would only double the work.
type painted struct{ tcell.Screen }

// Clear does nothing: the next draw writes every cell.
func (painted) Clear() {}

// root is the console's single tview primitive: it lays out and draws everything, and hands
// every key to the console.
type root struct {
	*tview.Box
	c *Console
}

// Draw implements tview.Primitive.
func (r *root) Draw(screen tcell.Screen) {
	x, y, w, h := r.GetRect()
	r.c.draw(screen, x, y, w, h)
}

// InputHandler implements tview.Primitive.
func (r *root) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return func(ev *tcell.EventKey, _ func(tview.Primitive)) { r.c.handleKey(ev) }
}

// MouseHandler implements tview.Primitive: every mouse action goes to the console.
func (r *root) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return func(action tview.MouseAction, ev *tcell.EventMouse, _ func(tview.Primitive)) (bool, tview.Primitive) {
		return r.c.handleMouse(action, ev), nil
	}
}
