package streams

import (
	"errors"
	"fmt"
	"time"

	"github.com/guardstream/guardstream/event"
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

	// The size limits below bound what a flood can store; decision 23
	// says why each stream discards what it does when one is reached.

	// EventMaxBytes caps AGENT_EVENTS. When it is full, the oldest events
	// go, whichever run they belong to: events guard-consumer applied
	// long ago, unless it is that far behind. Publishing never blocks.
	EventMaxBytes int64 `json:"event_max_bytes"`
	// EventMaxMsgSize is the largest event payload AGENT_EVENTS stores;
	// the server refuses a larger one to its publisher. The stream allows
	// EventHeaderBytes more for headers. Keep it equal to the runner's
	// largest event (guard-consumer -max-event-bytes sets both).
	EventMaxMsgSize int `json:"event_max_msg_size"`
	// MaxMsgsPerSubject is the most messages AGENT_EVENTS, GUARD_TIMERS
	// and GUARD_CONTROL keep on one subject: one run's events of one kind,
	// its fired timers, its decisions of one kind. Past it, that run's own
	// oldest go first, so a run flooding its subjects evicts only itself.
	MaxMsgsPerSubject int64 `json:"max_msgs_per_subject"`
	// TimerMaxBytes caps GUARD_TIMERS; the oldest timers go first.
	TimerMaxBytes int64 `json:"timer_max_bytes"`
	// ControlMaxBytes caps GUARD_CONTROL; the oldest decisions go first.
	ControlMaxBytes int64 `json:"control_max_bytes"`
	// DeadLetterMaxBytes caps GUARD_DLQ; the oldest dead letters go first.
	DeadLetterMaxBytes int64 `json:"dead_letter_max_bytes"`
	// RunsMaxBytes caps the guard_runs bucket. A full bucket refuses
	// writes (a bucket discards new): no run's state is ever dropped.
	RunsMaxBytes int64 `json:"runs_max_bytes"`
	// RunsMaxAge is how long a run's state outlives the last time it was
	// written: a run idle that long is forgotten, and an event of it
	// later starts it afresh. Without it the bucket grows with every run
	// there ever was, until it is full and no state can be written.
	RunsMaxAge time.Duration `json:"runs_max_age"`
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

		EventMaxBytes:      1 << 30,
		EventMaxMsgSize:    64 << 10,
		MaxMsgsPerSubject:  1000,
		TimerMaxBytes:      256 << 20,
		ControlMaxBytes:    512 << 20,
		DeadLetterMaxBytes: 256 << 20,
		RunsMaxBytes:       1 << 30,
		RunsMaxAge:         7 * 24 * time.Hour,
	}
}

// MaxPartitions is the largest partition count accepted.
const MaxPartitions = 1024

// Bounds of the size limits.
const (
	// MinStreamBytes is the smallest cap a stream or bucket may have.
	MinStreamBytes = 1 << 20
	// EventHeaderBytes is what AGENT_EVENTS allows for a message's headers
	// beyond EventMaxMsgSize: a client's Nats-Msg-Id of the longest ids
	// takes under 400 bytes.
	EventHeaderBytes = 1 << 10
	// MinEventMsgSize and MaxEventMsgSize bound EventMaxMsgSize. The
	// largest, with headers, is the server's default max_payload (1 MiB),
	// past which it refuses a message to every stream.
	MinEventMsgSize = 1 << 10
	MaxEventMsgSize = 1<<20 - EventHeaderBytes
	// MinMsgsPerSubject is the smallest MaxMsgsPerSubject: a run can have
	// this many events of one kind waiting while guard-consumer is away
	// (heartbeats, a round's calls), and the cap must not evict them.
	MinMsgsPerSubject = 100
	// minEventsInStream is how many of the largest events AGENT_EVENTS
	// must hold at least.
	minEventsInStream = 16
)

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
		"dead_letter_max_age": c.DeadLetterMaxAge, "duplicates": c.Duplicates, "runs_max_age": c.RunsMaxAge,
	} {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s is %v; want a positive duration", name, d))
		}
	}
	if c.Duplicates > c.EventMaxAge || c.Duplicates > c.ControlMaxAge {
		errs = append(errs, fmt.Errorf("duplicates (%v) must not exceed the max ages", c.Duplicates))
	}
	if c.RunsMaxAge > 0 && c.RunsMaxAge < c.EventMaxAge {
		errs = append(errs, fmt.Errorf("runs_max_age (%v) is shorter than event_max_age (%v); a run's state must outlast the events it reflects", c.RunsMaxAge, c.EventMaxAge))
	}
	return errors.Join(append(errs, c.validateLimits()...)...)
}

