// Package jsonlex scans the lexical pieces of JSON text — whitespace,
// string literals, numbers and the literals true, false and null — with the
// semantics of encoding/json, without building values and, on the common
// path, without allocating.
//
// The guards read tool arguments three ways: internal/canon hashes them,
// internal/workspace picks paths out of them, and the schema guard builds
// values to validate. Each walks the structure its own way; all of them
// share these lexical rules, so a string or a number means the same thing to
// every guard.
package jsonlex
