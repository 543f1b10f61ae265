// Package pack writes Go values as MessagePack byte for byte as
// msgpack/v5's reflection writes them from struct tags, without the
// allocations of its omitempty check.
//
// msgpack decides whether an omitempty field is empty by converting it to
// an interface, to look for an IsZero method, which allocates a copy of
// every field that is not a pointer: a run's snapshot cost about 230
// allocations and 20 µs that way, and at a million runs guard-consumer
// writes about one snapshot per event. pack compiles each type once into a
// plan that tests emptiness with reflect's own accessors and calls IsZero
// through the field's address, and hands every value that is not a struct,
// a sequence or a pointer to msgpack's own encoder, so the bytes are
// msgpack's.
//
// A plan covers structs whose fields are named by tags with no option but
// omitempty, and slices, arrays and pointers of them. A type beyond that
// (an embedded field, a _msgpack field, an interface, a tag option such as
// intern or as_array) is encoded by msgpack itself, whole. The encoder must
// keep msgpack's default struct form: no SetOmitEmpty,
// UseArrayEncodedStructs or SetCustomStructTag, and no type registered with
// msgpack.Register or RegisterExt. The package is pure: processors may use
// it.
package pack
