//go:build race

package integration

// raceDetector is set when the tests run under the race detector.
const raceDetector = true
