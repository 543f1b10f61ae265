package runner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/streams"
)

// Admission limits what one run and one tenant may send, checked on an
// event's subject and size before anything else is done with it: a flood,
// malformed or not, costs the runner a few comparisons per event, and its
// dead letters come one per run and batch (reason rate_limited), so it
// neither crowds out the other runs of its partition nor fills the
// dead letters and the log. Time is the server's: each event's stream
// timestamp refills the buckets.
//
// A run's buckets are kept with its state (processors.Admitted), so a
// replay refuses exactly what was refused. A tenant's are kept by each
// partition in memory, for its share of the tenant's limit, and start full
// with each tenure.
type Admission struct {
	// Run and Tenant are the limits of one run and of one tenant's runs
	// together; each partition enforces 1/Partitions of Tenant.
	Run, Tenant Rate
	// NewRuns limits the runs one tenant may start, whose state is stored
	// until it ages out: Events is runs a second and Burst runs at once
	// (its byte limits are unused). Each partition enforces its share.
	// Without it a tenant within its event limit could fill guard_runs
	// with a run per event in under a minute, and a full bucket stalls
	// every partition.
	NewRuns Rate
	// StopAfter stops a run, LIMIT_EXCEEDED with rule admission, once it
	// had this many events refused; 0 never stops it. The first refused
	// event draws a soft_limit advice.
	StopAfter int64
}

// Rate is a limit on events and on their bytes, each a token bucket: a
// sustained rate per second and a burst. A zero rate is no limit.
type Rate struct {
	Events, Burst     int64 // events per second, and at once
	Bytes, BurstBytes int64 // bytes per second, and at once
}

// DefaultAdmission returns limits that let an agent, or a tenant's fleet,
// run flat out and stop a flood.
func DefaultAdmission() Admission {
	return Admission{
		Run:       Rate{Events: 200, Burst: 2_000, Bytes: 4 << 20, BurstBytes: 32 << 20},
		Tenant:    Rate{Events: 50_000, Burst: 200_000, Bytes: 256 << 20, BurstBytes: 1 << 30},
		NewRuns:   Rate{Events: 200, Burst: 20_000},
		StopAfter: 10_000,
	}
}

// Validate reports the limits that make no sense.
func (a Admission) Validate() error {
	var errs []error
	for _, l := range []struct {
		name string
		r    Rate
	}{{"run", a.Run}, {"tenant", a.Tenant}, {"new-run", a.NewRuns}} {
		if l.r.Events < 0 || l.r.Burst < 0 || l.r.Bytes < 0 || l.r.BurstBytes < 0 {
			errs = append(errs, fmt.Errorf("runner: %s admission limits must not be negative", l.name))
		}
		if l.r.Events > 0 && l.r.Burst < 1 || l.r.Bytes > 0 && l.r.BurstBytes < 1 {
			errs = append(errs, fmt.Errorf("runner: %s admission rate without a burst; a burst of at least 1 lets an event in", l.name))
		}
		if l.r.Events > 1e9 || l.r.Burst > 1e9 || l.r.Bytes > maxBytesLimit || l.r.BurstBytes > maxBytesLimit {
			errs = append(errs, fmt.Errorf("runner: %s admission limits are too large; leave a rate at 0 for no limit", l.name))
		}
	}
	if a.NewRuns.Bytes != 0 || a.NewRuns.BurstBytes != 0 {
		errs = append(errs, errors.New("runner: the new-run admission limit counts runs; leave its byte limits at 0"))
	}
	if a.StopAfter < 0 {
		errs = append(errs, errors.New("runner: admission stop-after must not be negative"))
	}
	return errors.Join(errs...)
}

// maxBytesLimit keeps a byte bucket, kept in byte-nanoseconds, within an
// int64, in debt (charge) as in credit.
const maxBytesLimit = 4 << 30

// share returns the part of r one of partitions partitions enforces.
func (r Rate) share(partitions int) Rate {
	p := int64(partitions)
	part := func(n int64) int64 {
		if n == 0 {
			return 0
		}
		return max(n/p, 1)
	}
	return Rate{Events: part(r.Events), Burst: part(r.Burst), Bytes: part(r.Bytes), BurstBytes: part(r.BurstBytes)}
}

// admit takes one event of size bytes at server time now (ns) from the
// buckets in a, and reports whether there was room. The arithmetic is in
// integers, so a replay on any machine decides the same.
func (r Rate) admit(a *processors.Admitted, now int64, size int) bool {
	if !r.fits(a, now, size) {
		return false
	}
	if r.Events > 0 {
		a.Events -= nanos
	}
	if r.Bytes > 0 {
		a.Bytes -= int64(size) * nanos
	}
	return true
}

