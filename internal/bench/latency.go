package bench

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Latency is the verdict latency at one offered load.
type Latency struct {
	Offered  int     `json:"offered_events_per_second"` // 0: saturation
	Achieved float64 `json:"achieved_events_per_second"`
	Calls    int     `json:"calls"`
	Missing  int     `json:"calls_without_verdict"`
	P50      float64 `json:"p50_ms"`
	P99      float64 `json:"p99_ms"`
	P999     float64 `json:"p999_ms"`
}

// recorder matches verdicts to the calls they answer.
type recorder struct {
	mu    sync.Mutex
	sent  map[string]time.Time
	taken []time.Duration
}

func (r *recorder) send(key string) {
	r.mu.Lock()
	r.sent[key] = time.Now()
	r.mu.Unlock()
}

func (r *recorder) receive(m *nats.Msg) {
	now := time.Now()
	var d event.Decision
	if event.DecodeDecision(m.Data, &d) != nil || !d.Kind.IsVerdict() || d.Call == "" {
		return
	}
	key := d.Run + "/" + d.Call
	r.mu.Lock()
	if t, ok := r.sent[key]; ok {
		r.taken = append(r.taken, now.Sub(t))
		delete(r.sent, key)
	}
	r.mu.Unlock()
}

// offer publishes msgs at rate events/s (0: as fast as possible) and
// measures the latency of each call's verdict.
func offer(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, tenant string, msgs []msg, rate int) (Latency, error) {
	rec := &recorder{sent: map[string]time.Time{}}
	sub, err := nc.Subscribe("guard.ctl."+tenant+".*.*", rec.receive)
	if err != nil {
		return Latency{}, err
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		return Latency{}, err
	}

	start := time.Now()
	const tick = time.Millisecond
	t := time.NewTicker(tick)
	defer t.Stop()
	calls := 0
	for i := 0; i < len(msgs); {
		due := len(msgs)
		if rate > 0 {
			due = min(len(msgs), int(time.Since(start).Seconds()*float64(rate))+1)
		}
		for ; i < due; i++ {
			m := msgs[i]
			if m.call != "" {
				rec.send(m.run + "/" + m.call)
				calls++
			}
			if _, err := js.PublishAsync(m.subject, m.data); err != nil {
				return Latency{}, err
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

	// Give the last verdicts time to arrive.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		rec.mu.Lock()
		got := len(rec.taken)
		rec.mu.Unlock()
		if got >= calls {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	l := Latency{Offered: rate, Achieved: achieved, Calls: calls, Missing: calls - len(rec.taken)}
	slices.Sort(rec.taken)
	l.P50, l.P99, l.P999 = quantile(rec.taken, 0.5), quantile(rec.taken, 0.99), quantile(rec.taken, 0.999)
	return l, nil
}

func quantile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := min(int(q*float64(len(sorted))), len(sorted)-1)
	return float64(sorted[i].Microseconds()) / 1000
}
