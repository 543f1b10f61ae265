package event

import "math"

// appendDecision appends d to b exactly as msgpack's reflection would
// encode it from the struct tags — fields in declaration order, zero
// optional fields left out, integers in their smallest form — writing
// the bytes itself. Decisions are what guard-consumer encodes most: the
// reflective omitempty check cost 18 allocations and 1.5 µs a decision,
// and going through msgpack's Encoder, a call through an interface for
// each piece, was still 3 % of its CPU at 20k events/s. Diags, the one
// field of structs with optional fields of their own, is left to msgpack.
// TestDecisionEncodingMatchesTags and FuzzDecisionEncoding hold the bytes
// to the tags'.
func appendDecision(b []byte, d *Decision) []byte {
	b = appendMapLen(b, 6+count(d.Call != "", d.Guard != "", d.Reason != "", d.Rule != "", d.Outcome != "",
		d.Msg != "", d.Steer != nil, len(d.Counts) > 0, d.Args != "", len(d.Diags) > 0, len(d.Near) > 0,
		d.Level != 0, d.View != "", d.Ref != nil, d.Trunc != nil, len(d.Calls) > 0, len(d.Missing) > 0, len(d.Refused) > 0))
	b = appendInt(appendString(b, "v"), int64(d.V))
	b = appendInt(appendString(b, "k"), int64(d.Kind))
	b = appendString(appendString(b, "tn"), d.Tenant)
	b = appendString(appendString(b, "run"), d.Run)
	b = appendInt(appendString(b, "seq"), d.Seq)
	b = appendInt(appendString(b, "ts"), d.TS)
	b = appendOptString(b, "call", d.Call)
	b = appendOptString(b, "g", d.Guard)
	b = appendOptString(b, "rsn", string(d.Reason))
	b = appendOptString(b, "rule", d.Rule)
	b = appendOptString(b, "out", string(d.Outcome))
	b = appendOptString(b, "msg", d.Msg)
	if st := d.Steer; st != nil {
		b = appendString(appendMapLen(appendString(b, "steer"), 1+count(st.Sig != "", st.Tool != "")), "c")
		b = appendOptString(appendString(b, string(st.Kind)), "sig", st.Sig)
		b = appendOptString(b, "tool", st.Tool)
	}
	if len(d.Counts) > 0 {
		b = appendArrayLen(appendString(b, "ctr"), len(d.Counts))
		for _, c := range d.Counts {
			b = appendString(appendString(appendMapLen(b, 2), "n"), c.Name)
			b = appendInt(appendString(b, "v"), c.Value)
		}
	}
	b = appendOptString(b, "args", d.Args)
	if len(d.Diags) > 0 {
		b = appendValue(appendString(b, "diag"), d.Diags)
	}
	b = appendOptStrings(b, "near", d.Near)
	if d.Level != 0 {
		b = appendInt(appendString(b, "level"), d.Level)
	}
	b = appendOptString(b, "view", d.View)
	if r := d.Ref; r != nil {
		b = appendString(appendString(appendMapLen(appendString(b, "ref"), 2), "dig"), r.Digest)
		b = appendInt(appendString(b, "size"), r.Size)
	}
	if t := d.Trunc; t != nil {
		b = appendMapLen(appendString(b, "trunc"), 3+count(t.Offset != 0, t.LinesRemaining != 0, t.HasMore))
		if t.Offset != 0 {
			b = appendInt(appendString(b, "offset"), t.Offset)
		}
		b = appendInt(appendString(b, "lines_shown"), t.LinesShown)
		if t.LinesRemaining != 0 {
			b = appendInt(appendString(b, "lines_remaining"), t.LinesRemaining)
		}
		if t.HasMore {
			b = append(appendString(b, "has_more"), 0xc3) // true
		}
		b = appendInt(appendString(b, "total_lines"), t.TotalLines)
		b = appendInt(appendString(b, "total_bytes"), t.TotalBytes)
	}
	b = appendOptStrings(b, "calls", d.Calls)
	b = appendOptStrings(b, "missing", d.Missing)
	return appendOptStrings(b, "refused", d.Refused)
}

// appendOptString appends the entry k: v unless v is empty.
func appendOptString(b []byte, k, v string) []byte {
	if v == "" {
		return b
	}
	return appendString(appendString(b, k), v)
}

// appendOptStrings appends the entry k: vs unless vs is empty.
func appendOptStrings(b []byte, k string, vs []string) []byte {
	if len(vs) == 0 {
		return b
	}
	b = appendArrayLen(appendString(b, k), len(vs))
	for _, v := range vs {
		b = appendString(b, v)
	}
	return b
}

// The msgpack forms msgpack/v5 writes: the smallest that holds the value.

func appendMapLen(b []byte, n int) []byte { return appendLen(b, n, 0x80, 16, 0xde) }

func appendArrayLen(b []byte, n int) []byte { return appendLen(b, n, 0x90, 16, 0xdc) }

// appendLen appends a map's or an array's header: fixed below fixed
// entries, else a 16-bit length after the code wide, else a 32-bit one
// after the code after it.
func appendLen(b []byte, n int, fix byte, fixed int, wide byte) []byte {
	switch {
	case n < fixed:
		return append(b, fix|byte(n))
	case n <= math.MaxUint16:
		return append(b, wide, byte(n>>8), byte(n))
	}
	return append(b, wide+1, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

func appendString(b []byte, s string) []byte {
	switch n := len(s); {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= math.MaxUint8:
		b = append(b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		b = append(b, 0xda, byte(n>>8), byte(n))
	default:
		b = append(b, 0xdb, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, s...)
}

func appendInt(b []byte, v int64) []byte {
	switch {
	case v >= 0 && v <= math.MaxInt8, v < 0 && v >= -32: // positive and negative fixint
		return append(b, byte(v))
	case v >= 0 && v <= math.MaxUint8:
		return append(b, 0xcc, byte(v))
	case v >= 0 && v <= math.MaxUint16:
		return append(b, 0xcd, byte(v>>8), byte(v))
	case v >= 0 && v <= math.MaxUint32:
		return append(b, 0xce, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	case v >= 0:
		return appendUint64(append(b, 0xcf), uint64(v))
	case v >= math.MinInt8:
		return append(b, 0xd0, byte(v))
	case v >= math.MinInt16:
		return append(b, 0xd1, byte(v>>8), byte(v))
	case v >= math.MinInt32:
		return append(b, 0xd2, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	}
	return appendUint64(append(b, 0xd3), uint64(v))
}

func appendUint64(b []byte, v uint64) []byte {
	return append(b, byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// count returns how many of conds hold.
func count(conds ...bool) int {
	n := 0
	for _, c := range conds {
		if c {
			n++
		}
	}
	return n
}