// charge takes n bytes more, but at most one burst, from a's byte bucket
// at server time now, into debt if need be, down to minus one burst: the
// events after wait until it has refilled. It is for work an event caused
// beyond its own bytes.
func (r Rate) charge(a *processors.Admitted, now int64, n int64) {
	if r.Bytes == 0 {
		return
	}
	r.fits(a, now, 0) // refilled to now
	a.Bytes = max(a.Bytes-min(n, r.BurstBytes)*nanos, -r.BurstBytes*nanos)
}

// fits refills the buckets in a to server time now (ns) and reports
// whether they have room for one event of size bytes, taking nothing.
func (r Rate) fits(a *processors.Admitted, now int64, size int) bool {
	if a.At == 0 {
		a.Events, a.Bytes = r.Burst*nanos, r.BurstBytes*nanos
	} else if dt := now - a.At; dt > 0 {
		a.Events = refill(a.Events, dt, r.Events, r.Burst*nanos)
		a.Bytes = refill(a.Bytes, dt, r.Bytes, r.BurstBytes*nanos)
	}
	a.At = max(a.At, now)
	return (r.Events == 0 || a.Events >= nanos) && (r.Bytes == 0 || a.Bytes >= int64(size)*nanos)
}

// nanos is a token's worth: buckets hold tokens times a second in
// nanoseconds, so that any elapsed time refills them exactly.
const nanos = 1_000_000_000

// refill adds dt nanoseconds at rate tokens per second to tokens, up to
// full.
func refill(tokens, dt, rate, full int64) int64 {
	if rate == 0 || tokens >= full {
		return full
	}
	if dt >= (full-tokens)/rate+1 { // also keeps dt*rate from overflowing
		return full
	}
	return min(full, tokens+dt*rate)
}

// Which limit an event was over.
const (
	overRun     = "run"
	overTenant  = "tenant"
	overNewRuns = "new_runs" // the tenant's limit on runs started
)

// limiter is a tenure's admission: the limits, its tenants' buckets, and
// the events of the batch being handled that were refused.
type limiter struct {
	cfg     Admission
	tenant  Rate // this partition's share of the tenant limit
	newRuns Rate // and of the tenant's limit on new runs
	tenants map[string]*processors.Admitted
	started map[string]*processors.Admitted // the tenants' new-run buckets
	refused []*record
	out     processors.Out // the decisions of a run over its limit
}

func newLimiter(cfg Admission, partitions int) limiter {
	return limiter{cfg: cfg, tenant: cfg.Tenant.share(partitions), newRuns: cfg.NewRuns.share(partitions),
		tenants: map[string]*processors.Admitted{}, started: map[string]*processors.Admitted{}}
}

// buckets returns the buckets of rec's tenant.
func (l *limiter) buckets(rec *record) *processors.Admitted { return bucketsOf(l.tenants, rec) }

// bucketsOf returns rec's tenant's buckets in m, made on first use.
func bucketsOf(m map[string]*processors.Admitted, rec *record) *processors.Admitted {
	b := m[rec.subj.Tenant]
	if b == nil {
		b = &processors.Admitted{}
		m[strings.Clone(rec.subj.Tenant)] = b
	}
	return b
}

// starts takes a new run, whose first event rec is, from its tenant's
// new-run bucket, and reports whether there was room.
func (l *limiter) starts(rec *record) bool {
	return l.newRuns.Events == 0 || l.newRuns.admit(bucketsOf(l.started, rec), rec.at.UnixNano(), 0)
}

// tenantFits reports whether rec's tenant has room for it, taking nothing.
func (l *limiter) tenantFits(rec *record) bool {
	return l.tenant.Events == 0 && l.tenant.Bytes == 0 || l.tenant.fits(l.buckets(rec), rec.at.UnixNano(), len(rec.data))
}

// tenantAdmits takes rec from its tenant's buckets.
func (l *limiter) tenantAdmits(rec *record) bool {
	return l.tenant.Events == 0 && l.tenant.Bytes == 0 || l.tenant.admit(l.buckets(rec), rec.at.UnixNano(), len(rec.data))
}

// admit refuses the events of recs whose tenant has no room left, before
// the runs they belong to are loaded, and returns the keys of the runs to
// load: a flood of events of runs never seen costs no reads.
func (t *tenure) admit(recs []record, keys []string) []string {
	for i := range recs {
		rec := &recs[i]
		if rec.seq <= t.handled {
			continue
		}
		subj, err := streams.ParseStored(rec.subject)
		if err != nil {
			continue // the event path dead-letters it
		}
		rec.subj, rec.parsed = subj, true
		if !t.lim.tenantFits(rec) {
			rec.over = overTenant
			continue
		}
		if t.runs.cached(subj.Key) == nil {
			keys = append(keys, subj.Key)
		}
	}
	return keys
}

