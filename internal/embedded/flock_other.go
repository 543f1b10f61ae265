//go:build !unix

package embedded

import (
	"errors"
	"os"
)

// errLocked is never returned where the store cannot be locked.
var errLocked = errors.New("embedded: locked")

// flock does nothing where there is no flock: the store is not guarded
// against a second process.
func flock(*os.File) error { return nil }
