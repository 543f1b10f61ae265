package bench

import (
	"context"
	"encoding/binary"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/nats-io/nats.go"
)

// Latency is the answer latency in one window, or in several pooled: for
// guard-consumer, from a tool call's publish to its verdict reaching the
// agent; for a floor or the baseline, from an event's publish to its
// answer reaching the load generator.
type Latency struct {
	Offered  int     `json:"offered_events_per_second"`
	Achieved float64 `json:"achieved_events_per_second"`
	Samples  int     `json:"samples"`
	Missing  int     `json:"samples_without_answer"`
	P50      float64 `json:"p50_ms"`
	P99      float64 `json:"p99_ms"`
	P999     float64 `json:"p999_ms"`
	// CPU and ServerCPU are the CPU time, in µs per event sent, that the
	// target's process and the server spent from the window's first event
	// until the target had handled its last: what each answer costs the
	// machine whose cores they share. 0 in a pooled Latency.
	CPU       float64 `json:"cpu_us_per_event,omitempty"`
	ServerCPU float64 `json:"server_cpu_us_per_event,omitempty"`
}

// target is what a latency window offers events to: the guard, a verdict
// loop, or the core request/reply responder.
type target struct {
	name    string
	answers string // the subject its answers arrive on
	// guard: the answers are verdicts, and only tool calls are sampled;
	// otherwise the answers are echoes of a tag the window puts first in
	// each event, and every event is sampled.
	guard bool
	// core: events are core requests, not JetStream publishes.
	core    bool
	subject func(msg) string                // where an event is sent
	settle  func(ctx context.Context) error // waits until it has handled everything sent
	pid     int                             // the process it runs in, whose CPU a window measures
}

// tagBytes is the tag put first in each event sent to a target that
// echoes: the window's id and the event's index in it.
const tagBytes = 8

// recorder holds a window's send and answer times, by event, as
// nanoseconds after its epoch (plus one: 0 is none).
type recorder struct {
	epoch    time.Time
	sent     []int64 // written by the sender only
	got      []atomic.Int64
	sampled  int
	answered atomic.Int64
}

func newRecorder(n int) *recorder {
	return &recorder{epoch: time.Now(), sent: make([]int64, n), got: make([]atomic.Int64, n)}
}

func (r *recorder) now() int64 { return int64(time.Since(r.epoch)) + 1 }

func (r *recorder) send(i int) {
	r.sent[i] = r.now()
	r.sampled++
}

// answer records the first answer to event i.
func (r *recorder) answer(i int) {
	if i >= 0 && i < len(r.got) && r.got[i].CompareAndSwap(0, r.now()) {
		r.answered.Add(1)
	}
}

// taken returns the sorted latencies of the sampled events answered, and
// how many sampled events have no answer.
func (r *recorder) taken() ([]time.Duration, int) {
	d := make([]time.Duration, 0, r.sampled)
	for i, s := range r.sent {
		if g := r.got[i].Load(); s != 0 && g != 0 {
			d = append(d, time.Duration(g-s))
		}
	}
	slices.Sort(d)
	return d, r.sampled - len(d)
}

// window is one offer of events to a target at a fixed rate.
type window struct {
	id     uint32
	t      *target
	rate   int // events/s; 0 is as fast as possible
	msgs   []msg
	server int // the server's process id, if it is a child
}

