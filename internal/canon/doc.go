// Package canon hashes tool-call arguments so that semantically identical
// JSON hashes alike: object key order, whitespace, number formatting (1, 1.0,
// 1e0) and string escapes ("\u0041" and "A") do not change the hash, and a
// key repeated in an object counts once, with its last value, as JSON
// decoders read it.
//
// Hashing walks the JSON text once without building values and, for
// objects of up to 16 members, without allocating. Object members are
// combined with a commutative sum of per-member hashes, so no sorting is
// needed, except of the members of an object that may repeat a key. The package is pure: processors
// may use it.
package canon
