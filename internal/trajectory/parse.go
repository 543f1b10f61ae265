package trajectory

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Parse decodes one line of the recorded-run format. Unknown fields are
// ignored; a run without an id, without steps or with a call that lacks
// an id or a tool is an error that names what is missing.
func Parse(line []byte) (Run, error) {
	var r Run
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&r); err != nil {
		return Run{}, fmt.Errorf("trajectory: not a recorded run: %w", err)
	}
	if r.Run == "" {
		return Run{}, fmt.Errorf("trajectory: the run has no \"run\" id")
	}
	for i := range r.Steps {
		for j, c := range r.Steps[i].Calls {
			if c.ID == "" || c.Tool == "" {
				return Run{}, fmt.Errorf("trajectory: run %s: steps[%d].calls[%d] needs an \"id\" and a \"tool\"", r.Run, i, j)
			}
		}
	}
	return r, nil
}

// IsRun reports whether a JSON line looks like a recorded run rather than
// a wire event: it has a "steps" key at its top level.
func IsRun(line []byte) bool {
	var probe struct {
		Steps json.RawMessage `json:"steps"`
	}
	return json.Unmarshal(line, &probe) == nil && probe.Steps != nil
}
