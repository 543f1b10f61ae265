package integration

import (
	"context"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
)

const readFileSchema = `{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"],"additionalProperties":false}`

// TestSchemaRepairRejectStop: a call with file_path where the schema says
// path comes back repaired; an unrepairable call is rejected naming the
// field; the third invalid call in a row stops the run.
func TestSchemaRepairRejectStop(t *testing.T) {
	s := newSystem(t, 4)
	s.startGuard(guard.DefaultPolicy())
	ctx := context.Background()
	r, err := s.client("acme", client.WithVerdictTimeout(5*time.Second)).Start(ctx, "schemas", client.RunSpec{
		Tools: []event.Schema{{Name: "read_file", Schema: readFileSchema}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	v, err := r.Call(ctx, client.Call{Tool: "read_file", Args: `{"file_path":"main.go","limit":"40"}`})
	if err != nil || v.Kind != event.Repair || v.Guard != "schema" {
		t.Fatalf("file_path call: %+v, %v; want a repair by the schema guard", v.Decision, err)
	}
	if v.Args != `{"limit":40,"path":"main.go"}` || !v.Allowed() {
		t.Errorf("repaired args %s; want path renamed and limit coerced to an integer", v.Args)
	}
	if err := r.Result(ctx, client.Result{Call: v.Call, Out: "package main"}); err != nil {
		t.Fatal(err)
	}

	bad := []string{`{"path":7}`, `{"path":["a","b"]}`, `{"limit":3}`}
	for i, args := range bad {
		v, err := r.Call(ctx, client.Call{Tool: "read_file", Args: args})
		if err != nil {
			t.Fatal(err)
		}
		if i < 2 {
			if v.Kind != event.Reject || v.Reason != event.ReasonInvalidArgs || len(v.Diags) == 0 || v.Diags[0].Path != "/path" {
				t.Fatalf("bad call %d (%s): %+v; want INVALID_ARGS naming /path", i+1, args, v.Decision)
			}
			t.Logf("bad call %d: %s (want %s, got %s)", i+1, v.Msg, v.Diags[0].Want, v.Diags[0].Got)
			continue
		}
		if v.Kind != event.Stop || v.Reason != event.ReasonSystemError || len(v.Diags) == 0 {
			t.Fatalf("third bad call in a row: %+v; want a stop with SYSTEM_ERROR and diagnostics", v.Decision)
		}
	}
	select {
	case <-r.Done():
	case <-time.After(time.Second):
		t.Fatal("the run is not marked stopped")
	}
}

// TestUnknownToolNamesTheNearest: a misspelt tool is refused with the
// registered tools nearest to it.
func TestUnknownToolNamesTheNearest(t *testing.T) {
	s := newSystem(t, 4)
	s.startGuard(guard.DefaultPolicy())
	ctx := context.Background()
	r, err := s.client("acme", client.WithVerdictTimeout(5*time.Second)).Start(ctx, "typo", client.RunSpec{
		Tools: []event.Schema{{Name: "read_file", Schema: readFileSchema}, {Name: "write_file", Schema: `{}`}, {Name: "list_dir", Schema: `{}`}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v, err := r.Call(ctx, client.Call{Tool: "reed_file", Args: `{"path":"a"}`})
	if err != nil || v.Reason != event.ReasonUnknownTool || len(v.Near) == 0 || v.Near[0] != "read_file" {
		t.Fatalf("%+v, %v; want UNKNOWN_TOOL suggesting read_file first", v.Decision, err)
	}
	t.Log(v.Msg)
}
