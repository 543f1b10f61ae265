package eventlog_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/eventlog"
)

// TestVectors: the JSON form of every event vector parses to the event
// its msgpack bytes decode to, and Append writes a line that parses back
// to it.
func TestVectors(t *testing.T) {
	b, err := os.ReadFile("../../event/testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vecs []struct {
		Name, Type, Hex string
		JSON            json.RawMessage
	}
	if err := json.Unmarshal(b, &vecs); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vecs {
		if v.Type != "event" {
			continue
		}
		raw, _ := hex.DecodeString(v.Hex)
		var want event.Event
		if err := event.DecodeEvent(raw, &want); err != nil {
			continue // a vector of a malformed event
		}
		got, err := eventlog.Parse(v.JSON)
		if err != nil {
			t.Errorf("%s: %v", v.Name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: parsed %+v, want %+v", v.Name, got, want)
		}
		line := eventlog.Append(nil, &want)
		again, err := eventlog.Parse(line)
		if err != nil || !reflect.DeepEqual(again, want) || !bytes.HasSuffix(line, []byte("\n")) {
			t.Errorf("%s: %s parses back to %+v, %v", v.Name, line, again, err)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d event vectors checked", n)
	}
}

func TestAppendKeepsWireOrder(t *testing.T) {
	ev := event.Event{V: 1, Kind: event.KindResult, Tenant: "acme", Run: "r", Seq: 4, TS: 5, Call: "c1", Exit: 2, Out: "é\n", Verify: true}
	want := `{"v":1,"k":5,"tn":"acme","run":"r","seq":4,"ts":5,"call":"c1","out":"é\n","exit":2,"verify":true}` + "\n"
	if got := string(eventlog.Append(nil, &ev)); got != want {
		t.Errorf("Append = %s, want %s", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, line := range []string{
		`{"v":1,"k":4,"tn":"acme","run":"r","seq":1.5,"ts":1}`, // a float, as msgpack would refuse it
		`{"v":1,"k":4,"tn":"acme","run":"r","seq":"1","ts":1}`,
		`[1,2]`,
		`{`,
	} {
		if _, err := eventlog.Parse([]byte(line)); !errors.Is(err, eventlog.ErrLine) {
			t.Errorf("Parse(%s) = %v, want ErrLine", line, err)
		}
	}
}
