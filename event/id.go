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
	// Most ids are printable ASCII, which one pass over the bytes settles;
	// any other byte takes the full check, which also says what is wrong.
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= utf8.RuneSelf-1 || c == '.' || c == '*' || c == '>' {
			return checkRunes(s)
		}
	}
	return nil
}

// checkRunes is CheckID's check of s's characters.
func checkRunes(s string) error {
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
