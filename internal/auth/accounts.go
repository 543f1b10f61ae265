package auth

import (
	"github.com/guardstream/guardstream/agentapi"
	"github.com/guardstream/guardstream/objectstore"
)

// Account names.
const (
	GuardAccount  = "GUARD"
	AgentsAccount = "AGENTS"
	SystemAccount = "SYS"
)

// Share is a subject GUARD exports to AGENTS.
type Share struct {
	Subject string
	// Service is true for a service (requests, whose replies come back
	// through the import) and false for a stream (messages flow to
	// AGENTS).
	Service bool
}

// Layout lists what GUARD exports to AGENTS: all an agent can reach.
var Layout = []Share{
	{Subject: "agent.*.*.*", Service: true},           // events, acked by AGENT_EVENTS
	{Subject: objectstore.Filter("*"), Service: true}, // output uploads, acked by GUARD_OUTPUTS
	{Subject: agentapi.Filter("*"), Service: true},    // the agent API
	{Subject: "guard.ctl.>"},                          // decisions
}
