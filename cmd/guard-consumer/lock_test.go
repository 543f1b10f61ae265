package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/internal/embedded"
)

// childArgs, set in the environment, makes the test binary run
// guard-consumer with these (space-separated) arguments instead of the
// tests: a second, real process.
const childArgs = "GUARD_CONSUMER_CHILD_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(childArgs); ok {
		os.Exit(run(strings.Fields(args), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestDataDirInUseByAnotherProcess starts guard-consumer in one process,
// then a second one on the same data directory: the second is refused
// before it opens the store, and names the first's process id. When the
// first is killed with SIGKILL, the directory is free again.
func TestDataDirInUseByAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childArgs+"=-listen 127.0.0.1:-1 -http off -partitions 1 -data-dir "+dir)
	stderr, err := child.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	lines := bufio.NewScanner(stderr)
	running := false
	for !running && lines.Scan() {
		running = strings.Contains(lines.Text(), "guard-consumer running")
	}
	if !running {
		t.Fatal("the first guard-consumer never said it was running")
	}
	go func() {
		for lines.Scan() {
		}
	}()
	pid := strconv.Itoa(child.Process.Pid)

	var out, errOut bytes.Buffer
	code := run([]string{"-listen", "127.0.0.1:-1", "-http", "off", "-partitions", "1", "-data-dir", dir}, &out, &errOut)
	t.Logf("second guard-consumer (exit %d): %s", code, strings.TrimSpace(errOut.String()))
	if code != 1 || !strings.Contains(errOut.String(), "in use") || !strings.Contains(errOut.String(), "process "+pid) {
		t.Errorf("second guard-consumer on %s: exit %d, %q; want exit 1 naming process %s", dir, code, errOut.String(), pid)
	}
	if held, err := os.ReadFile(filepath.Join(dir, embedded.LockFile)); err != nil || strings.TrimSpace(string(held)) != pid {
		t.Errorf("lock file holds %q (%v), want the first process's id %s", held, err, pid)
	}

	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	s, err := embedded.Start(embedded.Options{Host: "127.0.0.1", Port: -1, StoreDir: dir})
	if err != nil {
		t.Fatalf("after SIGKILL of its holder, the store is still refused: %v", err)
	}
	s.Shutdown()
	s.WaitForShutdown()
}
