package runner

import (
	"context"
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
// that ended its run cancels every timer of the run instead.
func (l *live) collectTimers(res *result) {
	ev := res.ev
	if res.out.Ended() {
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
func (l *live) flush(ctx context.Context) error {
	if len(l.timers) == 0 && len(l.ended) == 0 {
		return nil
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
		if err := l.schedule(ctx, subj, tm); err != nil {
			return err
		}
	}
	for _, e := range l.ended {
		if filter, err := streams.TimerFilter(e.tenant, e.run); err == nil {
			l.purge(filter)
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

// purge removes pending schedules matching filter, in the background.
func (r *Runner) purge(filter string) {
	select {
	case r.purges <- filter:
	default:
		r.log.Debug("purge queue full; a cancelled timer will fire and be ignored", "filter", filter)
	}
}

// purgeLoop serves purge requests until ctx is done.
func (r *Runner) purgeLoop(ctx context.Context) {
	s, err := r.js.Stream(ctx, streams.TimerStream)
	if err != nil {
		r.log.Warn("timer purges disabled", "err", err)
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-r.purges:
			if err := s.Purge(ctx, jetstream.WithPurgeSubject(f)); err != nil && ctx.Err() == nil {
				r.log.Debug("purging timers", "filter", f, "err", err)
			}
		}
	}
}
