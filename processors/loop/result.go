package loop

import (
	"github.com/cespare/xxhash/v2"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/canon"
)

// resultKey hashes what eq compares of a result: its err flag, its exit
// code, and its output with the volatile parts ms masks. An output sent by
// reference is compared by its digest, unmasked.
func resultKey(eq Equality, ms maskSet, ev *event.Event) uint64 {
	var failed uint64
	if ev.Err {
		failed = 1
	}
	switch eq {
	case ResultError:
		return canon.Combine(tagResult, failed)
	case ResultExit:
		return canon.Combine(tagResult, failed, uint64(ev.Exit))
	}
	var out uint64
	if ev.Ref != nil && ev.Out == "" {
		out = xxhash.Sum64String(ev.Ref.Digest)
	} else {
		out = maskedHash(ev.Out, ms)
	}
	return canon.Combine(tagResult, failed, uint64(ev.Exit), out)
}

// maskedHash hashes s with every part a mask in ms matches replaced by
// '#': runs of decimal digits, runs of 8 or more hex digits, UUIDs. It
// allocates nothing.
func maskedHash(s string, ms maskSet) uint64 {
	if ms == 0 {
		return xxhash.Sum64String(s)
	}
	var d xxhash.Digest
	d.Reset()
	plain := 0 // start of the text not yet written
	for i := 0; i < len(s); {
		n := 0
		switch {
		case ms&mUUID != 0 && isUUID(s[i:]):
			n = 36
		case ms&mHex != 0 && hexRun(s[i:]) >= 8:
			n = hexRun(s[i:])
		case ms&mDigits != 0 && isDigit(s[i]):
			for n = 1; i+n < len(s) && isDigit(s[i+n]); n++ {
			}
		}
		if n == 0 {
			i++
			continue
		}
		_, _ = d.WriteString(s[plain:i])
		_, _ = d.WriteString("#")
		i += n
		plain = i
	}
	_, _ = d.WriteString(s[plain:])
	return d.Sum64()
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }

// hexRun returns the length of the run of hex digits s starts with.
func hexRun(s string) int {
	n := 0
	for n < len(s) && isHex(s[n]) {
		n++
	}
	return n
}

// isUUID reports whether s starts with a UUID: 8-4-4-4-12 hex digits.
func isUUID(s string) bool {
	if len(s) < 36 {
		return false
	}
	for i := range 36 {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHex(s[i]) {
				return false
			}
		}
	}
	return true
}
