package embedded

import "errors"

var (
	// ErrNotReady is returned when the server does not accept connections
	// in time.
	ErrNotReady = errors.New("embedded: server did not become ready")
	// ErrStoreInUse is returned when another server, in this process or
	// another, runs on the data directory.
	ErrStoreInUse = errors.New("embedded: data directory in use")
	// ErrSync is returned for a sync setting that is neither "always" nor
	// a positive duration.
	ErrSync = errors.New("embedded: invalid sync setting")
)
