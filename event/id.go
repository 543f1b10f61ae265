package event

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxIDLen is the longest tenant, run or call id accepted, in bytes.
const MaxIDLen = 128

// CheckID reports why s cannot be a tenant, run or call id, or nil if it
// can. IDs become NATS subject tokens, so they must be non-empty valid UTF-8
// of at most MaxIDLen bytes without '.', '*', '>', whitespace or control
// characters.
func CheckID(s string) error {
	if s == "" {
		return fmt.Errorf("empty")
	}
	if len(s) > MaxIDLen {
		return fmt.Errorf("%d bytes long, the limit is %d", len(s), MaxIDLen)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("not valid UTF-8")
	}
	for _, r := range s {
		switch {
		case r == '.' || r == '*' || r == '>':
			return fmt.Errorf("contains %q, which NATS subjects reserve", r)
		case unicode.IsSpace(r) || unicode.IsControl(r):
			return fmt.Errorf("contains whitespace or a control character (%U)", r)
		}
	}
	return nil
}
