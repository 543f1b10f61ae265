package bench

import (
	"fmt"
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/streams"
)

// msg is a pre-encoded event.
type msg struct {
	subject string
	data    []byte
	kind    event.Kind
	call    string // the call id, for a call event
	run     string
}

// Mix shapes the synthetic fleet.
type Mix struct {
	Tenant  string
	Runs    int // runs the events are spread over
	Events  int // events in all
	Payload int // target payload size in bytes
	Prefix  string
	// Plain leaves out the looping and leased runs, and spreads the
	// results that name a workspace path over runs as well as calls, so
	// that events cost alike however many each run has.
	Plain bool
}

var tools = []string{"read_file", "grep", "edit_file", "run_tests", "list_dir", "web_search"}

// Message is a pre-encoded event and the subject an agent publishes it on.
type Message struct {
	Subject string
	Data    []byte
}

// Messages returns the mix's events as an agent fleet would publish them.
func (m Mix) Messages() []Message {
	events := m.events()
	out := make([]Message, len(events))
	for i, e := range events {
		out[i] = Message{Subject: e.subject, Data: e.data}
	}
	return out
}

// events returns the mix's events, interleaved across runs, each run's in
// its own order. One run in 20 loops on an identical call (stopped at the
// 5th), one in 4 holds a lease and heartbeats, and long runs reach the
// step limit; the rest are well-behaved. One result in 8 names a path in
// the run's workspace, so its view differs from it and its full output is
// stored.
func (m Mix) events() []msg {
	runs := max(m.Runs, 1)
	per := max((m.Events+runs-1)/runs, 4) // rounded up: the runs hold at least Events
	byRun := make([][]msg, runs)
	for r := range byRun {
		byRun[r] = m.run(r, per)
	}
	out := make([]msg, 0, m.Events)
	for i := 0; len(out) < m.Events; i++ {
		progressed := false
		for r := range byRun {
			if i < len(byRun[r]) && len(out) < m.Events {
				out = append(out, byRun[r][i])
				progressed = true
			}
		}
		if !progressed {
			break
		}
	}
	return out
}

func (m Mix) run(r, n int) []msg {
	id := fmt.Sprintf("%sr%d", m.Prefix, r)
	looper, leased := r%20 == 7 && !m.Plain, r%4 == 1 && !m.Plain
	stored := 0 // the results that name a workspace path: those where (k+stored)%8 is 5
	if m.Plain {
		stored = r // one in 8 at every length of run
	}
	var seq int64
	var out []msg
	add := func(ev event.Event) {
		seq++
		ev.V, ev.Tenant, ev.Run, ev.Seq, ev.TS = event.Version, m.Tenant, id, seq, 1767225600000+seq*100
		subj, _ := streams.EventSubject(ev.Tenant, ev.Run, ev.Kind)
		m := msg{subject: subj, data: event.AppendEvent(nil, &ev), kind: ev.Kind, run: id}
		if ev.Kind == event.KindCall {
			m.call = ev.Call
		}
		out = append(out, m)
	}
	start := event.Event{Kind: event.KindRunStart, Agent: "bench", Workspace: "/work/" + id}
	if leased {
		start.Lease = 60_000
	}
	add(start)
	for k := 0; len(out) < n-1; k++ {
		add(event.Event{Kind: event.KindStep, Step: int64(k), Turn: int64(1 + k/8), TokensIn: 1800, TokensOut: 300, Cost: 900,
			Context: int64(20_000 + 3000*(k%30)), Window: 128_000})
		tool := tools[(r+k)%len(tools)]
		args := fmt.Sprintf(`{"path":"src/pkg%d/file%d.go","query":"%s","n":%d}`, r%17, k, pad(m.Payload/3), k)
		if looper && k >= 3 {
			tool, args = "read_file", `{"path":"config.yaml"}`
		}
		call := fmt.Sprintf("c%d", k+1)
		add(event.Event{Kind: event.KindCall, Call: call, Tool: tool, Args: args})
		out := id + "/" + call + ": " + pad(m.Payload/2)
		if (k+stored)%8 == 5 { // names a workspace path: the model sees it relative, the store keeps the output
			out = "/work/" + out
		}
		add(event.Event{Kind: event.KindResult, Call: call, Out: out})
		if leased && k%3 == 2 {
			add(event.Event{Kind: event.KindHeartbeat})
		}
	}
	add(event.Event{Kind: event.KindRunEnd, Status: event.StatusCompleted})
	return out
}

func pad(n int) string { return strings.Repeat("x", max(n-60, 8)) }
