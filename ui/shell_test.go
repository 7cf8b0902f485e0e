package ui_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/nodepilot/nodepilot/ui"
	"github.com/nodepilot/nodepilot/ui/skin"
	"github.com/nodepilot/nodepilot/ui/uitest"
)

// pipeTerminal is a shell session's terminal in tests: typed input, captured output, one size.
type pipeTerminal struct {
	in  string
	out bytes.Buffer
	// raw is whether the last session asked for raw mode.
	raw bool
}

func (p *pipeTerminal) Session(_ context.Context, raw bool, run func(io.Reader, io.Writer, <-chan ui.TerminalSize) error) error {
	p.raw = raw
	sizes := make(chan ui.TerminalSize, 1)
	sizes <- ui.TerminalSize{Width: 200, Height: 50}
	close(sizes)
	return run(strings.NewReader(p.in), &p.out, sizes)
}

func shellHarness(t *testing.T, info ui.Info, term ui.Terminal) *harness {
	t.Helper()
	f := uitest.New(uitest.Small())
	f.SetInfo(info)
	h := newHarness(t, f, f, skin.Default(), 160, 30)
	h.console = ui.New(f, skin.Default(), ui.Options{Clock: f.Clock, Terminal: term})
	h.console.Settle()
	return h
}

func TestShell(t *testing.T) {
	for _, tc := range []struct {
		name, keys string
		info       ui.Info
		// out is what the session printed; call the exec recorded.
		out, call, flash string
		raw              bool
	}{
		{name: "one container", keys: ":pods<Enter>s", info: ui.Info{Context: "kind-nodepilot"},
			out:   "nodepilot: shell in batch/worker-7d9f8c6b5-2mv22 container app; exit returns to the console\r\n$ echo hi\n",
			call:  `exec batch/worker-7d9f8c6b5-2mv22 app tty=true size=200x50 ["sh" "-c" "command -v bash >/dev/null 2>&1 && exec bash || exec sh"]`,
			flash: "shell in batch/worker-7d9f8c6b5-2mv22 (app) ended", raw: true},
		{name: "demo: no terminal, says where the shell runs", keys: ":pods<Enter>s",
			info:  ui.Info{Context: "demo", ShellNote: "demo: kwok runs this shell on this machine in /tmp/x", ShellPipes: true},
			out:   "nodepilot: demo: kwok runs this shell on this machine in /tmp/x\r\n$ echo hi\n",
			call:  `exec batch/worker-7d9f8c6b5-2mv22 app tty=false size=none ["sh" "-i"]`,
			flash: "ended; demo: kwok runs this shell on this machine in /tmp/x"},
		{name: "container picker", keys: ":pods<Enter>/sidecar<Enter>s<Down><Enter>", info: ui.Info{Context: "kind-nodepilot"},
			out: "shell in shop/sidecar-0 container envoy", call: "exec shop/sidecar-0 envoy tty=true", raw: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := &pipeTerminal{in: "echo hi\nexit\n"}
			h := shellHarness(t, tc.info, term)
			sidecarPod(h)
			h.keys(tc.keys)
			if !strings.Contains(term.out.String(), tc.out) {
				t.Fatalf("the session printed %q, want %q", term.out.String(), tc.out)
			}
			calls := h.fake.Calls()
			if last := calls[len(calls)-1]; !strings.HasPrefix(last, tc.call) {
				t.Fatalf("last call %q, want %q", last, tc.call)
			}
			h.has(tc.flash, "Pods(")
			if term.raw != tc.raw {
				t.Fatalf("raw mode %t, want %t", term.raw, tc.raw)
			}
		})
	}
}

func TestShellHiddenWhenReadOnlyOrDryRun(t *testing.T) {
	for _, info := range []ui.Info{{Context: "prod", ReadOnly: true}, {Context: "staging", DryRun: true}} {
		term := &pipeTerminal{in: "echo hi\nexit\n"}
		h := shellHarness(t, info, term)
		h.keys(":pods<Enter>")
		h.lacks("<s>shell")
		h.keys("?")
		h.lacks("a shell in the selected pod")
		h.keys("<Esc>s")
		h.has("shell is disabled")
		if term.out.Len() > 0 {
			t.Fatalf("%s: a shell ran: %q", info.Mode(), term.out.String())
		}
		for _, c := range h.fake.Calls() {
			if strings.HasPrefix(c, "exec") {
				t.Fatalf("%s: exec called: %q", info.Mode(), c)
			}
		}
	}
}
