package streams

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Config sizes guardstream's streams and bucket.
type Config struct {
	// Partitions is the number of event partitions. Changing it moves
	// runs between partitions, so Provision refuses to change it on an
	// existing stream.
	Partitions int `json:"partitions"`
	// Replicas is the replication factor of every stream and bucket: 1 on
	// a single server, 3 on a cluster.
	Replicas int `json:"replicas"`
	// Memory keeps everything in memory instead of on disk (tests, demos).
	Memory bool `json:"memory"`
	// EventMaxAge is how long events are kept; replay and recovery can
	// reach back this far.
	EventMaxAge time.Duration `json:"event_max_age"`
	// ControlMaxAge is how long decisions are kept.
	ControlMaxAge time.Duration `json:"control_max_age"`
	// DeadLetterMaxAge is how long dead letters are kept.
	DeadLetterMaxAge time.Duration `json:"dead_letter_max_age"`
	// Duplicates is the window within which a republished event or
	// decision with the same Nats-Msg-Id is dropped.
	Duplicates time.Duration `json:"duplicates"`
}

// DefaultConfig returns the configuration of a single-server deployment.
func DefaultConfig() Config {
	return Config{
		Partitions:       16,
		Replicas:         1,
		EventMaxAge:      24 * time.Hour,
		ControlMaxAge:    24 * time.Hour,
		DeadLetterMaxAge: 7 * 24 * time.Hour,
		Duplicates:       2 * time.Minute,
	}
}

// MaxPartitions is the largest partition count accepted.
const MaxPartitions = 1024

// Validate reports every setting that is out of range.
func (c Config) Validate() error {
	var errs []error
	if c.Partitions < 1 || c.Partitions > MaxPartitions {
		errs = append(errs, fmt.Errorf("partitions is %d; want 1 to %d", c.Partitions, MaxPartitions))
	}
	if c.Replicas != 1 && c.Replicas != 3 && c.Replicas != 5 {
		errs = append(errs, fmt.Errorf("replicas is %d; want 1, 3 or 5", c.Replicas))
	}
	for name, d := range map[string]time.Duration{
		"event_max_age": c.EventMaxAge, "control_max_age": c.ControlMaxAge,
		"dead_letter_max_age": c.DeadLetterMaxAge, "duplicates": c.Duplicates,
	} {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s is %v; want a positive duration", name, d))
		}
	}
	if c.Duplicates > c.EventMaxAge || c.Duplicates > c.ControlMaxAge {
		errs = append(errs, fmt.Errorf("duplicates (%v) must not exceed the max ages", c.Duplicates))
	}
	return errors.Join(errs...)
}

func (c Config) storage() jetstream.StorageType {
	if c.Memory {
		return jetstream.MemoryStorage
	}
	return jetstream.FileStorage
}

// EventStreamConfig returns the configuration of AGENT_EVENTS.
func (c Config) EventStreamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        EventStream,
		Description: "guardstream: events agents publish, partitioned by run, and the schedules of guard timers",
		Subjects:    []string{eventPrefix + "*.*.*", timerPrefix + "*.*.*"},
		SubjectTransform: &jetstream.SubjectTransformConfig{
			Source:      eventPrefix + "*.*.*",
			Destination: c.partitionDestination(),
		},
		Retention:  jetstream.LimitsPolicy,
		MaxAge:     c.EventMaxAge,
		Storage:    c.storage(),
		Replicas:   c.Replicas,
		Duplicates: c.Duplicates,
		Discard:    jetstream.DiscardOld,
		// Timers are messages the server holds on guard.timer.* and
		// publishes into the run's partition when due (@at); a newer
		// schedule rolls up the older one.
		AllowMsgSchedules: true,
		AllowRollup:       true,
	}
}

func (c Config) partitionDestination() string {
	return fmt.Sprintf("%s{{partition(%d,1,2)}}.{{wildcard(1)}}.{{wildcard(2)}}.{{wildcard(3)}}", eventPrefix, c.Partitions)
}

// ControlStreamConfig returns the configuration of GUARD_CONTROL.
func (c Config) ControlStreamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        ControlStream,
		Description: "guardstream: decisions guard-consumer publishes",
		Subjects:    []string{controlPrefix + ">"},
		Retention:   jetstream.LimitsPolicy,
		MaxAge:      c.ControlMaxAge,
		Storage:     c.storage(),
		Replicas:    c.Replicas,
		Duplicates:  c.Duplicates,
		Discard:     jetstream.DiscardOld,
		AllowDirect: true,
	}
}

// DeadLetterStreamConfig returns the configuration of GUARD_DLQ.
func (c Config) DeadLetterStreamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        DeadLetterStream,
		Description: "guardstream: events that could not be processed, with the reason",
		Subjects:    []string{deadLetterPrefix + ">"},
		Retention:   jetstream.LimitsPolicy,
		MaxAge:      c.DeadLetterMaxAge,
		Storage:     c.storage(),
		Replicas:    c.Replicas,
		Duplicates:  c.Duplicates,
		Discard:     jetstream.DiscardOld,
	}
}

// RunsBucketConfig returns the configuration of the guard_runs bucket.
func (c Config) RunsBucketConfig() jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket:      RunsBucket,
		Description: "guardstream: run state snapshots, written with compare-and-set",
		History:     1,
		Storage:     c.storage(),
		Replicas:    c.Replicas,
	}
}

// PartitionConsumerConfig returns the configuration of partition p's
// durable consumer. Acks are cumulative: acking an event acks every earlier
// one, which matches a consumer that applies events strictly in order.
func PartitionConsumerConfig(p int, ackWait time.Duration, maxAckPending int) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       ConsumerName(p),
		Description:   fmt.Sprintf("guardstream: guard-consumer for partition %d", p),
		FilterSubject: PartitionFilter(p),
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckAllPolicy,
		AckWait:       ackWait,
		MaxAckPending: maxAckPending,
		MaxDeliver:    -1,
	}
}