// validateLimits reports every size limit that is out of range, saying
// what to change.
func (c Config) validateLimits() []error {
	var errs []error
	for _, l := range []struct {
		name string
		n    int64
	}{
		{"event_max_bytes", c.EventMaxBytes}, {"timer_max_bytes", c.TimerMaxBytes}, {"control_max_bytes", c.ControlMaxBytes},
		{"dead_letter_max_bytes", c.DeadLetterMaxBytes}, {"runs_max_bytes", c.RunsMaxBytes},
	} {
		if l.n < MinStreamBytes {
			errs = append(errs, fmt.Errorf("%s is %d bytes; want at least %d (1 MiB), sized to the disk (docs/operations.md, Sizing)", l.name, l.n, MinStreamBytes))
		}
	}
	if c.EventMaxMsgSize < MinEventMsgSize || c.EventMaxMsgSize > MaxEventMsgSize {
		errs = append(errs, fmt.Errorf("event_max_msg_size is %d bytes; want %d to %d: the server refuses messages over 1 MiB with their headers", c.EventMaxMsgSize, MinEventMsgSize, MaxEventMsgSize))
	} else if c.EventMaxBytes >= MinStreamBytes && c.EventMaxBytes < minEventsInStream*int64(c.EventMaxMsgSize+EventHeaderBytes) {
		errs = append(errs, fmt.Errorf("event_max_bytes (%d) holds fewer than %d events of event_max_msg_size (%d); raise it or lower the event size",
			c.EventMaxBytes, minEventsInStream, c.EventMaxMsgSize))
	}
	if c.MaxMsgsPerSubject < MinMsgsPerSubject {
		errs = append(errs, fmt.Errorf("max_msgs_per_subject is %d; want at least %d: a run's events of one kind past it replace its oldest, "+
			"and a run can have that many waiting while guard-consumer is away", c.MaxMsgsPerSubject, MinMsgsPerSubject))
	}
	return errs
}

func (c Config) storage() jetstream.StorageType {
	if c.Memory {
		return jetstream.MemoryStorage
	}
	return jetstream.FileStorage
}

// EventStreamConfig returns the configuration of AGENT_EVENTS. Agents
// publish into it, so it enables none of the features a message header
// turns on (rollups, schedules, per-message TTLs, counters, batches): a
// header is the one thing subject permissions cannot restrict, and with
// rollups allowed one header purges the stream. Timers therefore live in
// GUARD_TIMERS, which no agent can reach, and come in as a source.
//
// Its limits are what a flood meets: the server refuses an event over
// EventMaxMsgSize to its publisher, a run's events of one kind past
// MaxMsgsPerSubject replace that run's oldest, and past EventMaxBytes the
// oldest events go. It discards old, never new: with DiscardNew a full
// stream would refuse every tenant's events, and a fired timer it refused
// would stall the GUARD_TIMERS source for every run (decision 23).
func (c Config) EventStreamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        EventStream,
		Description: "guardstream: events agents publish, and fired guard timers, partitioned by run",
		Subjects:    []string{eventPrefix + "*.*.*"},
		SubjectTransform: &jetstream.SubjectTransformConfig{
			Source:      eventPrefix + "*.*.*",
			Destination: c.partitionDestination("{{wildcard(3)}}"),
		},
		Sources: []*jetstream.StreamSource{{
			Name: TimerStream,
			SubjectTransforms: []jetstream.SubjectTransformConfig{{
				Source:      firedPrefix + "*.*",
				Destination: c.partitionDestination(event.KindTimer.Token()),
			}},
		}},
		Retention:         jetstream.LimitsPolicy,
		MaxAge:            c.EventMaxAge,
		MaxBytes:          c.EventMaxBytes,
		MaxMsgSize:        int32(c.EventMaxMsgSize + EventHeaderBytes),
		MaxMsgsPerSubject: c.MaxMsgsPerSubject,
		Storage:           c.storage(),
		Replicas:          c.Replicas,
		Duplicates:        c.Duplicates,
		Discard:           jetstream.DiscardOld,
		// Recovery reads a partition's events back in batches through
		// the direct get API, from any current replica, with no
		// consumer to create (docs/decisions/0003-exactly-once.md).
		// Agents cannot reach it: it is a JetStream API subject.
		AllowDirect: true,
	}
}

// partitionDestination maps a subject whose first two wildcards are the
// tenant and the run to agent.<p>.<tenant>.<run>.<kind>: events and fired
// timers of a run land in the same partition.
func (c Config) partitionDestination(kind string) string {
	return fmt.Sprintf("%s{{partition(%d,1,2)}}.{{wildcard(1)}}.{{wildcard(2)}}.%s", eventPrefix, c.Partitions, kind)
}

// TimerStreamConfig returns the configuration of GUARD_TIMERS: the
// schedules guard-consumer sets, which the server holds on guard.timer.*
// and publishes on guard.fired.<tenant>.<run> when due (@at); a newer
// schedule rolls up the older one. AGENT_EVENTS sources the fired ones.
// The server requires a stream with schedules to discard old.
func (c Config) TimerStreamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:              TimerStream,
		Description:       "guardstream: pending guard timers and the timers that fired",
		Subjects:          []string{timerPrefix + "*.*.*", firedPrefix + "*.*"},
		Retention:         jetstream.LimitsPolicy,
		MaxAge:            c.EventMaxAge,
		MaxBytes:          c.TimerMaxBytes,
		MaxMsgsPerSubject: c.MaxMsgsPerSubject,
		Storage:           c.storage(),
		Replicas:          c.Replicas,
		Duplicates:        c.Duplicates,
		Discard:           jetstream.DiscardOld,
		AllowMsgSchedules: true,
		AllowRollup:       true,
	}
}

