// Package runnertest runs runners in tests: started on a connection,
// stopped, and checked to have stopped cleanly, when the test ends.
package runnertest
