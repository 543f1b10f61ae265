package pressure

// State is the guard's state for one run: the highest threshold the
// context is at or above, as of the last step that reported it.
type State struct {
	// Level is that threshold in percent, or 0 if usage is below every
	// threshold. The thresholds at or below it are spent; those above it
	// are armed.
	Level int64 `msgpack:"lvl,omitempty"`
}
