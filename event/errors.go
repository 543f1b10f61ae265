package event

import (
	"errors"
	"fmt"
)

// Errors a decode or a validation wraps. Compare with errors.Is; a
// *FieldError says which field.
var (
	// ErrUndecodable: the bytes are not a msgpack map.
	ErrUndecodable = errors.New("event: not a msgpack map")
	// ErrWrongType: a known field holds a value of the wrong msgpack type.
	ErrWrongType = errors.New("event: field has the wrong type")
	// ErrVersion: the "v" field is missing or names a version this
	// package does not speak.
	ErrVersion = errors.New("event: unsupported version")
	// ErrInvalid: a field is missing or holds a value the contract forbids.
	ErrInvalid = errors.New("event: invalid field")
	// ErrLimit: a field, or the payload's nesting, is over one of the
	// limits on what a sender controls (limits.go). It wraps ErrInvalid:
	// an event over a limit breaks the contract like any invalid field.
	ErrLimit = fmt.Errorf("%w: over a size limit", ErrInvalid)
)

// FieldError reports a problem with one field. Err is one of the sentinel
// errors above.
type FieldError struct {
	Field string // the wire key, such as "seq"
	Msg   string // what is wrong, such as "want unsigned integer, got string"
	Err   error
}

func (e *FieldError) Error() string { return fmt.Sprintf("%v: %q: %s", e.Err, e.Field, e.Msg) }

func (e *FieldError) Unwrap() error { return e.Err }

func invalid(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrInvalid}
}

func overLimit(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrLimit}
}