// ControlStreamConfig returns the configuration of GUARD_CONTROL. Only
// guard-consumer writes it, and a decision it could not store would stall
// its partition, so it discards old: a flood of decisions costs history,
// first the flooding run's own (MaxMsgsPerSubject), never new decisions.
func (c Config) ControlStreamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:              ControlStream,
		Description:       "guardstream: decisions guard-consumer publishes",
		Subjects:          []string{controlPrefix + ">"},
		Retention:         jetstream.LimitsPolicy,
		MaxAge:            c.ControlMaxAge,
		MaxBytes:          c.ControlMaxBytes,
		MaxMsgsPerSubject: c.MaxMsgsPerSubject,
		Storage:           c.storage(),
		Replicas:          c.Replicas,
		Duplicates:        c.Duplicates,
		Discard:           jetstream.DiscardOld,
		AllowDirect:       true,
	}
}

// DeadLetterStreamConfig returns the configuration of GUARD_DLQ. It
// discards old, as GUARD_CONTROL does: an event that cannot be
// dead-lettered cannot be acked, so a full DLQ that refused new letters
// would stall every partition. Its subjects are reasons, shared by all
// runs, so it has no per-subject cap.
func (c Config) DeadLetterStreamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        DeadLetterStream,
		Description: "guardstream: events that could not be processed, with the reason",
		Subjects:    []string{deadLetterPrefix + ">"},
		Retention:   jetstream.LimitsPolicy,
		MaxAge:      c.DeadLetterMaxAge,
		MaxBytes:    c.DeadLetterMaxBytes,
		Storage:     c.storage(),
		Replicas:    c.Replicas,
		Duplicates:  c.Duplicates,
		Discard:     jetstream.DiscardOld,
	}
}

// RunsBucketConfig returns the configuration of the guard_runs bucket,
// capped at RunsMaxBytes, its values kept RunsMaxAge after they were last
// written. Buckets discard new: when it is full, writes of run state fail
// rather than drop another run's (a dropped state would undo a stop).
func (c Config) RunsBucketConfig() jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket:      RunsBucket,
		Description: "guardstream: run state snapshots, written with compare-and-set",
		History:     1,
		MaxBytes:    c.RunsMaxBytes,
		TTL:         c.RunsMaxAge,
		Storage:     c.storage(),
		Replicas:    c.Replicas,
	}
}

// PartitionConsumer sizes the durable consumers of the partitions.
type PartitionConsumer struct {
	// Partitions is how many partitions AGENT_EVENTS has.
	Partitions int
	// AckWait is how long the server waits for an ack before redelivering.
	AckWait time.Duration
	// MaxAckPending bounds the events delivered but not yet acked.
	MaxAckPending int
	// PinnedTTL is how long the server keeps a partition pinned to an
	// instance that sends no pull request; then it pins the next one
	// waiting.
	PinnedTTL time.Duration
}

// Config returns the configuration of partition p's durable consumer,
// delivering from stream sequence from (0: from the first event). Acks
// are cumulative: acking an event acks every earlier one, which matches a
// consumer that applies events strictly in order. The consumer has one
// priority group, PriorityGroup, with a pinned client: of all the
// instances pulling the partition, the server delivers to one at a time,
// and that instance owns the partition.
func (c PartitionConsumer) Config(p int, from uint64) jetstream.ConsumerConfig {
	cc := jetstream.ConsumerConfig{
		Durable:        ConsumerName(p),
		Description:    fmt.Sprintf("guardstream: guard-consumer for partition %d", p),
		FilterSubject:  c.filter(p),
		DeliverPolicy:  jetstream.DeliverAllPolicy,
		AckPolicy:      jetstream.AckAllPolicy,
		AckWait:        c.AckWait,
		MaxAckPending:  c.MaxAckPending,
		MaxDeliver:     -1,
		PriorityPolicy: jetstream.PriorityPolicyPinned,
		PriorityGroups: []string{PriorityGroup},
		PinnedTTL:      c.PinnedTTL,
	}
	if from > 1 {
		cc.DeliverPolicy, cc.OptStartSeq = jetstream.DeliverByStartSequencePolicy, from
	}
	return cc
}

// filter returns the subjects partition p's consumer takes. A lone
// partition takes every message of AGENT_EVENTS, and says so with ">":
// nats-server's file store finds the next message of any other filter
// with a wildcard by walking the subjects of the block that it matches,
// every run's here, which cost the server about 7 times the CPU an event
// of ">" in a backlog drain (docs/decisions/0007-performance.md, lever 15).
func (c PartitionConsumer) filter(p int) string {
	if c.Partitions == 1 {
		return ">"
	}
	return PartitionFilter(p)
}
