package guard

import "errors"

// Errors Load, Parse and Preset wrap. Compare with errors.Is.
var (
	// ErrUnknownPreset: a preset name that guard/presets does not hold.
	ErrUnknownPreset = errors.New("guard: no such preset")
	// ErrInvalidPolicy: the document parsed but a setting makes no sense;
	// the message names the scope, the field and what is wrong.
	ErrInvalidPolicy = errors.New("guard: invalid policy")
)
