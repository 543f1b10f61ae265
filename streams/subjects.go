package streams

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/guardstream/guardstream/event"
)

// Subject prefixes.
const (
	eventPrefix      = "agent."
	controlPrefix    = "guard.ctl."
	deadLetterPrefix = "guard.dlq."
	timerPrefix      = "guard.timer."
	firedPrefix      = "guard.fired."
	runsPrefix       = "$KV." + RunsBucket + "."
)

// EventSubject returns the subject an agent publishes an event of kind k of
// the run on.
func EventSubject(tenant, run string, k event.Kind) (string, error) {
	if !k.Valid() {
		return "", fmt.Errorf("streams: unknown event kind %d", k)
	}
	if err := checkIDs(tenant, run); err != nil {
		return "", err
	}
	return eventPrefix + tenant + "." + run + "." + k.Token(), nil
}

// ControlSubject returns the subject a decision of kind k about the run is
// published on.
func ControlSubject(tenant, run string, k event.DecisionKind) (string, error) {
	if !k.Valid() {
		return "", fmt.Errorf("streams: unknown decision kind %d", k)
	}
	if err := checkIDs(tenant, run); err != nil {
		return "", err
	}
	return controlPrefix + tenant + "." + run + "." + k.Token(), nil
}

// RunControlFilter returns the filter matching every decision about the
// run, for an agent to subscribe to.
func RunControlFilter(tenant, run string) (string, error) {
	if err := checkIDs(tenant, run); err != nil {
		return "", err
	}
	return controlPrefix + tenant + "." + run + ".>", nil
}

// TimerSubject returns the subject a run's timer is scheduled on, in
// GUARD_TIMERS. The schedule fires on FiredSubject(tenant, run), which
// AGENT_EVENTS sources into the run's own partition as a timer event; a
// later schedule on the same subject replaces it.
func TimerSubject(tenant, run, name string) (string, error) {
	if err := checkIDs(tenant, run); err != nil {
		return "", err
	}
	if err := event.CheckID(name); err != nil {
		return "", fmt.Errorf("streams: timer name %q: %w", name, err)
	}
	return timerPrefix + tenant + "." + run + "." + name, nil
}

// FiredSubject returns the subject a run's timers fire on, in GUARD_TIMERS.
func FiredSubject(tenant, run string) (string, error) {
	if err := checkIDs(tenant, run); err != nil {
		return "", err
	}
	return firedPrefix + tenant + "." + run, nil
}

// TimerFilter returns the filter matching every timer of a run.
func TimerFilter(tenant, run string) (string, error) {
	if err := checkIDs(tenant, run); err != nil {
		return "", err
	}
	return timerPrefix + tenant + "." + run + ".*", nil
}

// DeadLetterSubject returns the subject dead letters with reason r go to.
func DeadLetterSubject(r DeadReason) string { return deadLetterPrefix + string(r) }

// PartitionFilter returns the stored-subject filter of partition p.
func PartitionFilter(p int) string { return eventPrefix + strconv.Itoa(p) + ".>" }

// ConsumerName returns the name of partition p's durable consumer.
func ConsumerName(p int) string { return ConsumerPrefix + strconv.Itoa(p) }

// RunKey returns the guard_runs key of the run's state.
func RunKey(tenant, run string) string { return tenant + "." + run }

// RunsSubject returns the subject of key in the guard_runs bucket.
func RunsSubject(key string) string { return runsPrefix + key }

// CheckpointKey returns the guard_runs key of partition p's checkpoint:
// "<seq> <cons>", the AGENT_EVENTS sequence up to which the run snapshots
// reflect the partition's events and the consumer sequence of the last
// delivery up to it, in decimal (only "<seq>" before the consumer sequence
// was kept). OwnerKey returns that of its owner, which each instance
// writes as it takes the partition. Run keys have two tokens; these have
// three, so none can collide.
func CheckpointKey(p int) string { return "_guard.checkpoint.p" + strconv.Itoa(p) }
func OwnerKey(p int) string      { return "_guard.owner.p" + strconv.Itoa(p) }

// Stored is a parsed AGENT_EVENTS subject. Its strings are parts of the
// subject parsed, so parsing allocates nothing.
type Stored struct {
	Partition   int
	Tenant, Run string
	Kind        string // the kind token, such as "call"
	Key         string // the run's guard_runs key, RunKey(Tenant, Run)
}

// ParseStored parses a subject as AGENT_EVENTS stores it:
// agent.<p>.<tenant>.<run>.<kind>.
func ParseStored(subject string) (Stored, error) {
	var s Stored
	rest, ok := strings.CutPrefix(subject, eventPrefix)
	if !ok {
		return s, fmt.Errorf("streams: %q is not an event subject", subject)
	}
	part, key, ok := strings.Cut(rest, ".")
	key, kind, ok2 := cutLast(key, ".")
	tenant, run, ok3 := strings.Cut(key, ".")
	if !ok || !ok2 || !ok3 || strings.Contains(run, ".") {
		return s, fmt.Errorf("streams: %q has %d tokens after agent., want 4 (partition, tenant, run, kind)", subject, strings.Count(rest, ".")+1)
	}
	p, err := strconv.Atoi(part)
	if err != nil || p < 0 {
		return s, fmt.Errorf("streams: %q: partition token %q is not a partition number", subject, part)
	}
	s = Stored{Partition: p, Tenant: tenant, Run: run, Kind: kind, Key: key}
	return s, checkIDs(s.Tenant, s.Run)
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

func checkIDs(tenant, run string) error {
	if err := event.CheckID(tenant); err != nil {
		return fmt.Errorf("streams: tenant id %q: %w", tenant, err)
	}
	if err := event.CheckID(run); err != nil {
		return fmt.Errorf("streams: run id %q: %w", run, err)
	}
	return nil
}
