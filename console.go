package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
	"k8s.io/klog/v2"

	"github.com/nodepilot/nodepilot/app"
	"github.com/nodepilot/nodepilot/engine/autoscaler"
	"github.com/nodepilot/nodepilot/kube"
	"github.com/nodepilot/nodepilot/ui"
	"github.com/nodepilot/nodepilot/ui/skin"
	"github.com/nodepilot/nodepilot/userfile"
)

// consoleFlags are the flags of every command that opens the console.
type consoleFlags struct {
	skin, logFile string
	mouse         bool
}

func (f *consoleFlags) register(fs *pflag.FlagSet) {
	f.registerScreen(fs)
	fs.StringVar(&f.logFile, "log-file", "", "where the console's logs go (default: nodepilot.log in the user cache folder)")
}

// registerScreen adds --skin and --mouse alone, for the demo, whose logs go to its own folder.
func (f *consoleFlags) registerScreen(fs *pflag.FlagSet) {
	fs.StringVar(&f.skin, "skin", "", "a shipped skin (default, transparent, light, colorblind) or a k9s skin file (default: NODEPILOT_SKIN, then skin: in ~/.config/nodepilot/config.yaml)")
	fs.BoolVar(&f.mouse, "mouse", true, "click selects a row, double-click opens it, the wheel scrolls (--mouse=false leaves the mouse to the terminal, for selecting text)")
}

// logger opens the log file: the terminal belongs to the console. client-go's klog goes there too.
func (f *consoleFlags) logger() (*slog.Logger, func(), error) {
	path := f.logFile
	if path == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, nil, fmt.Errorf("no folder for the log file: %w; set --log-file", err)
		}
		path = filepath.Join(dir, "nodepilot", "nodepilot.log")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, fmt.Errorf("--log-file %s: %w", path, err)
	}
	file, err := userfile.OpenLog(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--log-file: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(file, nil))
	klog.SetSlogLogger(logger)
	return logger, func() { _ = file.Close() }, nil
}

// skinRef resolves the skin as --skin, NODEPILOT_SKIN and the config file say, and checks that it
// loads before the terminal is taken over, so that a bad skin is a plain error.
func (f *consoleFlags) skinRef() (string, *skin.Skin, error) {
	ref, err := skin.Resolve(f.skin, os.Getenv("NODEPILOT_SKIN"), configPath())
	if err != nil {
		return "", nil, err
	}
	s, err := skin.Open(ref)
	if err != nil {
		return "", nil, err
	}
	return ref, s, nil
}

// configPath is nodepilot's config file: $XDG_CONFIG_HOME/nodepilot/config.yaml, else
// ~/.config/nodepilot/config.yaml (on every OS, as k9s users expect).
func configPath() string {
	if dir := os.Getenv("XDG_CONFIG_HOME"); dir != "" {
		return filepath.Join(dir, "nodepilot", "config.yaml")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".config", "nodepilot", "config.yaml")
}

// errNoTerminal is the console's error without a terminal, where tcell would panic.
var errNoTerminal = errors.New("the console needs a terminal; use `nodepilot controller` or `demo --headless`")

// needTerminal fails when stdin or stdout is not a terminal (CI, cron, a pipe), so that the
// console fails before it connects anywhere rather than panicking in tcell.
func needTerminal() error {
	if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
		return errNoTerminal
	}
	return nil
}

// runConsole runs the console over a backend until the user quits or ctx ends, reloading the
// skin when its file changes. flash, when not "", is the message it opens with.
func runConsole(ctx context.Context, b ui.Backend, ref string, s *skin.Skin, mouse bool, logger *slog.Logger, flash string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := ui.New(b, s, ui.Options{SkinName: ref, Mouse: mouse, Flash: flash})
	go func() {
		if err := skin.Watch(ctx, ref, c.SetSkin); err != nil {
			logger.Warn("not watching the skin file for changes", "skin", ref, "error", err)
		}
	}()
	return c.Run(ctx)
}

// alongside runs run in the background while fg runs, then stops run and waits for it: the error
// is fg's, else run's. The console (fg) over nodepilot (run) ends both when the user quits.
func alongside(ctx context.Context, run, fg func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	err := fg(ctx)
	cancel()
	if runErr := <-done; err == nil {
		err = runErr
	}
	return err
}

