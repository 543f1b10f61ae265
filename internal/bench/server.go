package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/guardstream/guardstream/internal/embedded"
	"github.com/nats-io/nats-server/v2/server"
)

// Serve runs a JetStream server for the parent benchmark process: it prints
// "ready <url>" when it accepts connections, then serves until killed,
// taking CPU profiles of itself as its standard input asks (profiler).
func Serve(storeDir string, sync bool) error {
	s, err := server.NewServer(&server.Options{
		ServerName: "guard-bench", Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: storeDir, NoSigs: true, NoLog: true, SyncAlways: sync,
	})
	if err != nil {
		return err
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		return embedded.ErrNotReady
	}
	fmt.Printf("ready %s\n", s.ClientURL())
	go profiler(os.Stdin, os.Stdout)
	s.WaitForShutdown()
	return nil
}

// profiler serves the server child's profile requests, a line each on in,
// answering each on out: "profile <file>" starts a CPU profile written to
// file ("profiling"), "stop" ends it ("stopped"); a request that fails is
// answered "error <why>".
func profiler(in io.Reader, out io.Writer) {
	var f *os.File
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		req, path, _ := strings.Cut(lines.Text(), " ")
		var err error
		switch {
		case req == "profile" && f == nil:
			if f, err = os.Create(path); err == nil {
				if err = pprof.StartCPUProfile(f); err != nil {
					_ = f.Close()
					f = nil
				}
			}
			if err == nil {
				fmt.Fprintln(out, "profiling")
			}
		case req == "stop" && f != nil:
			pprof.StopCPUProfile()
			err, f = f.Close(), nil
			if err == nil {
				fmt.Fprintln(out, "stopped")
			}
		default:
			err = fmt.Errorf("%q is not a request the server child can serve now", lines.Text())
		}
		if err != nil {
			fmt.Fprintln(out, "error", err)
		}
	}
}

// child is a server process started by startServer.
type child struct {
	cmd     *exec.Cmd
	url     string
	in      io.WriteCloser
	answers chan string // the child's standard output after "ready", a line each
}

// childWait bounds the wait for the server child's answer to a request.
const childWait = 10 * time.Second

// startServer starts this binary as a server child (see Serve).
func startServer(ctx context.Context, storeDir string, sync bool) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{serveFlag, storeDir}
	if sync {
		args = append(args, "-sync")
	}
	cmd := exec.CommandContext(ctx, self, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if url, ok := strings.CutPrefix(lines.Text(), "ready "); ok {
			c := &child{cmd: cmd, url: url, in: in, answers: make(chan string, 1)}
			go func() {
				for lines.Scan() {
					c.answers <- lines.Text()
				}
				close(c.answers)
			}()
			return c, nil
		}
	}
	_ = cmd.Process.Kill()
	return nil, fmt.Errorf("the server child exited before it was ready: %v", cmd.Wait())
}

// profileServer starts the server child's CPU profile called name, when
// c.ServerProfile asks for one, and returns what ends it.
func (c Config) profileServer(name string) (stop func() error, err error) {
	if c.ServerProfile == "" || c.server == nil {
		return func() error { return nil }, nil
	}
	return c.server.profile(c.ServerProfile + "-" + name + ".pprof")
}

// pid returns the child's process id, 0 if there is no child.
func (c *child) pid() int {
	if c == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// profile starts a CPU profile of the child written to path, and returns
// what ends it.
func (c *child) profile(path string) (stop func() error, err error) {
	if err := c.ask("profile "+path, "profiling"); err != nil {
		return nil, fmt.Errorf("profiling the server into %s: %w", path, err)
	}
	return func() error {
		if err := c.ask("stop", "stopped"); err != nil {
			return fmt.Errorf("ending the server's profile %s: %w", path, err)
		}
		return nil
	}, nil
}

// ask sends the child a request and waits, at most childWait, for its
// answer, want.
func (c *child) ask(req, want string) error {
	if _, err := fmt.Fprintln(c.in, req); err != nil {
		return err
	}
	select {
	case got, ok := <-c.answers:
		switch {
		case !ok:
			return errors.New("the server child has gone")
		case got != want:
			return errors.New(strings.TrimPrefix(got, "error "))
		}
		return nil
	case <-time.After(childWait):
		return fmt.Errorf("no answer from the server child within %v", childWait)
	}
}

func (c *child) stop() {
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}
