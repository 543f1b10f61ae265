package bench

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
)

// failedPrefix begins the runner's warning that a partition failed and
// will be taken up again.
const failedPrefix = "partition failed"

// warnings counts the warnings the runners guard-bench starts log: all of
// them, and those saying a partition failed.
type warnings struct {
	all, failed atomic.Int64
}

// Failures is what the runner warned about during a phase.
type Failures struct {
	// Partitions is the 'partition failed' warnings.
	Partitions int `json:"partition_failures"`
	// Warnings is every warning, those included.
	Warnings int `json:"warnings"`
}

// count returns the warnings counted so far.
func (w *warnings) count() Failures {
	return Failures{Partitions: int(w.failed.Load()), Warnings: int(w.all.Load())}
}

// since returns the warnings counted since before, a count.
func (w *warnings) since(before Failures) Failures {
	return Failures{Partitions: int(w.failed.Load()) - before.Partitions, Warnings: int(w.all.Load()) - before.Warnings}
}

// counting returns a handler that counts into w what it passes on to h.
func (w *warnings) counting(h slog.Handler) slog.Handler { return countingHandler{h, w} }

type countingHandler struct {
	slog.Handler
	w *warnings
}

// note counts a record of level with message msg.
func (w *warnings) note(level slog.Level, msg string) {
	if level >= slog.LevelWarn {
		w.all.Add(1)
		if strings.HasPrefix(msg, failedPrefix) {
			w.failed.Add(1)
		}
	}
}

func (c countingHandler) Handle(ctx context.Context, r slog.Record) error {
	c.w.note(r.Level, r.Message)
	return c.Handler.Handle(ctx, r)
}

func (c countingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return countingHandler{c.Handler.WithAttrs(as), c.w}
}

func (c countingHandler) WithGroup(name string) slog.Handler {
	return countingHandler{c.Handler.WithGroup(name), c.w}
}
