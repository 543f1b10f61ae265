package auth

import (
	"fmt"

	"github.com/guardstream/guardstream/agentapi"
	"github.com/guardstream/guardstream/event"
)

// Role is what an identity is for.
type Role string

// Roles.
const (
	// RoleGuard is guard-consumer: everything in GUARD.
	RoleGuard Role = "guard"
	// RoleOperator uses the admin API and JetStream, reads everything,
	// and resumes stopped runs, but cannot publish decisions, timers,
	// dead letters, an agent's events or outputs.
	RoleOperator Role = "operator"
	// RoleDashboard reads decisions and dead letters and publishes
	// nothing.
	RoleDashboard Role = "dashboard"
	// RoleAgent publishes its tenant's events (all kinds but resume and
	// timer) and outputs, asks the agent API for its tenant, and reads its
	// tenant's decisions.
	RoleAgent Role = "agent"
)

// Roles lists the roles in the order the docs present them.
var Roles = []Role{RoleGuard, RoleOperator, RoleDashboard, RoleAgent}

// Account returns the account identities of role live in.
func (r Role) Account() string {
	if r == RoleAgent {
		return AgentsAccount
	}
	return GuardAccount
}

// Valid reports whether r is one of Roles.
func (r Role) Valid() bool {
	switch r {
	case RoleGuard, RoleOperator, RoleDashboard, RoleAgent:
		return true
	}
	return false
}

// AnyTenant as a tenant gives an agent identity every tenant: the embedded
// default's open port, where every local process is one trust domain.
const AnyTenant = "*"

// NameTemplate is the tenant in the agents' permissions template of an
// operator-mode deployment: the server puts the user's name there.
const NameTemplate = "{{name()}}"

// Permissions lists the subjects an identity may publish and subscribe
// to. Allow lists are exhaustive when not empty; a nil Permissions allows
// everything.
type Permissions struct {
	PubAllow, PubDeny []string
	SubAllow, SubDeny []string
}

// For returns the permissions of role. tenant matters to agents only: a
// tenant id, AnyTenant, or NameTemplate.
func For(role Role, tenant string) (*Permissions, error) {
	switch role {
	case RoleGuard:
		return nil, nil
	case RoleOperator:
		return &Permissions{
			PubAllow: []string{">"},
			PubDeny:  impersonation(),
			SubAllow: []string{">"},
		}, nil
	case RoleDashboard:
		return &Permissions{
			PubDeny:  []string{">"},
			SubAllow: []string{"guard.ctl.>", "guard.dlq.>"},
		}, nil
	case RoleAgent:
		if tenant != AnyTenant && tenant != NameTemplate {
			if err := event.CheckID(tenant); err != nil {
				return nil, fmt.Errorf("auth: tenant id %q: %w", tenant, err)
			}
		}
		return &Permissions{
			PubAllow: append(agentEvents(tenant), "guard.out."+tenant+".*.*", "guard.api."+tenant+".*"),
			SubAllow: []string{"guard.ctl." + tenant + ".>", agentapi.InboxPrefix(tenant) + ".>"},
		}, nil
	}
	return nil, fmt.Errorf("auth: unknown role %q; want guard, operator, dashboard or agent", role)
}

// agentEvents lists the event subjects of tenant's runs an agent may
// publish: every kind but timer, which only the server's scheduler fires,
// and resume, which reopens a stopped run and so is an operator's act
// (docs/wire.md §5.10).
func agentEvents(tenant string) []string {
	var subjects []string
	for k := event.Kind(1); k.Valid(); k++ {
		if k == event.KindTimer || k == event.KindResume || k == event.KindRunEnd {
			continue // run_end shares run_start's token
		}
		subjects = append(subjects, "agent."+tenant+".*."+k.Token())
	}
	return subjects
}

// impersonation lists what only guard-consumer or an agent may publish:
// decisions, timers, dead letters, an agent's events and outputs. An
// operator may publish resumes.
func impersonation() []string {
	return append(agentEvents(AnyTenant), "agent.*.*."+event.KindTimer.Token(),
		"guard.ctl.>", "guard.timer.>", "guard.fired.>", "guard.dlq.>", "guard.out.>")
}
