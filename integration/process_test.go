package integration

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	cmd      *exec.Cmd
	done     chan struct{}
	mu       sync.Mutex
	log      []string // its output
	instance string   // its runner's id in service discovery
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
				once.Do(func() {
					p.instance = field(lines.Text(), "instance")
					close(ready)
				})
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
	s.t.Cleanup(func() {
		p.kill()
		if s.t.Failed() {
			s.t.Logf("guard-consumer %s (pid %d) logged, last lines:\n%s", p.instance, p.cmd.Process.Pid, p.tail(60))
		}
	})
	return p
}

// tail returns the last n lines of the process's output that are not
// debug lines.
func (p *process) tail(n int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for i := len(p.log) - 1; i >= 0 && len(out) < n; i-- {
		if !strings.Contains(p.log[i], "level=DEBUG") {
			out = append(out, p.log[i])
		}
	}
	slices.Reverse(out)
	return strings.Join(out, "\n")
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

// term sends SIGTERM and returns how long the process took to exit, or
// fails the test if it did not within limit.
func (p *process) term(t *testing.T, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return time.Since(start)
	case <-time.After(limit):
		t.Fatalf("guard-consumer did not exit within %v of SIGTERM:\n%s", limit, p.output())
		return 0
	}
}

// signal sends sig to the process: SIGSTOP freezes it whole, as a paused
// VM or a stuck node would, and SIGCONT lets it go on where it was.
func (p *process) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v to guard-consumer %s: %v", sig, p.instance, err)
	}
}

// mark returns how many lines the process has logged so far, for since.
func (p *process) mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.log)
}

// since returns the lines logged from mark on that contain s.
func (p *process) since(mark int, s string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, l := range p.log[min(mark, len(p.log)):] {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}

// count returns how many of the process's log lines contain s.
func (p *process) count(s string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, l := range p.log {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// field returns the value of key in a text-format log line.
func field(line, key string) string {
	_, v, ok := strings.Cut(" "+line, " "+key+"=")
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, " ")
	return strings.Trim(v, `"`)
}
