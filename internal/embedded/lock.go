package embedded

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/nats-io/nats-server/v2/server"
)

// LockFile is the file in the store directory that a running embedded
// server holds locked, with its process id inside. Two servers on one store
// corrupt it, so a second one is refused before it opens anything there.
const LockFile = "guardstream.lock"

// held are the store directories this process has locked, by absolute path.
// flock excludes a second lock in the same process too, so a directory is
// released here, synchronously, once its server has shut down: a test can
// restart a server on the same store without racing the release.
var held = struct {
	sync.Mutex
	dirs map[string]*hold
}{dirs: map[string]*hold{}}

type hold struct {
	dir  string
	srv  *server.Server // nil while the server starts
	file *os.File
}

// lockStore locks dir for a server of this process. It fails with
// ErrStoreInUse while another process, or a running server of this one,
// holds it.
func lockStore(dir string) (*hold, error) {
	held.Lock()
	defer held.Unlock()
	if h, ok := held.dirs[dir]; ok {
		if h.srv == nil || h.srv.Running() {
			return nil, fmt.Errorf("%w: %s is used by another server of this process", ErrStoreInUse, dir)
		}
		h.srv.WaitForShutdown()
		h.release()
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("embedded: locking the data directory: %w", err)
	}
	if err := flock(f); err != nil {
		pid := holder(f)
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("%w: %s is used by process %s, which holds %s; stop it, or give this server another data directory",
				ErrStoreInUse, dir, pid, path)
		}
		return nil, fmt.Errorf("embedded: locking %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	h := &hold{dir: dir, file: f}
	held.dirs[dir] = h
	return h, nil
}

// own records that srv runs on the locked directory, and releases the
// lock when srv has shut down.
func (h *hold) own(srv *server.Server) {
	held.Lock()
	h.srv = srv
	held.Unlock()
	go func() {
		srv.WaitForShutdown()
		held.Lock()
		defer held.Unlock()
		h.release()
	}()
}

// abandon releases the lock of a server that did not start.
func (h *hold) abandon() {
	held.Lock()
	defer held.Unlock()
	h.release()
}

// release closes the lock file, which drops the lock, once. held must be
// locked.
func (h *hold) release() {
	if held.dirs[h.dir] == h {
		delete(held.dirs, h.dir)
		h.file.Close()
	}
}

// holder reads the process id a lock's holder wrote into f.
func holder(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	if pid := string(bytes.TrimSpace(b[:n])); pid != "" {
		return pid
	}
	return "(unknown)"
}
