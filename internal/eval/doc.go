// Package eval measures what a guard policy does to real agent runs. It
// replays recorded runs, in process, through the chain guard-consumer
// builds, as an agent that obeys the guards would go on (Replay), and
// counts the decisions by the runs' outcome labels (Evaluator): the share
// of runs each kind of decision touched and how often it came, where each
// stop came against the run's length and what it would have saved, and
// examples of each with the events that led to it.
//
// Precision alone means little: an Injector puts faults into copies of the
// same runs at seeded random points (a repeated call, an A/B cycle, a run
// of failures, an unknown tool, malformed arguments, a destructive
// command, a write to a protected path, a claimed success after a failed
// test run) and measures which the guards catch within the number of
// calls their rules promise.
package eval
