// Package processors defines what a guard is and how guards compose.
//
// A Processor is a pure step over one run's state: Apply(state, event) folds
// the event into the state and appends decisions to an Out. Determinism is
// the contract that makes replay, crash recovery and partition hand-over
// simple, so Apply must not:
//
//   - do I/O, import NATS, or talk to anything outside its arguments;
//   - read the wall clock (time comes from events) or use randomness;
//   - start goroutines or depend on map iteration order;
//   - panic on bad input (bad input becomes a decision);
//   - let its state grow with the length of the run (keep windows, not
//     histories).
//
// Same state and same event must give the same new state and the same
// decisions, byte for byte. The conformance kit in processortest checks this
// for every processor.
//
// A Chain runs processors in order over a Run, the state of one run across
// all of them. The chain owns what is common to every guard: the run's
// lifecycle, per-run de-duplication by sequence, and composing one verdict per
// tool call (the first reject, defer or stop ends the chain for that event; a
// call nobody objects to is allowed). Processors that must know of every
// refused call implement RefusalObserver: the chain tells them of each
// reject and stop, and Chain.Refuse of calls refused outside it.
package processors
