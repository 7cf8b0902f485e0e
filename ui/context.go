package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nodepilot/nodepilot/ui/model"
)

// SwitchContext is what Run returns when the operator switched to another kubeconfig context
// (:ctx): the caller stops this console's backend (its autoscaler) and opens the console again
// over the named context, with the same modes.
type SwitchContext struct {
	// Name is the kubeconfig context to switch to; the backend checked that it answers.
	Name string
}

// Error implements error, so that Run can return it.
func (s SwitchContext) Error() string { return "switching to context " + s.Name }

// contextList is the kubeconfig's contexts as the worker last read them.
type contextList struct {
	names   []string
	current string
	err     error
	// read: names and current are a reading, not the zero value.
	read bool
}

// switchCommand is :ctx: with no argument the contexts' table (Enter switches), with one the
// switch to that context.
func switchCommand(c *Console, args []string) error {
	switch len(args) {
	case 0:
		c.openKind(model.KindContexts)
		c.loadContexts(func(l contextList) {
			switch {
			case l.err != nil:
				c.flash.err(l.err.Error())
			case len(l.names) == 0:
				c.flash.warn("the kubeconfig has no contexts")
			case c.info.NoSwitch != "":
				c.flash.warn(c.info.NoSwitch)
			}
		})
	case 1:
		name := args[0]
		c.loadContexts(func(contextList) { c.switchContext(name) })
	default:
		return errors.New("names one context")
	}
	return nil
}

// loadContexts reads the contexts on the worker, then calls then (if not nil) with them on the UI
// goroutine. The builder lists them from c.contexts.
func (c *Console) loadContexts(then func(contextList)) {
	c.jobs.push(func(context.Context) {
		names, current, err := c.backend.Contexts()
		l := contextList{names: names, current: current, err: err, read: true}
		c.mu.Lock()
		c.contexts = l
		c.mu.Unlock()
		wake(c.wakeWorld)
		if then != nil {
			c.posted.push(func() { then(l) })
		}
	})
}

// switchContext switches to a context the contexts just read name, or flashes why not. The
// autoscaler runs on the new cluster in the same mode as here: when it would act there (neither
// read-only nor dry-run), the operator confirms first.
func (c *Console) switchContext(name string) {
	c.mu.Lock()
	l := c.contexts
	c.mu.Unlock()
	switch {
	case c.info.NoSwitch != "":
		c.flash.warn(c.info.NoSwitch)
	case l.err != nil:
		c.flash.err(fmt.Sprintf("cannot switch to context %s: %v", name, l.err))
	case name == l.current:
		c.flash.info("already on context " + name)
	case !slices.Contains(l.names, name):
		c.flash.err(unknownContext(name, l.names))
	case !c.info.ReadOnly && !c.info.DryRun:
		c.confirm("Switch context", "Switch to context "+name+"? The autoscaler runs there live, as here (neither --dry-run nor --readonly): it will provision and consolidate nodes in that cluster.", "Switch",
			func() { c.checkAndSwitch(name) })
	default:
		c.checkAndSwitch(name)
	}
}

// unknownContext says that the kubeconfig has no such context, and which it has.
func unknownContext(name string, names []string) string {
	if len(names) == 0 {
		return fmt.Sprintf("no context %q: the kubeconfig has none", name)
	}
	return fmt.Sprintf("no context %q in the kubeconfig; contexts: %s", name, strings.Join(names, ", "))
}

// checkAndSwitch asks the backend whether the context answers, and stops Run with
// SwitchContext if it does; nothing of the current context stops otherwise.
func (c *Console) checkAndSwitch(name string) {
	c.flash.info("checking context " + name + "…")
	c.jobs.push(func(ctx context.Context) {
		err := c.backend.CheckContext(ctx, name)
		c.posted.push(func() {
			if err != nil {
				c.flash.err("not switching: " + err.Error())
				return
			}
			c.flash.info("switching to context " + name + "…")
			c.switchTo = name
			c.quit()
		})
	})
}

// completeContext completes :ctx's argument with the contexts' names; the first one when none
// is typed yet. The contexts are read once per prompt, when the command is typed.
func (c *Console) completeContext(fields []string, text string) string {
	var typed string
	switch {
	case len(fields) == 1 && strings.HasSuffix(text, " "):
	case len(fields) == 2 && !strings.HasSuffix(text, " "):
		typed = fields[1]
	default:
		return ""
	}
	c.mu.Lock()
	names := c.contexts.names
	c.mu.Unlock()
	for _, name := range names {
		if strings.HasPrefix(name, typed) && name != typed {
			return name[len(typed):]
		}
	}
	return ""
}

// askContexts reads the contexts for completion once the ":" prompt names :ctx and a space
// follows, once per prompt.
func (c *Console) askContexts(text string) {
	fields := strings.Fields(text)
	if c.contextsAsked || len(fields) == 0 || !strings.Contains(strings.TrimLeft(text, " "), " ") {
		return
	}
	if cmd, ok := findCommand(fields[0]); ok && cmd.name == "ctx" {
		c.contextsAsked = true
		c.loadContexts(nil)
	}
}
