package event

import (
	"fmt"

	"github.com/guardstream/guardstream/internal/jsonlex"
)

// Limits on the sizes a sender controls, besides those of ids (MaxIDLen),
// names (MaxToolLen), declarations (MaxDeclared), rounds (MaxRoundCalls)
// and the payload's nesting (MaxNesting). Each lies far above what real
// agents send and low enough that no guard's cost grows faster than the
// payload (docs/decisions/0022-input-limits.md). Free text (args, out,
// doc, declared schemas) is bounded by guard-consumer's payload limit
// only. An event over a limit fails Validate with ErrLimit.
const (
	MaxJSONDepth    = 64                   // nesting of arrays and objects in args, doc and declared schemas
	MaxPathLen      = 4096                 // bytes of a path: ws, path, outputs[i], chg.paths[i]
	MaxChangedPaths = 1024                 // paths in chg.paths
	MaxDuration     = 7 * 24 * 3600 * 1000 // ms of a lease or a round's wait: a week
	MaxTS           = 253402300799999      // ms since the epoch: the last of the year 9999 (UTC)
)

// checkSizes reports the first field of ev, as its kind reads it, that is
// over a limit. The counts of declarations and of a round's calls are
// checked with the rest of their rules; a list over its count is left to
// them here.
func (ev *Event) checkSizes() error {
	if ev.TS > MaxTS {
		return overLimit("ts", "got %d; want at most %d (the end of the year 9999)", ev.TS, int64(MaxTS))
	}
	switch ev.Kind {
	case KindRunStart:
		return ev.startSizes()
	case KindStep:
		if err := jsonDepth("doc", ev.Doc); err != nil {
			return err
		}
		return nameLen("schema", ev.DocSchema)
	case KindCall:
		if err := jsonDepth("args", ev.Args); err != nil {
			return err
		}
		return pathLen("path", ev.Path)
	case KindResult:
		return ev.resultSizes()
	case KindRound:
		return duration("wait", ev.Wait)
	}
	return nil
}

func (ev *Event) startSizes() error {
	if err := nameLen("agent", ev.Agent); err != nil {
		return err
	}
	if err := nameLen("pattern", ev.Pattern); err != nil {
		return err
	}
	if err := pathLen("ws", ev.Workspace); err != nil {
		return err
	}
	if err := duration("lease", ev.Lease); err != nil {
		return err
	}
	if err := schemasDepth("tools", ev.Tools); err != nil {
		return err
	}
	if err := schemasDepth("docs", ev.Docs); err != nil {
		return err
	}
	if len(ev.Outputs) > MaxDeclared {
		return nil
	}
	return pathsLen("outputs", ev.Outputs)
}

func (ev *Event) resultSizes() error {
	if err := nameLen("tool", ev.Tool); err != nil {
		return err
	}
	if err := jsonDepth("args", ev.Args); err != nil {
		return err
	}
	if err := pathLen("path", ev.Path); err != nil {
		return err
	}
	if ev.Changes == nil {
		return nil
	}
	if n := len(ev.Changes.Paths); n > MaxChangedPaths {
		return overLimit("chg.paths", "%d paths; the limit is %d", n, MaxChangedPaths)
	}
	return pathsLen("chg.paths", ev.Changes.Paths)
}

func nameLen(field, s string) error {
	if len(s) > MaxToolLen {
		return overLimit(field, "%d bytes; the limit is %d", len(s), MaxToolLen)
	}
	return nil
}

func pathLen(field, p string) error {
	if len(p) > MaxPathLen {
		return overLimit(field, "a path of %d bytes; the limit is %d", len(p), MaxPathLen)
	}
	return nil
}

// pathsLen checks that each of a list of paths is at most MaxPathLen
// bytes.
func pathsLen(field string, paths []string) error {
	for i, p := range paths {
		if err := pathLen(fmt.Sprintf("%s[%d]", field, i), p); err != nil {
			return err
		}
	}
	return nil
}

func duration(field string, ms int64) error {
	if ms > MaxDuration {
		return overLimit(field, "%d ms; the limit is %d (a week)", ms, MaxDuration)
	}
	return nil
}

func jsonDepth(field, text string) error {
	if jsonlex.Deeper(text, MaxJSONDepth) {
		return overLimit(field, "JSON arrays and objects nest more than %d deep", MaxJSONDepth)
	}
	return nil
}

// schemasDepth checks the declared schemas' JSON text; their count is
// validateStart's to check.
func schemasDepth(field string, schemas []Schema) error {
	if len(schemas) > MaxDeclared {
		return nil
	}
	for i, s := range schemas {
		if err := jsonDepth(fmt.Sprintf("%s[%d].schema", field, i), s.Schema); err != nil {
			return err
		}
	}
	return nil
}
