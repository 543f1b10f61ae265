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

// TimerSubject returns the subject a run's timer is scheduled on. The
// schedule fires into the run's own partition, on EventSubject(tenant, run,
// event.KindTimer); a later schedule on the same subject replaces it.
func TimerSubject(tenant, run, name string) (string, error) {
	if err := checkIDs(tenant, run); err != nil {
		return "", err
	}
	if err := event.CheckID(name); err != nil {
		return "", fmt.Errorf("streams: timer name %q: %w", name, err)
	}
	return timerPrefix + tenant + "." + run + "." + name, nil
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

// Stored is a parsed AGENT_EVENTS subject.
type Stored struct {
	Partition   int
	Tenant, Run string
	Kind        string // the kind token, such as "call"
}

// ParseStored parses a subject as AGENT_EVENTS stores it:
// agent.<p>.<tenant>.<run>.<kind>.
func ParseStored(subject string) (Stored, error) {
	var s Stored
	rest, ok := strings.CutPrefix(subject, eventPrefix)
	if !ok {
		return s, fmt.Errorf("streams: %q is not an event subject", subject)
	}
	tok := strings.Split(rest, ".")
	if len(tok) != 4 {
		return s, fmt.Errorf("streams: %q has %d tokens after agent., want 4 (partition, tenant, run, kind)", subject, len(tok))
	}
	p, err := strconv.Atoi(tok[0])
	if err != nil || p < 0 {
		return s, fmt.Errorf("streams: %q: partition token %q is not a partition number", subject, tok[0])
	}
	s = Stored{Partition: p, Tenant: tok[1], Run: tok[2], Kind: tok[3]}
	return s, checkIDs(s.Tenant, s.Run)
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
