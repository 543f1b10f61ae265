package policy

// SizedGlobs is sizedGlobs, for the benchmarks.
var SizedGlobs = sizedGlobs
