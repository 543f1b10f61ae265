package metrics

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// partitions holds, per partition, whether this instance owns it, whether
// it has recovered, when it last checkpointed, and how many events it
// keeps in flight at most. It is a Collector: the gauges derived from it
// are computed at scrape time. Reports of a partition number out of range
// are ignored.
type partitions struct {
	owned      []atomic.Bool
	ready      []atomic.Bool
	checkpoint []atomic.Int64 // unix nanoseconds; 0 until known in this tenure
	limit      []atomic.Int64 // events in flight at most; 0 until known in this tenure

	ownedDesc, recoveringDesc, ageDesc, limitDesc *prometheus.Desc
}

func newPartitions(n int) *partitions {
	return &partitions{
		owned:      make([]atomic.Bool, n),
		ready:      make([]atomic.Bool, n),
		checkpoint: make([]atomic.Int64, n),
		limit:      make([]atomic.Int64, n),
		ownedDesc: prometheus.NewDesc(Namespace+"_partitions_owned",
			"Partitions this instance owns.", nil, nil),
		recoveringDesc: prometheus.NewDesc(Namespace+"_partitions_recovering",
			"Partitions this instance owns that are still rebuilding their state; /readyz fails while any are.", nil, nil),
		ageDesc: prometheus.NewDesc(Namespace+"_checkpoint_age_seconds",
			"Time since an owned partition's run state was last stored: by this instance, or by whichever wrote the checkpoint it recovered from; a restart replays the events since.", []string{"partition"}, nil),
		limitDesc: prometheus.NewDesc(Namespace+"_inflight_limit",
			"Events an owned partition keeps handled and not yet stored at most: the runner's MaxInflight (1024 by default), or down to a sixteenth of it while the server stores its decisions slowly.", []string{"partition"}, nil),
	}
}

func (p *partitions) valid(i int) bool { return i >= 0 && i < len(p.owned) }

func (p *partitions) own(i int, owned bool) {
	if p.valid(i) {
		p.ready[i].Store(false)
		p.checkpoint[i].Store(0) // another instance may have written one since
		p.limit[i].Store(0)
		p.owned[i].Store(owned)
	}
}

func (p *partitions) recovered(i int) {
	if p.valid(i) {
		p.ready[i].Store(true)
	}
}

func (p *partitions) checkpointed(i int, at time.Time) {
	if p.valid(i) {
		p.checkpoint[i].Store(at.UnixNano())
	}
}

func (p *partitions) inflight(i, limit int) {
	if p.valid(i) {
		p.limit[i].Store(int64(limit))
	}
}

func (p *partitions) recovering() []int {
	var r []int
	for i := range p.owned {
		if p.owned[i].Load() && !p.ready[i].Load() {
			r = append(r, i)
		}
	}
	return r
}

// Describe implements prometheus.Collector.
func (p *partitions) Describe(ch chan<- *prometheus.Desc) {
	ch <- p.ownedDesc
	ch <- p.recoveringDesc
	ch <- p.ageDesc
	ch <- p.limitDesc
}

// Collect implements prometheus.Collector.
func (p *partitions) Collect(ch chan<- prometheus.Metric) {
	now := time.Now()
	owned := 0
	for i := range p.owned {
		if !p.owned[i].Load() {
			continue
		}
		owned++
		if at := p.checkpoint[i].Load(); at != 0 {
			ch <- prometheus.MustNewConstMetric(p.ageDesc, prometheus.GaugeValue,
				now.Sub(time.Unix(0, at)).Seconds(), strconv.Itoa(i))
		}
		if limit := p.limit[i].Load(); limit != 0 {
			ch <- prometheus.MustNewConstMetric(p.limitDesc, prometheus.GaugeValue, float64(limit), strconv.Itoa(i))
		}
	}
	ch <- prometheus.MustNewConstMetric(p.ownedDesc, prometheus.GaugeValue, float64(owned))
	ch <- prometheus.MustNewConstMetric(p.recoveringDesc, prometheus.GaugeValue, float64(len(p.recovering())))
}