// switchingContexts runs the console over an App for opts, and again over a new App each time
// the operator switches contexts (:ctx, ui.SwitchContext): the previous App has stopped by then
// (alongside waited for it). The new App has the same kubeconfig, modes and autoscaler options,
// and the new context's cluster (contextOptions). If it cannot be built, the previous context
// comes back with a flash saying why; if that fails too, so does the console. The first App's
// error is returned as is.
func switchingContexts(ctx context.Context, opts app.Options, logger *slog.Logger, run func(context.Context, *app.App, app.Options, string) error) error {
	var (
		prev  app.Options
		flash string
		// switched: opts is a context switched to, and prev the one it was switched from.
		switched bool
	)
	for {
		a, err := app.New(ctx, opts)
		if err != nil {
			if !switched {
				return err
			}
			from, to := contextName(prev), contextName(opts)
			logger.Error("switching contexts failed; back to the previous one", "from", from, "to", to, "error", err)
			flash = fmt.Sprintf("switching to context %s failed, back on %s: %v", to, from, err)
			opts, switched = prev, false
			if a, err = app.New(ctx, opts); err != nil {
				return fmt.Errorf("switching to context %s failed, and %s could not be reopened: %w", to, from, err)
			}
		}
		err = run(ctx, a, opts, flash)
		var sw ui.SwitchContext
		if !errors.As(err, &sw) {
			return err
		}
		name, region := kube.EKSCluster(opts.Kubeconfig, sw.Name)
		prev, switched = opts, true
		opts, flash = contextOptions(opts, sw.Name, name, region)
		logger.Info("switching contexts", "from", contextName(prev), "to", sw.Name, "cluster", opts.ClusterName, "region", opts.AWS.Region, "note", flash)
	}
}

// contextName names the context an App's options use, for messages.
func contextName(o app.Options) string {
	return cmp.Or(kube.ContextName(o.Kubeconfig, o.Context), "the current context")
}

// contextOptions are the App's options after a switch to context: the same kubeconfig, modes
// and autoscaler options, and the cluster name and region of that context's EKS cluster
// (eksName, eksRegion: kube.EKSCluster), never the previous ones, which --cluster-name and
// --region may have set for the first cluster: instances would be tagged with the wrong
// cluster. Without them app.New refuses to act (read-only goes on, without AWS). The
// interruption queue also belonged to the first cluster: it is dropped, and note says so ("" if
// there was none).
func contextOptions(prev app.Options, context, eksName, eksRegion string) (opts app.Options, note string) {
	opts = prev
	opts.Context, opts.REST = context, nil
	opts.ClusterName, opts.AWS.Region = eksName, eksRegion
	if prev.QueueName != "" {
		opts.QueueName = ""
		note = fmt.Sprintf("--interruption-queue %s belonged to the first cluster: not read on context %s", prev.QueueName, context)
	}
	return opts, note
}

// consoleCommand is the root command's own run: the console over the current kubeconfig context,
// with the autoscaler inside unless --readonly.
func consoleCommand(root *cobra.Command) {
	var cf clusterFlags
	var flags autoscalerFlags
	var console consoleFlags
	var readOnly bool
	root.Long = `nodepilot opens a k9s-style console on the cluster of the current kubeconfig context, with the
autoscaler running inside: it provisions nodes for pending pods and consolidates, as Karpenter
does, over the cluster's NodePools and EC2NodeClasses. --readonly watches and explains only;
--dry-run decides and shows, and changes nothing. Try it without a cluster: nodepilot demo.`
	root.Args = cobra.NoArgs
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		opts, err := flags.options()
		if err != nil {
			return err
		}
		ref, s, err := console.skinRef()
		if err != nil {
			return err
		}
		logger, closeLog, err := console.logger()
		if err != nil {
			return err
		}
		defer closeLog()
		if err := needTerminal(); err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		appOpts := cf.appOptions(opts, logger)
		appOpts.ReadOnly, appOpts.Usage = readOnly, true
		run := func(ctx context.Context, a *app.App, o app.Options, flash string) error {
			backend := a.Console(kube.ContextName(o.Kubeconfig, o.Context))
			return alongside(ctx, a.Run, func(ctx context.Context) error { return runConsole(ctx, backend, ref, s, console.mouse, logger, flash) })
		}
		return switchingContexts(ctx, appOpts, logger, run)
	}
	f := root.Flags()
	cf.register(f)
	f.BoolVar(&readOnly, "readonly", false, "watch and explain only: no autoscaler, no action, nothing written")
	flags.register(f, autoscaler.DefaultOptions())
	console.register(f)
}
