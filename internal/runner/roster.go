package runner

import (
	"context"
	"encoding/json"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
)

// pingWait is how long a survey waits for the instances to answer. One
// that answers later is not counted this time, which only makes the fair
// share larger (nobody gives up a partition for it); its pins are
// unpinned only if it misses two surveys in a row.
const pingWait = 250 * time.Millisecond

// roster is this instance's entry in NATS service discovery: the micro
// service streams.RunnerService, which every runner registers. Its stats
// carry the pins of the partitions the instance owns, so a survey tells
// both how many instances are alive and which pins they hold.
type roster struct {
	nc  *nats.Conn
	svc micro.Service
}

// register enters this instance, whose pins bal knows.
func register(nc *nats.Conn, bal *balance) (*roster, error) {
	svc, err := micro.AddService(nc, micro.Config{
		Name:         streams.RunnerService,
		Version:      "1.0.0",
		Description:  "guard-consumer runners sharing the partitions of " + streams.EventStream,
		StatsHandler: func(*micro.Endpoint) any { return bal.pins() },
	})
	if err != nil {
		return nil, err
	}
	err = svc.AddEndpoint("partitions", micro.HandlerFunc(func(req micro.Request) {
		_ = req.RespondJSON(bal.pins())
	}))
	if err != nil {
		_ = svc.Stop()
		return nil, err
	}
	return &roster{nc: nc, svc: svc}, nil
}

// surveyAnswers is how many instances a survey hears at most: far more
// than share a stream's partitions. Its answers queue on a channel of
// that many; nats.go's SubscribeSync would make one of 65,536 pointers,
// half a megabyte of garbage a survey, every balanceEvery, that an idle
// instance collects for.
const surveyAnswers = 1024

// survey asks every instance for its stats, and returns how many
// answered (at least this one) and the pins they hold.
func (rs *roster) survey(ctx context.Context) (int, map[string]bool) {
	held := map[string]bool{}
	subj, err := micro.ControlSubject(micro.StatsVerb, streams.RunnerService, "")
	if err != nil {
		return 1, held
	}
	inbox := rs.nc.NewRespInbox()
	answers := make(chan *nats.Msg, surveyAnswers)
	sub, err := rs.nc.ChanSubscribe(inbox, answers)
	if err != nil {
		return 1, held
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := rs.nc.PublishRequest(subj, inbox, nil); err != nil {
		return 1, held
	}
	ctx, cancel := context.WithTimeout(ctx, pingWait)
	defer cancel()
	n := 0
	for {
		var m *nats.Msg
		select {
		case m = <-answers:
		case <-ctx.Done():
			return max(n, 1), held
		}
		n++
		var st micro.Stats
		if json.Unmarshal(m.Data, &st) != nil {
			continue
		}
		for _, e := range st.Endpoints {
			var pins map[string]string
			if json.Unmarshal(e.Data, &pins) == nil {
				for _, pin := range pins {
					held[pin] = true
				}
			}
		}
	}
}

// stop takes this instance out of the roster.
func (rs *roster) stop() { _ = rs.svc.Stop() }