// admitRun takes rec, whose tenant had room and whose run is loaded, from
// its run's buckets, then from its tenant's. An event its run refuses is
// not taken from its tenant: a run over its own limit does not use up
// what its tenant's other runs may send. The first event of a run that
// has no state yet is taken from the tenant's new-run bucket first; a run
// it refuses is forgotten, so that a flood of new run ids costs neither
// state nor memory; its later events in the batch find it gone, and are
// refused with it.
func (t *tenure) admitRun(ctx context.Context, rec *record, s sink) error {
	e := t.runs.cached(rec.subj.Key)
	switch {
	case e == nil:
		rec.over = overNewRuns
		return nil
	case e.unstarted() && !t.lim.starts(rec):
		rec.over = overNewRuns
		t.runs.forget(e)
		return nil
	}
	if err := t.runAdmits(ctx, e, rec, s); err != nil || rec.over != "" {
		return err
	}
	if !t.lim.tenantAdmits(rec) {
		rec.over = overTenant
	}
	return nil
}

// runAdmits takes rec from the buckets of its run, e. A refused event is
// counted against the run, which is advised at the first and stopped at
// StopAfter.
func (t *tenure) runAdmits(ctx context.Context, e *entry, rec *record, s sink) error {
	l := &t.lim
	if l.cfg.Run.Events == 0 && l.cfg.Run.Bytes == 0 {
		return nil
	}
	r := e.run
	if rec.seq <= r.Applied {
		return nil // a redelivery: the event path skips it
	}
	if err := t.runs.prepare(e); err != nil {
		return err
	}
	defer t.runs.touch(e)
	if l.cfg.Run.admit(&r.Admitted, rec.at.UnixNano(), len(rec.data)) {
		return nil
	}
	rec.over = overRun
	r.Applied = rec.seq
	r.Admitted.Refused++
	n := r.Admitted.Refused
	if r.Status != processors.StatusActive && r.Status != processors.StatusNew {
		return nil
	}
	ev := event.Event{V: event.Version, Kind: event.KindHeartbeat, Tenant: rec.subj.Tenant, Run: rec.subj.Run, TS: rec.at.UnixMilli()}
	out := &l.out
	out.Begin(&ev)
	counts := []event.Counter{{Name: "refused", Value: n}, {Name: "events_per_second", Value: l.cfg.Run.Events}}
	var d *event.Decision
	switch {
	case l.cfg.StopAfter > 0 && n >= l.cfg.StopAfter:
		d = out.Stop(event.ReasonLimitExceeded, event.StatusFailed, fmt.Sprintf(
			"the run had %d events dropped for going over its admission limit of %d events a second", n, l.cfg.Run.Events), counts...)
		r.Status, r.Reason, r.Rule = processors.StatusStopped, event.ReasonLimitExceeded, "admission"
	case n == 1:
		d = out.Advise(event.Steer{Kind: event.SteerSlowDown}, fmt.Sprintf(
			"the run sends more than %d events a second; events over that are dropped as dead letters of reason %s",
			l.cfg.Run.Events, streams.DeadRateLimited), counts...)
	default:
		return nil
	}
	d.Guard, d.Rule = "admission", "admission"
	return s.refused(ctx, out, rec.subj.Key+".rl."+strconv.FormatUint(rec.seq, 10)+".")
}

// chargeRead charges the bytes of an output that the event in rec, a
// result of run, referred to and that was read from the store, to the
// run's byte bucket and its tenant's. Admission counts an event's own
// bytes before it is read; reading the output it names may cost the
// partition far more (64 MiB by default, about 150 ms), so the run and
// its tenant pay for it after, with the events that follow: a run that
// refers to a large output as fast as its event limit allows is held to
// its byte rate, and cannot hold up the runs sharing its partition. The
// run's charge is kept with its state, so a replay refuses what was
// refused.
func (t *tenure) chargeRead(run *processors.Run, rec *record, n int64) {
	at := rec.at.UnixNano()
	t.lim.cfg.Run.charge(&run.Admitted, at, n)
	if rec.parsed {
		t.lim.tenant.charge(t.lim.buckets(rec), at, n)
	}
}

// flushRefused hands the batch's refused events to s, one group per run
// and limit, in the order of their first event.
func (t *tenure) flushRefused(ctx context.Context, s sink) error {
	refused := t.lim.refused
	defer func() { t.lim.refused = refused[:0] }()
	for i, rec := range refused {
		if rec == nil {
			continue
		}
		group := []*record{rec}
		for j := i + 1; j < len(refused); j++ {
			if o := refused[j]; o != nil && o.subj.Key == rec.subj.Key && o.over == rec.over {
				group, refused[j] = append(group, o), nil
			}
		}
		if err := s.rateLimited(ctx, group); err != nil {
			return err
		}
	}
	return nil
}

// sequences writes the stream sequences of recs, in order, as sequences
// and ranges: "12,15-19".
func sequences(recs []*record) string {
	var b strings.Builder
	for i := 0; i < len(recs); {
		j := i
		for j+1 < len(recs) && recs[j+1].seq == recs[j].seq+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(recs[i].seq, 10))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.FormatUint(recs[j].seq, 10))
		}
		i = j + 1
	}
	return b.String()
}
