package workspace

import (
	"strings"

	"github.com/guardstream/guardstream/internal/jsonlex"
)

// MaxDepth is how deep into nested objects and arrays of a call's
// arguments Strings looks for keys.
const MaxDepth = 4

// Strings calls fn with every string value of the JSON object args stored
// under a key want accepts, in document order: a string value, or each
// string element of an array value. Keys are looked for in the top-level
// object and in objects nested up to MaxDepth levels (such as the entries of
// an "edits" array). fn returns false to stop early.
//
// Strings reports whether args is a well-formed JSON object; an empty args
// counts as one, and so does an object fn stopped in. On malformed input it
// may have called fn for the values before the fault. Values are passed
// without allocating unless they contain escape sequences.
func Strings(args string, want func(key string) bool, fn func(key, val string) bool) bool {
	return walk(args, want, func(key, val string, _ int) bool { return fn(key, val) })
}

// Command returns the value of the first key of args that want accepts and
// whose value is a string (cmd) or an array of strings (argv). found is
// false when there is none.
func Command(args string, want func(key string) bool) (cmd string, argv []string, found bool) {
	walk(args, want, func(_, val string, elem int) bool {
		switch {
		case found && elem <= 0:
			return false // the next value: the first one is complete
		case elem < 0:
			cmd, found = val, true
			return false
		}
		argv, found = append(argv, val), true
		return true
	})
	return cmd, argv, found
}

// walk is Strings with the index of each value in its array, or -1 for a
// value that is not in an array.
func walk(args string, want func(key string) bool, fn func(key, val string, elem int) bool) bool {
	if strings.TrimSpace(args) == "" {
		return true
	}
	sc := scanner{s: args}
	sc.space()
	if !sc.peek('{') {
		return false
	}
	if !sc.object(0, want, fn) {
		return sc.stopped
	}
	sc.space()
	return sc.i == len(sc.s)
}

// scanner walks JSON text. The key filter and the callback are passed to
// its methods rather than kept in it, so that they need not escape to the
// heap.
type scanner struct {
	s       string
	i       int
	stopped bool // fn asked to stop
}

type (
	wantFunc  = func(key string) bool
	valueFunc = func(key, val string, elem int) bool
)

func (sc *scanner) space() { sc.i = jsonlex.Space(sc.s, sc.i) }

func (sc *scanner) peek(c byte) bool { return sc.i < len(sc.s) && sc.s[sc.i] == c }

func (sc *scanner) eat(c byte) bool {
	sc.space()
	if sc.peek(c) {
		sc.i++
		return true
	}
	return false
}

// object scans an object starting at '{'. It returns false on a syntax error
// or when asked to stop.
func (sc *scanner) object(depth int, want wantFunc, fn valueFunc) bool {
	sc.i++ // '{'
	if sc.eat('}') {
		return true
	}
	for {
		sc.space()
		if !sc.peek('"') {
			return false
		}
		key, ok := sc.str()
		if !ok || !sc.eat(':') {
			return false
		}
		sc.space()
		if want(key) {
			if !sc.wanted(key, depth, want, fn) {
				return false
			}
		} else if !sc.value(depth, want, fn) {
			return false
		}
		if sc.eat(',') {
			continue
		}
		return sc.eat('}')
	}
}

// wanted scans the value of a wanted key and hands its strings to fn.
func (sc *scanner) wanted(key string, depth int, want wantFunc, fn valueFunc) bool {
	if sc.i >= len(sc.s) {
		return false
	}
	switch sc.s[sc.i] {
	case '"':
		v, ok := sc.str()
		if !ok {
			return false
		}
		if !fn(key, v, -1) {
			sc.stopped = true
			return false
		}
		return true
	case '[':
		sc.i++
		if sc.eat(']') {
			return true
		}
		for n := 0; ; n++ {
			sc.space()
			if sc.peek('"') {
				v, ok := sc.str()
				if !ok {
					return false
				}
				if !fn(key, v, n) {
					sc.stopped = true
					return false
				}
			} else if !sc.value(depth+1, want, fn) {
				return false
			}
			if sc.eat(',') {
				continue
			}
			return sc.eat(']')
		}
	}
	return sc.value(depth, want, fn)
}

// value scans any value, looking into objects and arrays down to MaxDepth.
func (sc *scanner) value(depth int, want wantFunc, fn valueFunc) bool {
	if sc.i >= len(sc.s) {
		return false
	}
	switch c := sc.s[sc.i]; {
	case c == '"':
		_, _, ok := sc.raw()
		return ok
	case c == '{':
		if depth >= MaxDepth {
			return sc.skip()
		}
		return sc.object(depth+1, want, fn)
	case c == '[':
		if depth >= MaxDepth {
			return sc.skip()
		}
		sc.i++
		if sc.eat(']') {
			return true
		}
		for {
			sc.space()
			if !sc.value(depth+1, want, fn) {
				return false
			}
			if sc.eat(',') {
				continue
			}
			return sc.eat(']')
		}
	default:
		return sc.literal()
	}
}

// skip checks and skips a value nested too deep to look into, without
// recursion, so that no input can exhaust the stack.
func (sc *scanner) skip() bool {
	var closers []byte // what closes each open object or array
	for {
		// A value.
		sc.space()
		if sc.i >= len(sc.s) {
			return false
		}
		switch c := sc.s[sc.i]; {
		case c == '{' || c == '[':
			sc.i++
			close := byte('}')
			if c == '[' {
				close = ']'
			}
			if sc.eat(close) {
				break
			}
			closers = append(closers, close)
			if close == '}' && !sc.key() {
				return false
			}
			continue
		case c == '"':
			if _, _, ok := sc.raw(); !ok {
				return false
			}
		default:
			if !sc.literal() {
				return false
			}
		}
		// After a value: a comma, or the ends of the containers it closes.
		for {
			if len(closers) == 0 {
				return true
			}
			close := closers[len(closers)-1]
			if sc.eat(',') {
				if close == '}' && !sc.key() {
					return false
				}
				break
			}
			if !sc.eat(close) {
				return false
			}
			closers = closers[:len(closers)-1]
		}
	}
}

// key scans an object key and its colon.
func (sc *scanner) key() bool {
	sc.space()
	if !sc.peek('"') {
		return false
	}
	if _, _, ok := sc.raw(); !ok {
		return false
	}
	return sc.eat(':')
}

// literal scans a number, true, false or null.
func (sc *scanner) literal() bool {
	if sc.i >= len(sc.s) {
		return false
	}
	var f jsonlex.Fault
	switch c := sc.s[sc.i]; {
	case c == '-' || '0' <= c && c <= '9':
		sc.i, f = jsonlex.Number(sc.s, sc.i)
	case c == 't' || c == 'f' || c == 'n':
		sc.i, f = jsonlex.Keyword(sc.s, sc.i)
	default:
		return false
	}
	return f == jsonlex.OK
}

// raw scans a string at '"' and returns its body between the quotes, and
// whether the body is its value as is.
func (sc *scanner) raw() (body string, plain, ok bool) {
	end, plain, f := jsonlex.String(sc.s, sc.i)
	if f != jsonlex.OK {
		return "", false, false
	}
	body, sc.i = sc.s[sc.i+1:end-1], end
	return body, plain, true
}

// str scans a string at '"' and returns its value.
func (sc *scanner) str() (string, bool) {
	body, plain, ok := sc.raw()
	if !ok || plain {
		return body, ok
	}
	return string(jsonlex.Unescape(make([]byte, 0, len(body)), body)), true
}
