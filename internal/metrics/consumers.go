package metrics

import (
	"context"
	"strconv"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

// ScrapeTimeout bounds the consumer info requests of one scrape.
const ScrapeTimeout = 2 * time.Second

// Consumers is a Collector that asks the server, at scrape time, for each
// partition consumer's backlog: events not yet delivered (pending) and
// delivered but not yet acknowledged (ack pending). The numbers are the
// server's, so every instance reports the same ones; aggregate them with
// max. A partition whose consumer cannot be read is left out of the scrape.
type Consumers struct {
	js         jetstream.JetStream
	partitions int

	pendingDesc, ackPendingDesc, upDesc *prometheus.Desc
}

// NewConsumers returns the collector for partitions partitions of js's
// event stream.
func NewConsumers(js jetstream.JetStream, partitions int) *Consumers {
	return &Consumers{
		js: js, partitions: partitions,
		pendingDesc: prometheus.NewDesc(Namespace+"_consumer_pending",
			"Events of a partition not yet delivered to guard-consumer, read from the server at scrape time.", []string{"partition"}, nil),
		ackPendingDesc: prometheus.NewDesc(Namespace+"_consumer_ack_pending",
			"Events of a partition delivered and not yet acknowledged, read from the server at scrape time.", []string{"partition"}, nil),
		upDesc: prometheus.NewDesc(Namespace+"_consumer_info_up",
			"1 if every partition consumer's info was read in this scrape, else 0.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *Consumers) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.pendingDesc
	ch <- c.ackPendingDesc
	ch <- c.upDesc
}

// Collect implements prometheus.Collector.
func (c *Consumers) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), ScrapeTimeout)
	defer cancel()
	up := 1.0
	for p := range c.partitions {
		cons, err := c.js.Consumer(ctx, streams.EventStream, streams.ConsumerName(p))
		if err != nil {
			up = 0
			continue
		}
		info, label := cons.CachedInfo(), strconv.Itoa(p)
		ch <- prometheus.MustNewConstMetric(c.pendingDesc, prometheus.GaugeValue, float64(info.NumPending), label)
		ch <- prometheus.MustNewConstMetric(c.ackPendingDesc, prometheus.GaugeValue, float64(info.NumAckPending), label)
	}
	ch <- prometheus.MustNewConstMetric(c.upDesc, prometheus.GaugeValue, up)
}
