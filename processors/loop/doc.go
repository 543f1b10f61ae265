// Package loop detects agents that go round in circles: the same call again
// and again, the same tool with ever-changing arguments, two calls in
// alternation (ping-pong), and tool rounds that keep failing.
//
// A call's signature is an xxhash over the tool name, the canonical form of
// its arguments (key order, whitespace and number formatting do not matter)
// and its target path. Each detector escalates: advise with a typed steer
// constraint first, then the policy's action.
//
// A tool round is the set of calls the agent issues before their results
// come back: a call opens a round when none is open, and the round closes
// when every call in it has a result or the next step starts.
package loop
