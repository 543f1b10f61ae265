// Package guard assembles the processors guard-consumer runs: a Policy
// document holds every guard's settings, with the defaults of the reference
// designs, and Chain builds the processor chain from it in its fixed order.
package guard
