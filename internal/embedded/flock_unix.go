//go:build unix

package embedded

import (
	"errors"
	"os"
	"syscall"
)

// errLocked is what flock returns when another holder has the lock.
var errLocked = syscall.EWOULDBLOCK

// flock takes an exclusive lock on f without waiting. The kernel drops it
// when f is closed or the process ends, however it ends.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
