package objectstore

import "errors"

// Errors the Store returns, wrapped with details; compare with errors.Is.
var (
	// ErrNotFound: the bucket holds no output of that digest, or no link
	// for that call, or the link's output has expired.
	ErrNotFound = errors.New("objectstore: not found")
	// ErrDigestMismatch: what was read does not match the digest or size
	// it is stored under.
	ErrDigestMismatch = errors.New("objectstore: content does not match its digest")
	// ErrTooLarge: the output is larger than Config.MaxOutputBytes.
	ErrTooLarge = errors.New("objectstore: output too large")
	// ErrInvalidDigest: the digest is not "sha256:" and 64 lower-case hex
	// digits.
	ErrInvalidDigest = errors.New("objectstore: malformed digest")
)
