package objectstore

import "errors"

// Errors the Store returns, wrapped with details; compare with errors.Is.
var (
	// ErrNotFound: the stream holds no output of that digest for the
	// tenant, or it has expired.
	ErrNotFound = errors.New("objectstore: not found")
	// ErrDigestMismatch: what was read does not match the digest or size
	// it is stored under, or its first part's headers are not valid.
	ErrDigestMismatch = errors.New("objectstore: content does not match its digest")
	// ErrTooLarge: the output is larger than Config.MaxOutputBytes.
	ErrTooLarge = errors.New("objectstore: output too large")
	// ErrInvalidDigest: the digest is not "sha256:" and 64 lower-case hex
	// digits.
	ErrInvalidDigest = errors.New("objectstore: malformed digest")
)
