// Command emitter-demo runs a small fleet of scripted agents against
// guard-consumer and prints, per agent, the decisions it received: a
// well-behaved agent, one that loops on the same call, one that alternates
// between two calls, and one whose tool keeps failing.
//
// With no flags it starts its own embedded JetStream server and
// guard-consumer in-process, so one command shows the whole system:
//
//	go run ./cmd/emitter-demo
//
// With --nats-url it uses a running guard-consumer's server instead, with
// an agent's credentials (--creds, --tls-ca) where the servers require
// them, as the shipped cluster does.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"time"

	"github.com/guardstream/guardstream/agentapi"
	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/auth"
	"github.com/guardstream/guardstream/internal/embedded"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/internal/service"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("emitter-demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	natsURL := fs.String("nats-url", "", "use the NATS server of a running guard-consumer (e.g. nats://127.0.0.1:4222)\ninstead of starting an embedded server and guard-consumer in-process")
	tenant := fs.String("tenant", "demo", "tenant id the agents run under")
	timeout := fs.Duration("verdict-timeout", 5*time.Second, "how long an agent waits for a verdict before failing closed")
	var sec auth.Client
	sec.RegisterFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, "emitter-demo runs scripted agents against guard-consumer and prints the decisions each received.\n\nUsage:\n  emitter-demo [flags]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "emitter-demo: %v\nRun 'emitter-demo -h' for the flags.\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "emitter-demo: unexpected argument %q; emitter-demo takes only flags\n", fs.Arg(0))
		return 2
	}
	if sec.Set() && *natsURL == "" {
		fmt.Fprint(stderr, "emitter-demo: -creds, -nkey and -tls-* are for --nats-url; the embedded demo needs none\n")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := demo(ctx, stdout, *natsURL, *tenant, *timeout, sec); err != nil {
		fmt.Fprintf(stderr, "emitter-demo: %v\n", err)
		return 1
	}
	return 0
}

func demo(ctx context.Context, w io.Writer, url, tenant string, timeout time.Duration, sec auth.Client) error {
	if url == "" {
		svc, err := startInProcess(ctx)
		if err != nil {
			return err
		}
		defer svc.Close()
		url = svc.URL()
		fmt.Fprintf(w, "started an embedded NATS server and guard-consumer at %s\n\n", url)
	}
	opts, err := sec.Options()
	if err != nil {
		return err
	}
	// An agent's credentials let it receive replies under its tenant's
	// inbox prefix only (docs/security.md).
	opts = append(opts, nats.Name("emitter-demo"), nats.CustomInboxPrefix(agentapi.InboxPrefix(tenant)))
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w (is guard-consumer running? without --nats-url the demo starts its own)", url, err)
	}
	defer nc.Close()
	c, err := client.New(nc, tenant, client.WithVerdictTimeout(timeout))
	if err != nil {
		return err
	}

	suffix := strconv.FormatInt(time.Now().UnixMilli(), 36)
	actors := make([]*actor, len(agents))
	errs := make([]error, len(agents))
	var wg sync.WaitGroup
	for i, ag := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spec := ag.spec
			spec.Agent = ag.name
			r, err := c.Start(ctx, ag.name+"-"+suffix, spec)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", ag.name, err)
				return
			}
			defer r.Close()
			actors[i] = &actor{run: r, patience: timeout}
			if err := ag.script(ctx, actors[i]); err != nil {
				errs[i] = fmt.Errorf("%s (run %s): %w", ag.name, r.ID(), err)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, ag := range agents {
		a := actors[i]
		fmt.Fprintf(w, "%s — %s (run %s)\n", ag.name, ag.about, a.run.ID())
		for _, l := range a.lines {
			fmt.Fprintf(w, "  %s\n", l)
		}
		if s := a.run.Stop(); s != nil {
			fmt.Fprintf(w, "  stopped by the %s guard: %s\n", s.Guard, s.Reason)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// startInProcess starts an embedded server and guard-consumer on a free
// port with a throwaway store.
func startInProcess(ctx context.Context) (*service.Service, error) {
	dir, err := os.MkdirTemp("", "emitter-demo-")
	if err != nil {
		return nil, err
	}
	sc, oc := streams.DefaultConfig(), objectstore.DefaultConfig()
	sc.Memory, oc.Memory = true, true
	return service.Start(ctx, service.Config{
		Embedded: embedded.Options{Name: "emitter-demo", Host: "127.0.0.1", Port: -1, StoreDir: dir},
		Streams:  sc,
		Outputs:  oc,
		Runner:   runner.DefaultConfig(sc.Partitions),
		Policy:   guard.DefaultPolicy(),
	})
}
