package processors

import (
	"errors"
	"fmt"
	"slices"

	"github.com/guardstream/guardstream/event"
)

// ResumePolicy says who may resume a run. A resume names who resumes it
// (By); the runner may also set who the transport vouches for (Auth), and
// when it does, that identity is the one checked.
type ResumePolicy struct {
	// Allow lists the identities that may resume a run; "*" lets anyone
	// whose resume reaches guard-consumer. Empty: nobody may.
	Allow []string `json:"allow,omitempty"`
}

// Validate reports an empty identity.
func (p ResumePolicy) Validate() error {
	if slices.Contains(p.Allow, "") {
		return errors.New(`resume.allow has an empty identity; list user or operator ids, or "*" for anyone who may publish a resume`)
	}
	return nil
}

// allows reports whether who may resume.
func (p ResumePolicy) allows(who string) bool {
	return who != "" && (slices.Contains(p.Allow, who) || slices.Contains(p.Allow, "*"))
}

// resume answers a resume and reports whether the processors should see
// it: an accepted resume reopens a stopped run and draws a resumed
// decision; a refused one, or one after the run ended, draws a stale
// decision and changes nothing.
func (c *Chain) resume(r *Run, ev *event.Event, out *Out) bool {
	who := ev.Auth
	if who == "" {
		who = ev.By
	}
	switch {
	case r.Status == StatusEnded:
		out.add(event.Stale, "the run has ended; a resume changes nothing", nil)
		return false
	case !c.scopes[r.sc].Resume.allows(who):
		out.add(event.Stale, fmt.Sprintf("%s may not resume this run; the resume changed nothing", who), nil).Rule = ruleResume
		return false
	}
	msg := fmt.Sprintf("resumed by %s: %s", who, ev.Why)
	if r.Status == StatusStopped {
		msg = fmt.Sprintf("resumed by %s after %s: %s", who, r.Reason, ev.Why)
	}
	out.add(event.Resumed, msg, nil).Rule = ruleResume
	r.Status, r.Reason, r.Rule = StatusActive, "", ""
	return true
}

// ruleResume names the chain's resume rule in decisions.
const ruleResume = "resume"
