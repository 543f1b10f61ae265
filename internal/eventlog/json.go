package eventlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/guardstream/guardstream/event"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// ErrLine marks a line that is not a wire event.
var ErrLine = errors.New("eventlog: not a wire event")

// Parse decodes one JSON line into an event, as guard-consumer would
// decode the same map sent as msgpack. It does not validate the event
// (event.Validate does).
func Parse(line []byte) (event.Event, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return event.Event{}, fmt.Errorf("%w: %v", ErrLine, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return event.Event{}, fmt.Errorf("%w: a line must hold a JSON object", ErrLine)
	}
	b, err := msgpack.Marshal(numbers(v))
	if err != nil {
		return event.Event{}, fmt.Errorf("%w: %v", ErrLine, err)
	}
	var ev event.Event
	if err := event.DecodeEvent(b, &ev); err != nil {
		return event.Event{}, fmt.Errorf("%w: %v", ErrLine, err)
	}
	return ev, nil
}

// numbers turns the json.Numbers in v into int64 where they are integers
// and float64 where they are not.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}

// Append appends ev as one JSON line, its keys in the order the wire
// encoder writes them.
func Append(dst []byte, ev *event.Event) []byte {
	dec := msgpack.NewDecoder(bytes.NewReader(event.AppendEvent(nil, ev)))
	dst, err := appendJSON(dst, dec)
	if err != nil {
		panic(fmt.Sprintf("eventlog: re-reading an encoded event: %v", err)) // the encoder's own output
	}
	return append(dst, '\n')
}

// appendJSON appends the next msgpack value of dec as JSON, keeping the
// order of map keys.
func appendJSON(dst []byte, dec *msgpack.Decoder) ([]byte, error) {
	c, err := dec.PeekCode()
	if err != nil {
		return dst, err
	}
	switch {
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		n, err := dec.DecodeMapLen()
		if err != nil {
			return dst, err
		}
		dst = append(dst, '{')
		for i := range n {
			if i > 0 {
				dst = append(dst, ',')
			}
			k, err := dec.DecodeString()
			if err != nil {
				return dst, err
			}
			dst = strconv.AppendQuote(dst, k)
			dst = append(dst, ':')
			if dst, err = appendJSON(dst, dec); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		n, err := dec.DecodeArrayLen()
		if err != nil {
			return dst, err
		}
		dst = append(dst, '[')
		for i := range n {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendJSON(dst, dec); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
	v, err := dec.DecodeInterfaceLoose()
	if err != nil {
		return dst, err
	}
	switch x := v.(type) {
	case []byte:
		v = string(x) // bin read as text, as the event decoder reads it
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			v = nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}
