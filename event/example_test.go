package event_test

import (
	"errors"
	"fmt"

	"github.com/guardstream/guardstream/event"
)

// This example is one tool call as an agent sees it: encode the call for
// agent.<tenant>.<run>.call, then decode what arrives on the run's control
// subjects and pick out the call's verdict.
func Example() {
	call := event.Event{
		V:      event.Version,
		Kind:   event.KindCall,
		Tenant: "acme",
		Run:    "run-42",
		Seq:    3,
		TS:     1767225602000, // milliseconds since the Unix epoch
		Call:   "c1",
		Tool:   "read_file",
		Args:   `{"path":"src/main.go"}`, // JSON text, as the model produced it
	}
	if err := call.Validate(); err != nil {
		fmt.Println("invalid call:", err)
		return
	}
	payload := event.AppendEvent(nil, &call)
	fmt.Printf("publish %d bytes on agent.%s.%s.%s with Nats-Msg-Id %s.%s.%d\n",
		len(payload), call.Tenant, call.Run, call.Kind.Token(), call.Tenant, call.Run, call.Seq)

	// What guard-consumer publishes back, as it would arrive on
	// guard.ctl.acme.run-42.>: an advice, then the verdict.
	arrivals := [][]byte{
		event.AppendDecision(nil, &event.Decision{
			V: event.Version, Kind: event.Advise, Tenant: "acme", Run: "run-42", Seq: 3, TS: call.TS, Call: "c1", Guard: "loop",
			Steer:  &event.Steer{Kind: event.SteerAvoidRepeat, Sig: "1b7e5bb760b98528", Tool: "read_file"},
			Counts: []event.Counter{{Name: "repeat", Value: 3}},
			Msg:    "you have made this exact read_file call 3 times in a row",
		}),
		event.AppendDecision(nil, &event.Decision{
			V: event.Version, Kind: event.Allow, Tenant: "acme", Run: "run-42", Seq: 3, TS: call.TS, Call: "c1",
		}),
	}
	for _, b := range arrivals {
		var d event.Decision
		if err := event.DecodeDecision(b, &d); err != nil {
			fmt.Println("skipping a decision this agent cannot read:", err)
			continue
		}
		switch {
		case d.Kind == event.Advise:
			fmt.Printf("advice for the next step: %s %s (%s=%d)\n", d.Steer.Kind, d.Steer.Sig, d.Counts[0].Name, d.Counts[0].Value)
		case d.Kind.IsVerdict() && d.Call == call.Call:
			fmt.Printf("verdict for %s: %s\n", d.Call, d.Kind)
		}
	}
	// Output:
	// publish 94 bytes on agent.acme.run-42.call with Nats-Msg-Id acme.run-42.3
	// advice for the next step: avoid_repeat 1b7e5bb760b98528 (repeat=3)
	// verdict for c1: allow
}

// Decoding reports which field is wrong, so a dead letter says what to fix.
func ExampleDecodeEvent() {
	// A call whose seq was sent as a string: {"v":1,"k":4,"tn":"acme",
	// "run":"run-42","seq":"3",...}, written out by hand.
	b := []byte{
		0x86, 0xa1, 'v', 0x01, 0xa1, 'k', 0x04, 0xa2, 't', 'n', 0xa4, 'a', 'c', 'm', 'e',
		0xa3, 'r', 'u', 'n', 0xa6, 'r', 'u', 'n', '-', '4', '2', 0xa3, 's', 'e', 'q', 0xa1, '3',
		0xa2, 't', 's', 0xcf, 0x00, 0x00, 0x01, 0x9b, 0x76, 0xda, 0xaf, 0xd0,
	}
	var ev event.Event
	err := event.DecodeEvent(b, &ev)
	var fe *event.FieldError
	if errors.As(err, &fe) {
		fmt.Println("field:", fe.Field)
		fmt.Println("wrong type:", errors.Is(err, event.ErrWrongType))
	}
	fmt.Println(err)
	// Output:
	// field: seq
	// wrong type: true
	// event: field has the wrong type: "seq": want integer, got string
}

// A large output travels by reference: the agent puts its bytes in the
// output store (the GUARD_OUTPUTS stream) under their digest, then publishes the result
// with ref instead of out.
func ExampleDigest() {
	out := []byte("hello")
	result := event.Event{
		V: event.Version, Kind: event.KindResult, Tenant: "acme", Run: "run-42", Seq: 4, TS: 1767225603000,
		Call: "c1",
		Ref:  &event.OutputRef{Digest: event.Digest(out), Size: int64(len(out))},
	}
	fmt.Println("object name:", result.Ref.Digest)
	fmt.Println("valid:", result.Validate() == nil)

	result.Out = "hello" // inline and by reference at once
	fmt.Println(result.Validate())
	// Output:
	// object name: sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824
	// valid: true
	// event: invalid field: "ref": a result carries its output inline in out or by reference in ref, not both
}
