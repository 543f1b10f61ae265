package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// The flags that make the benchmark binary (guard-bench, or this
// package's test binary) one of a run's child processes.
const (
	// serveFlag makes it the server child: serveFlag <store dir> [-sync].
	serveFlag = "-bench-serve"
	// pipelineFlag makes it a pipeline child:
	// pipelineFlag <pipeline> <url> <Config as JSON>.
	pipelineFlag = "-bench-pipeline"
)

// The pipelines a child runs, besides the loops, which go by their names.
const (
	guardPipeline     = "guard"
	responderPipeline = "responder"
)

// RunChild runs this process as the child of a benchmark run that args
// (os.Args[1:]) name, and reports whether they named one. A pipeline child
// serves until its standard input closes: when the parent stops it or
// dies.
func RunChild(args []string) (bool, error) {
	switch {
	case len(args) >= 2 && args[0] == serveFlag:
		return true, Serve(args[1], len(args) > 2 && args[2] == "-sync")
	case len(args) == 4 && args[0] == pipelineFlag:
		var cfg Config
		if err := json.Unmarshal([]byte(args[3]), &cfg); err != nil {
			return true, fmt.Errorf("%s: the configuration: %w", pipelineFlag, err)
		}
		return true, servePipeline(args[1], args[2], cfg)
	}
	return false, nil
}

// servePipeline runs the named pipeline against the server at url until
// standard input closes or SIGTERM comes. The guard's log, at warning
// level and up, goes to standard error as JSON, for the parent to count.
func servePipeline(name, url string, cfg Config) error {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer cancel()
	cfg.log, cfg.warn = os.Stderr, &warnings{}
	var r *running
	var err error
	switch name {
	case guardPipeline:
		r, err = startGuard(ctx, url, cfg, slog.NewJSONHandler(os.Stderr, warnLevel))
	case responderPipeline:
		r, err = startResponder(url)
	default:
		for _, l := range newLoops(cfg).all() {
			if l.name == name {
				r, err = startLoop(ctx, url, cfg, l)
			}
		}
		if r == nil && err == nil {
			err = fmt.Errorf("no pipeline is called %q", name)
		}
	}
	if err != nil {
		return err
	}
	defer r.stop()
	fmt.Println("ready")
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	<-ctx.Done()
	return nil
}

// startProcess runs the named pipeline in a child process of its own, as
// guard-consumer runs in production: its garbage collections and its
// scheduling are its own, apart from the load generator's and the other
// pipelines'. Its standard error goes to the run's log; the guard's
// warnings in it are counted.
func startProcess(ctx context.Context, cfg Config, url, name string) (*running, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, pipelineFlag, name, url, string(js))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	logged := make(chan struct{})
	go func() {
		cfg.warn.countLines(stderr, cfg.log)
		close(logged)
	}()
	exited := make(chan error, 1)
	ready := make(chan bool, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		ready <- lines.Scan() && lines.Text() == "ready"
		_, _ = io.Copy(io.Discard, stdout)
		<-logged
		exited <- cmd.Wait()
	}()
	stop := func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(cfg.Timeout):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	select {
	case ok := <-ready:
		if !ok {
			stop()
			return nil, fmt.Errorf("the %s child exited before it was ready", name)
		}
	case <-ctx.Done():
		stop()
		return nil, ctx.Err()
	}
	return &running{stop: sync.OnceFunc(stop), pid: cmd.Process.Pid}, nil
}

// countLines copies the lines of a child's standard error to log, and
// counts those that are JSON log records of a warning or worse.
func (w *warnings) countLines(r io.Reader, log io.Writer) {
	lines := bufio.NewScanner(r)
	for lines.Scan() {
		var rec struct {
			Level string `json:"level"`
			Msg   string `json:"msg"`
		}
		if json.Unmarshal(lines.Bytes(), &rec) == nil {
			var level slog.Level
			if level.UnmarshalText([]byte(rec.Level)) == nil {
				w.note(level, rec.Msg)
			}
		}
		fmt.Fprintln(log, lines.Text())
	}
	if err := lines.Err(); err != nil && !errors.Is(err, os.ErrClosed) {
		fmt.Fprintf(log, "reading a child's log: %v\n", err)
	}
}
