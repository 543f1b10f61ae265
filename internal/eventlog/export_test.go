package eventlog_test

import (
	"bufio"
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/eventlog"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// TestExport publishes two tenants' runs to AGENT_EVENTS and exports one
// tenant's: its events come back in order, as published.
func TestExport(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	natstest.Provision(t, js, nil)
	ctx := context.Background()
	var want []event.Event
	for _, tenant := range []string{"acme", "other"} {
		for i, ev := range []event.Event{
			{Kind: event.KindRunStart, Agent: "coder", Workspace: "/w"},
			{Kind: event.KindStep, Step: 1, TokensIn: 10},
			{Kind: event.KindCall, Call: "c1", Tool: "bash", Args: `{"command":"ls"}`},
			{Kind: event.KindResult, Call: "c1", Exit: 1, Err: true, Out: "x"},
			{Kind: event.KindRunEnd, Status: event.StatusCompleted},
		} {
			ev.V, ev.Tenant, ev.Run, ev.Seq, ev.TS = 1, tenant, "run-1", int64(i+1), int64(1000+i)
			subj, err := streams.EventSubject(ev.Tenant, ev.Run, ev.Kind)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := js.Publish(ctx, subj, event.AppendEvent(nil, &ev), jetstream.WithMsgID(tenant+".run-1."+string(rune('0'+i)))); err != nil {
				t.Fatal(err)
			}
			if tenant == "acme" {
				want = append(want, ev)
			}
		}
	}
	var buf bytes.Buffer
	n, skipped, err := eventlog.Export(ctx, js, "acme", &buf)
	if err != nil || n != len(want) || skipped != 0 {
		t.Fatalf("Export: %d events, %d skipped, %v; want %d", n, skipped, err, len(want))
	}
	sc := bufio.NewScanner(&buf)
	var got []event.Event
	for sc.Scan() {
		ev, err := eventlog.Parse(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("exported\n%+v\nwant\n%+v", got, want)
	}
	t.Logf("exported %d events of tenant acme:\n%s", n, eventlog.Append(nil, &want[3]))
}
