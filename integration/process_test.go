package integration

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// guardBinary builds cmd/guard-consumer once per test binary.
func guardBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "guard-consumer-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "guard-consumer")
		out, err := exec.Command("go", "build", "-o", binary, "github.com/guardstream/guardstream/cmd/guard-consumer").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("go build: %s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building guard-consumer: %v", buildErr)
	}
	return binary
}

// process is guard-consumer running as a separate OS process.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	log  []string // its output
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.log, "\n")
}

// startProcess starts guard-consumer against the test's server and waits
// until it consumes.
func (s *system) startProcess() *process { return s.startProcessWith() }

// startProcessWith is startProcess with extra flags.
func (s *system) startProcessWith(flags ...string) *process {
	s.t.Helper()
	args := append([]string{"-nats-url", s.server.ClientURL(),
		"-partitions", strconv.Itoa(s.cfg.Partitions), "-ack-wait", "2s", "-log-level", "debug"}, flags...)
	cmd := exec.Command(guardBinary(s.t), args...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		pw.Close()
		close(p.done)
	}()
	ready := make(chan struct{})
	go func() {
		lines := bufio.NewScanner(pr)
		once := sync.Once{}
		for lines.Scan() {
			p.mu.Lock()
			p.log = append(p.log, lines.Text())
			p.mu.Unlock()
			if strings.Contains(lines.Text(), "runner started") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-p.done:
		time.Sleep(100 * time.Millisecond) // let the reader drain the pipe
		s.t.Fatalf("guard-consumer exited during start:\n%s", p.output())
	case <-time.After(20 * time.Second):
		s.t.Fatal("guard-consumer did not start within 20s")
	}
	s.t.Cleanup(p.kill)
	return p
}

// kill sends SIGKILL: no drain, no clean shutdown.
func (p *process) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}
