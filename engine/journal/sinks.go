package journal

import (
	"context"
	"log/slog"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// LogSink writes each entry as one structured log line.
type LogSink struct {
	Logger *slog.Logger
}

// Observe logs the entry: warnings for failures, debug for refusals to act and for the writes
// the executor performed, info otherwise.
func (s LogSink) Observe(e Entry) {
	level := slog.LevelInfo
	switch {
	case e.Kind == KindBlocked, e.Kind == KindAction && !e.DryRun:
		// Refusals repeat, and each write a decision makes is logged with the decision already;
		// a dry run's "would" writes are its output, and stay at info.
		level = slog.LevelDebug
	case len(e.Events) > 0 && e.Events[0].Type == "Warning":
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{slog.String("kind", string(e.Kind))}
	add := func(key, v string) {
		if v != "" {
			attrs = append(attrs, slog.String(key, v))
		}
	}
	add("method", e.Method)
	add("reason", string(e.Reason))
	add("nodepool", e.NodePool)
	add("nodeclaims", strings.Join(e.NodeClaims, ","))
	add("nodes", strings.Join(e.Nodes, ","))
	if len(e.Pods) > 0 {
		attrs = append(attrs, slog.Int("pods", len(e.Pods)))
	}
	add("replacements", strings.Join(e.Replacements, ","))
	if e.PriceBefore != 0 || e.PriceAfter != 0 {
		attrs = append(attrs, slog.Float64("price_before", e.PriceBefore), slog.Float64("price_after", e.PriceAfter))
	}
	if e.DryRun {
		attrs = append(attrs, slog.Bool("dry_run", true))
	}
	s.Logger.LogAttrs(context.Background(), level, e.Message, attrs...)
}

// Recorder records Kubernetes events (state.APIWriter is one).
type Recorder interface {
	Event(object runtime.Object, eventType, reason, message string)
}

// EventSink records the events entries carry.
type EventSink struct {
	Recorder Recorder
}

// Observe records the entry's events, unless it is a dry run.
func (s EventSink) Observe(e Entry) {
	if e.DryRun {
		return
	}
	for _, ev := range e.Events {
		if ev.Object != nil {
			s.Recorder.Event(ev.Object, ev.Type, string(ev.Reason), ev.Message)
		}
	}
}