// offer sends w's events at its rate and measures the latency of their
// answers; it returns the latencies, sorted, for pooling. It waits until
// the target has handled everything.
func (w window) offer(ctx context.Context, nc *nats.Conn) (Latency, []time.Duration, error) {
	out := make([]nats.Msg, len(w.msgs))
	calls := map[string]int{}
	for i, m := range w.msgs {
		out[i] = nats.Msg{Subject: w.t.subject(m), Data: m.data}
		switch {
		case w.t.guard:
			if m.call != "" {
				calls[m.run+"/"+m.call] = i
			}
		default:
			data := make([]byte, tagBytes+len(m.data))
			binary.BigEndian.PutUint32(data, w.id)
			binary.BigEndian.PutUint32(data[4:], uint32(i))
			copy(data[tagBytes:], m.data)
			out[i].Data = data
		}
		if w.t.core {
			out[i].Reply = w.t.answers
		}
	}
	rec := newRecorder(len(out))
	handler := func(m *nats.Msg) {
		if len(m.Data) >= tagBytes && binary.BigEndian.Uint32(m.Data) == w.id {
			rec.answer(int(binary.BigEndian.Uint32(m.Data[4:])))
		}
	}
	if w.t.guard {
		// Only verdicts answer calls. The other decisions (outputs above
		// all, which carry the view of a result) are skipped by their
		// subject, unread: decoding them would add the load generator's
		// garbage to the guard's process only in the guard's windows.
		verdict, stop := "."+event.Allow.Token(), "."+event.Stop.Token()
		handler = func(m *nats.Msg) {
			if !strings.HasSuffix(m.Subject, verdict) && !strings.HasSuffix(m.Subject, stop) {
				return
			}
			var d event.Decision
			if event.DecodeDecision(m.Data, &d) != nil || !d.Kind.IsVerdict() || d.Call == "" {
				return
			}
			if i, ok := calls[d.Run+"/"+d.Call]; ok {
				rec.answer(i)
			}
		}
	}
	sub, err := nc.Subscribe(w.t.answers, handler)
	if err != nil {
		return Latency{}, nil, err
	}
	defer sub.Unsubscribe()
	var snd *sender
	if !w.t.core {
		if snd, err = newSender(nc); err != nil {
			return Latency{}, nil, err
		}
		defer snd.close()
	}
	if err := nc.Flush(); err != nil {
		return Latency{}, nil, err
	}

	cpu := cpuTimes{processCPU(w.t.pid), processCPU(w.server)}
	start := time.Now()
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for i := 0; i < len(out); {
		due := len(out)
		if w.rate > 0 {
			due = min(len(out), int(time.Since(start).Seconds()*float64(w.rate))+1)
		}
		for ; i < due; i++ {
			if !w.t.guard || w.msgs[i].call != "" {
				rec.send(i)
			}
			if w.t.core {
				err = nc.PublishMsg(&out[i])
			} else {
				err = snd.publish(ctx, &out[i])
			}
			if err != nil {
				return Latency{}, nil, err
			}
		}
		if i < len(out) {
			select {
			case <-t.C:
			case <-ctx.Done():
				return Latency{}, nil, ctx.Err()
			}
		}
	}
	if w.t.core {
		err = nc.Flush()
	} else {
		err = snd.wait(ctx)
	}
	if err != nil {
		return Latency{}, nil, err
	}
	achieved := float64(len(out)) / time.Since(start).Seconds()

	// Give the last answers time to arrive, then let the target finish.
	deadline := time.Now().Add(answerWait)
	for time.Now().Before(deadline) && rec.answered.Load() < int64(rec.sampled) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := w.t.settle(ctx); err != nil {
		return Latency{}, nil, err
	}
	used, server := cpuTimes{processCPU(w.t.pid), processCPU(w.server)}.perEvent(cpu, len(out))
	taken, missing := rec.taken()
	return Latency{
		Offered: w.rate, Achieved: achieved, Samples: rec.sampled, Missing: missing,
		P50: quantile(taken, 0.5), P99: quantile(taken, 0.99), P999: quantile(taken, 0.999),
		CPU: used, ServerCPU: server,
	}, taken, nil
}

// answerWait bounds the wait for a window's last answers.
const answerWait = 10 * time.Second

// pooled returns the latency of windows' samples together.
func pooled(windows []Latency, samples [][]time.Duration) Latency {
	var p Latency
	for _, w := range windows {
		p.Offered, p.Samples, p.Missing = w.Offered, p.Samples+w.Samples, p.Missing+w.Missing
		p.Achieved += w.Achieved / float64(len(windows))
	}
	all := slices.Concat(samples...)
	slices.Sort(all)
	p.P50, p.P99, p.P999 = quantile(all, 0.5), quantile(all, 0.99), quantile(all, 0.999)
	return p
}

func quantile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := min(int(q*float64(len(sorted))), len(sorted)-1)
	return float64(sorted[i].Microseconds()) / 1000
}

// median returns the median of xs, the mean of the middle two for an even
// count; 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
