// Package pressure reports how full a run's context window is.
//
// Each step may report ctx, the tokens in the context after the step, and
// win, the size of the window. When a step's usage, ctx/win, reaches a
// threshold of the policy (70, 85 and 95 percent by default) from below,
// the guard emits one pressure decision with Level set to the threshold
// and the ctx and win counters. A step that reaches several thresholds at
// once draws one decision per threshold, in ascending order. Pressure is
// edge-triggered: usage that stays above a threshold draws nothing more,
// and a threshold re-arms when usage falls back below it, as after the
// agent compacts its context. A step that leaves out ctx or win changes
// nothing.
//
// The guard is deterministic: it uses integer arithmetic only (no floating
// point, so every platform agrees on the boundary), reads no clock, starts
// no goroutines and iterates no map. Its state is one number. The same
// state and event always give the same new state and the same decisions.
package pressure
