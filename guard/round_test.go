package guard_test

import (
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
)

// TestRefusedCallSettlesItsRound: with every guard of the default policy,
// a parallel round without a wait, one of whose calls the schema guard
// refuses, settles when the other results are in, the refused call listed
// in refused.
func TestRefusedCallSettlesItsRound(t *testing.T) {
	c := guard.Chain(guard.DefaultPolicy())
	h := processortest.NewHistory("acme", "round")
	h.Add(event.Event{Kind: event.KindRunStart, Tools: []event.Schema{{Name: "read_file", Schema: `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`}}})
	h.Add(event.Event{Kind: event.KindRound, Calls: []string{"c1", "c2", "c3"}})
	h.Call("read_file", `{"path":"a.go"}`).Call("reed_file", `{"path":"b.go"}`).Call("read_file", `{"path":"c.go"}`)
	h.ResultOf("c1", false, "package a").ResultOf("c3", false, "package c")
	r := c.NewRun()
	var out processors.Out
	var settled *event.Decision
	for _, ev := range h.Events() {
		c.Apply(r, &ev, &out)
		for _, d := range out.Decisions {
			t.Logf("%s %s: %s", ev.Kind, ev.Call, processortest.String(&d))
			if d.Kind == event.Settled {
				settled = &d
			}
		}
	}
	if settled == nil {
		t.Fatal("the round did not settle")
	}
	if len(settled.Calls) != 3 || len(settled.Missing) != 0 || len(settled.Refused) != 1 || settled.Refused[0] != "c2" {
		t.Errorf("settled %+v", settled)
	}
}
