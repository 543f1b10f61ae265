package runner

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// timer is a timer a batch set or cancelled, with the server time it counts
// from.
type timer struct {
	tenant, run string
	t           processors.Timer
	from        time.Time // when the setting event reached the server
}

// collectTimers records what the event just applied asked for. An event
// that ended its run cancels every timer of the run instead, those the
// batch set before it too.
func (l *live) collectTimers(res *result) {
	ev := res.ev
	if res.out.Ended() {
		l.timers = slices.DeleteFunc(l.timers, func(tm timer) bool { return tm.tenant == ev.Tenant && tm.run == ev.Run })
		l.ended = append(l.ended, timer{tenant: ev.Tenant, run: ev.Run})
		return
	}
	for _, t := range res.out.Timers {
		l.timers = append(l.timers, timer{tenant: ev.Tenant, run: ev.Run, t: t, from: res.at})
	}
}

// flush schedules the batch's timers: for each run and name only
// the last one counts. Schedules are awaited with the batch's decisions, so
// an acked event's timers are in the stream; a redelivered batch schedules
// them again, which replaces them with the same. Cancellations are best
// effort: a timer that fires anyway finds its run ended or its generation
// overtaken, and changes nothing.
//
// Cancellations purge, in the background, on one goroutine that serves
// every partition, so a purge may reach the server after a schedule
// published later; it would delete it, and a run stopped and then resumed
// (which sets its lease again) would never be cancelled when its lease
// runs out. So a purge never follows a schedule it must spare: the batch
// queues its purges before it schedules, what a run set before its end in
// the batch is dropped with the end (collectTimers), and a schedule waits
// until the purges of its subject or run queued before it are done
// (Runner.purged). Only a timer set again after a purge of it waits: the
// lease of a resumed run; a round's timer is never set again.
func (l *live) flush(ctx context.Context) error {
	if len(l.timers) == 0 && len(l.ended) == 0 {
		return nil
	}
	for _, e := range l.ended {
		if filter, err := streams.TimerFilter(e.tenant, e.run); err == nil {
			l.purge(filter)
		}
	}
	last := make(map[[3]string]int, len(l.timers))
	for i, tm := range l.timers {
		last[[3]string{tm.tenant, tm.run, tm.t.Name}] = i
	}
	for i, tm := range l.timers {
		if last[[3]string{tm.tenant, tm.run, tm.t.Name}] != i {
			continue
		}
		subj, err := streams.TimerSubject(tm.tenant, tm.run, tm.t.Name)
		if err != nil {
			l.log.Error("a processor asked for a timer that cannot be named", "timer", tm.t.Name, "err", err)
			continue
		}
		if tm.t.After < 0 {
			l.purge(subj)
			continue
		}
		if err := l.purged(ctx, tm.tenant, tm.run, subj); err != nil {
			return err
		}
		if err := l.schedule(ctx, subj, tm); err != nil {
			return err
		}
	}
	l.timers, l.ended = l.timers[:0], l.ended[:0]
	return nil
}

// schedule asks the server to publish the timer event when it is due.
func (l *live) schedule(ctx context.Context, subj string, tm timer) error {
	at := tm.from.Add(time.Duration(tm.t.After) * time.Millisecond)
	fire := event.Event{V: event.Version, Kind: event.KindTimer, Tenant: tm.tenant, Run: tm.run,
		TS: at.UnixMilli(), Timer: tm.t.Name, Gen: tm.t.Gen}
	target, _ := streams.FiredSubject(tm.tenant, tm.run)
	msg := nats.NewMsg(subj)
	msg.Data = event.AppendEvent(nil, &fire)
	// nats.go's WithScheduleAt formats to the second, which could fire
	// a lease up to a second early; the server parses fractions.
	msg.Header.Set(jetstream.ScheduleHeader, "@at "+at.UTC().Format(time.RFC3339Nano))
	msg.Header.Set(jetstream.ScheduleTargetHeader, target)
	_, err := l.pub.publish(ctx, msg)
	return err
}

// scheduledBy returns the schedule subject a timer event must have been
// published from: only the server's scheduler sets the header.
func scheduledBy(ev *event.Event) string {
	subj, _ := streams.TimerSubject(ev.Tenant, ev.Run, ev.Timer)
	return subj
}

// purge is a request to remove the pending schedules matching filter.
type purge struct {
	filter string
	done   chan struct{} // closed once it is served
}

// purge removes pending schedules matching filter, in the background.
func (r *Runner) purge(filter string) {
	p := purge{filter: filter, done: make(chan struct{})}
	r.purgeMu.Lock()
	defer r.purgeMu.Unlock()
	select {
	case r.purges <- p:
		r.purging[filter] = p.done // served in order: the last queued is done last
	default:
		r.log.Debug("purge queue full; a cancelled timer will fire and be ignored", "filter", filter)
	}
}

// purged waits until the purges queued so far of the timer subj of the
// run, or of all the run's timers, are served, for the publish timeout at
// most: a schedule published before would be deleted by them. With no
// purge queued, the common case, it costs a lock and a map's length.
func (r *Runner) purged(ctx context.Context, tenant, run, subj string) error {
	r.purgeMu.Lock()
	none := len(r.purging) == 0
	r.purgeMu.Unlock()
	if none {
		return nil
	}
	filter, _ := streams.TimerFilter(tenant, run) // the ids were checked
	for _, f := range [...]string{subj, filter} {
		r.purgeMu.Lock()
		done := r.purging[f]
		r.purgeMu.Unlock()
		if done == nil {
			continue
		}
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(r.cfg.PublishTimeout):
			return fmt.Errorf("runner: the purge of timers %s is not done after %v", f, r.cfg.PublishTimeout)
		}
	}
	return nil
}

// purgeLoop serves purge requests, in order, until ctx is done. A purge
// that fails is dropped: cancellations are best effort.
func (r *Runner) purgeLoop(ctx context.Context) {
	var s jetstream.Stream
	for {
		select {
		case <-ctx.Done():
			return
		case p := <-r.purges:
			var err error
			if s == nil {
				s, err = r.js.Stream(ctx, streams.TimerStream)
			}
			if err == nil {
				err = s.Purge(ctx, jetstream.WithPurgeSubject(p.filter))
			}
			if err != nil && ctx.Err() == nil {
				r.log.Debug("purging timers", "filter", p.filter, "err", err)
			}
			r.served(p)
		}
	}
}

// served forgets p, which was served.
func (r *Runner) served(p purge) {
	r.purgeMu.Lock()
	defer r.purgeMu.Unlock()
	if r.purging[p.filter] == p.done {
		delete(r.purging, p.filter)
	}
	close(p.done)
}
