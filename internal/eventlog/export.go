package eventlog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// Export writes the events AGENT_EVENTS holds now, of every tenant or of
// one, to w as JSON lines, in stream order, and returns how many it
// wrote. Timer events are exported with the rest: replayed, they expire
// leases and settle rounds as they did. A message that does not decode is
// skipped and counted in skipped: guard-consumer dead-lettered it.
func Export(ctx context.Context, js jetstream.JetStream, tenant string, w io.Writer) (n, skipped int, err error) {
	filter := "agent.*.*.*.*"
	if tenant != "" {
		if err := event.CheckID(tenant); err != nil {
			return 0, 0, fmt.Errorf("eventlog: tenant %q: %w", tenant, err)
		}
		filter = "agent.*." + tenant + ".*.*"
	}
	stream, err := js.Stream(ctx, streams.EventStream)
	if err != nil {
		return 0, 0, fmt.Errorf("eventlog: %s: %w", streams.EventStream, err)
	}
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		return 0, 0, err
	}
	last := info.State.LastSeq
	oc, err := js.OrderedConsumer(ctx, streams.EventStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{filter}})
	if err != nil {
		return 0, 0, err
	}
	bw := bufio.NewWriter(w)
	var line []byte
	var ev event.Event
	for done := last == 0; !done; {
		batch, err := oc.FetchNoWait(4096)
		if err != nil {
			return n, skipped, err
		}
		got := 0
		for m := range batch.Messages() {
			got++
			meta, err := m.Metadata()
			if err != nil {
				return n, skipped, err
			}
			if meta.Sequence.Stream >= last {
				done = true
			}
			if event.DecodeEvent(m.Data(), &ev) != nil {
				skipped++
				continue
			}
			line = Append(line[:0], &ev)
			if _, err := bw.Write(line); err != nil {
				return n, skipped, err
			}
			n++
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			return n, skipped, err
		}
		if got == 0 {
			break // nothing left that matches
		}
	}
	return n, skipped, bw.Flush()
}
