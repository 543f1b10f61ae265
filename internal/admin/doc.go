// Package admin is guard-consumer's admin API: a NATS micro service, so
// operators and dashboards reach it with any NATS client, and `nats micro`
// lists it.
//
// Endpoints (requests and replies are JSON):
//
//	guard.admin.output   {"tenant", "run", "call", "offset", "max_lines"}
//	                     → {"ref": {"dig", "size"}, "view": {"text", "trunc", "cut"}}
//
// output locates the full output a call produced, through the output
// decision of its result in GUARD_CONTROL, and returns a page of it; the
// full bytes are in the GUARD_OUTPUTS stream under ref.dig
// (`guard-consumer output` fetches them).
package admin
