package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/guardstream/guardstream/internal/auth"
	"github.com/guardstream/guardstream/internal/eventlog"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// exportCmd writes the events AGENT_EVENTS holds as JSON lines. It
// connects as guard-consumer's other commands do: -creds or -nkey, and TLS
// with -tls-ca, -tls-cert and -tls-key (auth.Client.RegisterFlags).
func exportCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("guard-eval export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		url     = fs.String("nats-url", nats.DefaultURL, "the NATS server or cluster guard-consumer uses")
		tenant  = fs.String("tenant", "", "export the runs of this tenant only")
		out     = fs.String("o", "-", "write to this file instead of stdout")
		timeout = fs.Duration("timeout", time.Minute, "give up after this long")
	)
	client := new(auth.Client)
	client.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("export takes no arguments, got %q", fs.Args())}
	}
	opts, err := client.Options()
	if err != nil {
		return usageError{err.Error()}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	nc, err := nats.Connect(*url, append(opts, nats.Name("guard-eval export"))...)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", *url, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	w := stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	n, skipped, err := eventlog.Export(ctx, js, *tenant, w)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "guard-eval: exported %d events (%d undecodable skipped)\n", n, skipped)
	return nil
}
