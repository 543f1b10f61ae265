package output

import (
	"errors"
	"fmt"
	"slices"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore/view"
)

// Caps bound the views of one tool's outputs. A zero field keeps the
// policy's value.
type Caps struct {
	MaxLines int `json:"max_lines,omitempty"`
	MaxBytes int `json:"max_bytes,omitempty"`
}

// Policy says how outputs are bounded.
type Policy struct {
	// MaxLines caps the lines of output a view shows.
	MaxLines int `json:"max_lines"`
	// MaxBytes caps the bytes of a view, marker included.
	MaxBytes int `json:"max_bytes"`
	// Tools overrides the caps per tool, such as {"read_file": {"max_lines": 500}}.
	Tools map[string]Caps `json:"tools,omitempty"`
	// SearchTools are the tools whose empty output draws a zero_results
	// advice; empty turns the advice off.
	SearchTools []string `json:"search_tools"`
}

// Limits on the caps.
const (
	// MaxViewLines is the largest max_lines accepted.
	MaxViewLines = 100_000
	// MaxViewBytes is the largest max_bytes accepted: a decision carrying
	// the view must fit in a NATS message.
	MaxViewBytes = 256 << 10
)

// DefaultSearchTools are the tools DefaultPolicy treats as searches.
var DefaultSearchTools = []string{"grep", "rg", "ripgrep", "search", "search_files", "find", "find_files", "glob", "code_search"}

// DefaultPolicy returns the caps of the reference designs: 500 lines and
// 32 KiB per view, with the usual search tools.
func DefaultPolicy() Policy {
	return Policy{
		MaxLines:    view.DefaultMaxLines,
		MaxBytes:    view.DefaultMaxBytes,
		SearchTools: slices.Clone(DefaultSearchTools),
	}
}

// Validate reports every setting that makes no sense.
func (p Policy) Validate() error {
	var errs []error
	check := func(where string, c Caps, override bool) {
		if (!override || c.MaxLines != 0) && (c.MaxLines < 1 || c.MaxLines > MaxViewLines) {
			errs = append(errs, fmt.Errorf("output.%smax_lines is %d; want 1 to %d", where, c.MaxLines, MaxViewLines))
		}
		if (!override || c.MaxBytes != 0) && (c.MaxBytes < view.MinBytes || c.MaxBytes > MaxViewBytes) {
			errs = append(errs, fmt.Errorf("output.%smax_bytes is %d; want %d to %d", where, c.MaxBytes, view.MinBytes, MaxViewBytes))
		}
	}
	check("", Caps{MaxLines: p.MaxLines, MaxBytes: p.MaxBytes}, false)
	tools := make([]string, 0, len(p.Tools))
	for t := range p.Tools {
		tools = append(tools, t)
	}
	slices.Sort(tools) // report in a stable order
	for _, t := range tools {
		if len(t) == 0 || len(t) > event.MaxToolLen {
			errs = append(errs, fmt.Errorf("output.tools: %q is not a tool name", t))
		}
		check(fmt.Sprintf("tools[%q].", t), p.Tools[t], true)
	}
	for _, t := range p.SearchTools {
		if len(t) == 0 || len(t) > event.MaxToolLen {
			errs = append(errs, fmt.Errorf("output.search_tools: %q is not a tool name", t))
		}
	}
	return errors.Join(errs...)
}
