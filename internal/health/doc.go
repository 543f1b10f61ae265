// Package health serves guard-consumer's HTTP endpoints for orchestrators
// and Prometheus:
//
//	/livez    200 while the process serves HTTP
//	/readyz   200 when ready, else 503 with the reason as text
//	/metrics  Prometheus text exposition
//
// What "ready" means is the caller's: Serve takes it as a function.
package health
