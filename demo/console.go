package demo

import (
	"context"
	"errors"

	"github.com/nodepilot/nodepilot/app"
	"github.com/nodepilot/nodepilot/kube"
	"github.com/nodepilot/nodepilot/kube/localcluster"
	"github.com/nodepilot/nodepilot/ui"
)

// Console is the console's Backend over the demo: the App's, plus the demo keys and the story.
type Console struct {
	*app.Console
	env   *Environment
	story *Story
}

var _ ui.Demo = (*Console)(nil)

// Console returns the console's Backend over the demo, with its story.
func (e *Environment) Console(story *Story) *Console {
	return &Console{Console: e.App.Console(kube.ContextName(e.Kubeconfig, "")), env: e, story: story}
}

// Deployments implements ui.Demo.
func (c *Console) Deployments() []string { return c.env.Deployments }

// Scale implements ui.Demo.
func (c *Console) Scale(ctx context.Context, deployment string, delta int) error {
	return c.env.Scale(ctx, deployment, delta)
}

// Interrupt implements ui.Demo.
func (c *Console) Interrupt(ctx context.Context, node string) error {
	return c.env.Interrupt(ctx, node)
}

// Autoplay implements ui.Demo.
func (c *Console) Autoplay() bool { return c.story.Autoplay() }

// SetAutoplay implements ui.Demo.
func (c *Console) SetAutoplay(on bool) { c.story.SetAutoplay(on) }

// Story implements ui.Demo.
func (c *Console) Story() string { return c.story.Status() }

// noSwitch is why the demo's console does not switch contexts: its App, emulator and story are
// built around the local cluster.
const noSwitch = "the demo runs on its own local cluster and cannot switch contexts: quit, and run nodepilot --context NAME"

// Info implements ui.Backend: the App's, that kwok runs a shell on this machine, with pipes
// and no terminal (kube/localcluster/kwokstreams.go), and that :ctx does not switch here.
func (c *Console) Info() ui.Info {
	i := c.Console.Info()
	i.ShellNote = "demo: kwok runs this shell on this machine in " + localcluster.ExecDir(c.env.Cluster.Dir) + " (no terminal: one line at a time)"
	i.ShellPipes = true
	i.NoSwitch = noSwitch
	return i
}

// Contexts implements ui.Backend: the contexts of the demo's own kubeconfig (its local cluster),
// not the operator's default one, which the App, built on the local cluster's REST config, would
// otherwise read.
func (c *Console) Contexts() ([]string, string, error) {
	return kube.Contexts(c.env.Kubeconfig)
}

// CheckContext implements ui.Backend: the demo refuses every switch (the console does not ask,
// having Info.NoSwitch; this keeps any other caller from switching).
func (c *Console) CheckContext(context.Context, string) error { return errors.New(noSwitch) }
