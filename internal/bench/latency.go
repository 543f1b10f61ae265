package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Latency is the answer latency at one offered load: for guard-consumer,
// from a tool call's publish to its verdict reaching the agent; for the
// baseline, from an event's publish to the message answering it.
type Latency struct {
	Offered  int     `json:"offered_events_per_second"` // 0: saturation
	Achieved float64 `json:"achieved_events_per_second"`
	Samples  int     `json:"samples"`
	Missing  int     `json:"samples_without_answer"`
	P50      float64 `json:"p50_ms"`
	P99      float64 `json:"p99_ms"`
	P999     float64 `json:"p999_ms"`
}

// recorder matches answers to what they answer, by a key each side knows.
type recorder struct {
	mu   sync.Mutex
	sent map[string]time.Time
	got  map[string]time.Time
}

func newRecorder() *recorder {
	return &recorder{sent: map[string]time.Time{}, got: map[string]time.Time{}}
}

func (r *recorder) send(key string, at time.Time) {
	r.mu.Lock()
	r.sent[key] = at
	r.mu.Unlock()
}

func (r *recorder) answer(key string, at time.Time) {
	r.mu.Lock()
	if _, seen := r.got[key]; !seen {
		r.got[key] = at
	}
	r.mu.Unlock()
}

// complete reports whether every key sent has an answer.
func (r *recorder) complete() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.sent {
		if _, ok := r.got[k]; !ok {
			return false
		}
	}
	return true
}

func (r *recorder) latency(offered int, achieved float64) Latency {
	r.mu.Lock()
	defer r.mu.Unlock()
	taken := make([]time.Duration, 0, len(r.sent))
	for k, t := range r.sent {
		if a, ok := r.got[k]; ok {
			taken = append(taken, a.Sub(t))
		}
	}
	slices.Sort(taken)
	return Latency{
		Offered: offered, Achieved: achieved, Samples: len(r.sent), Missing: len(r.sent) - len(taken),
		P50: quantile(taken, 0.5), P99: quantile(taken, 0.99), P999: quantile(taken, 0.999),
	}
}

// guardAnswers records verdicts, keyed by run and call.
func guardAnswers(rec *recorder) nats.MsgHandler {
	return func(m *nats.Msg) {
		now := time.Now()
		var d event.Decision
		if event.DecodeDecision(m.Data, &d) != nil || !d.Kind.IsVerdict() || d.Call == "" {
			return
		}
		rec.answer(d.Run+"/"+d.Call, now)
	}
}

// baseAnswers records baseline outputs, keyed by the event's sequence.
func baseAnswers(rec *recorder) nats.MsgHandler {
	return func(m *nats.Msg) {
		rec.answer(m.Header.Get(seqHeader), time.Now())
	}
}

// offer publishes msgs, each on subject(m), at rate events/s (0: as fast as
// possible), and measures the latency of the answers arriving on answers.
// A guard measurement samples tool calls (keyed by run and call); a
// baseline one samples every event (keyed by its stream sequence, which
// the publish acknowledgement tells).
func offer(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, msgs []msg, rate int,
	subject func(msg) string, answers string, baseline bool) (Latency, error) {
	rec := newRecorder()
	handler := guardAnswers(rec)
	if baseline {
		handler = baseAnswers(rec)
	}
	sub, err := nc.Subscribe(answers, handler)
	if err != nil {
		return Latency{}, err
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		return Latency{}, err
	}

	type sentAt struct {
		f  jetstream.PubAckFuture
		at time.Time
	}
	var base []sentAt
	start := time.Now()
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for i := 0; i < len(msgs); {
		due := len(msgs)
		if rate > 0 {
			due = min(len(msgs), int(time.Since(start).Seconds()*float64(rate))+1)
		}
		for ; i < due; i++ {
			m := msgs[i]
			now := time.Now()
			if !baseline && m.call != "" {
				rec.send(m.run+"/"+m.call, now)
			}
			f, err := publishAsync(js, &nats.Msg{Subject: subject(m), Data: m.data})
			if err != nil {
				return Latency{}, err
			}
			if baseline {
				base = append(base, sentAt{f, now})
			}
		}
		if rate > 0 && i < len(msgs) {
			select {
			case <-t.C:
			case <-ctx.Done():
				return Latency{}, ctx.Err()
			}
		}
	}
	<-js.PublishAsyncComplete()
	achieved := float64(len(msgs)) / time.Since(start).Seconds()
	for _, s := range base {
		select {
		case ack := <-s.f.Ok():
			rec.send(strconv.FormatUint(ack.Sequence, 10), s.at)
		case err := <-s.f.Err():
			return Latency{}, err
		}
	}

	// Give the last answers time to arrive.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && !rec.complete() {
		time.Sleep(20 * time.Millisecond)
	}
	return rec.latency(rate, achieved), nil
}

func quantile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := min(int(q*float64(len(sorted))), len(sorted)-1)
	return float64(sorted[i].Microseconds()) / 1000
}

// measureLatency measures the baseline's and the guard's decision latency
// at every offered load and then at the guard's saturation, on fresh runs,
// with both pipelines running.
func measureLatency(ctx context.Context, cfg Config, nc *nats.Conn, js jetstream.JetStream, url string, b *baseline, rep *Report, log io.Writer) error {
	base, err := startBaseline(ctx, url, cfg, b)
	if err != nil {
		return err
	}
	defer base.stop()
	g, err := startGuard(ctx, url, cfg)
	if err != nil {
		return err
	}
	defer g.stop() // one owner at a time: the memory phase starts its own
	for _, rate := range append(slices.Clone(cfg.Rates), 0) {
		n := rate * int(cfg.RateDuration.Seconds())
		offered := rate
		if rate == 0 {
			n = min(int(rep.Guard.PerSecond*cfg.RateDuration.Seconds()), cfg.Events)
			offered = int(rep.Guard.PerSecond)
		}
		m := Mix{Tenant: tenant, Runs: max(n/100, 1), Events: max(n, 1000), Payload: cfg.Payload, Prefix: "l" + strconv.Itoa(rate) + "-"}
		msgs := m.events()
		fmt.Fprintf(log, "latency at %s: %d events\n", rateName(rate), len(msgs))
		var bl, gl Latency
		err := phase(ctx, cfg, func(ctx context.Context) (err error) {
			if bl, err = offer(ctx, nc, js, msgs, offered, baseMsgSubject, "bench.out.>", true); err != nil {
				return err
			}
			gl, err = offer(ctx, nc, js, msgs, offered, agentSubject, "guard.ctl."+tenant+".*.*", false)
			return err
		})
		if err != nil {
			return fmt.Errorf("latency at %s: %w", rateName(rate), err)
		}
		bl.Offered, gl.Offered = rate, rate
		rep.BaseLatency, rep.Latency = append(rep.BaseLatency, bl), append(rep.Latency, gl)
		if _, err := waitDrain(ctx, cfg, js); err != nil {
			return err
		}
	}
	return nil
}

func rateName(rate int) string {
	if rate == 0 {
		return "saturation"
	}
	return strconv.Itoa(rate) + " events/s"
}
