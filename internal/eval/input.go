package eval

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/eventlog"
	"github.com/guardstream/guardstream/internal/trajectory"
)

// Input is one run to evaluate.
type Input struct {
	// Run names the run: its recorded name, or tenant/run for wire events.
	Run   string
	Label string
	// Events are the run's wire events, in order.
	Events []event.Event
}

// Unlabelled is the label of runs whose outcome is not known.
const Unlabelled = "unlabelled"

// MaxLine is the longest line Read accepts: one recorded run.
const MaxLine = 256 << 20

// Read reads runs from r, gzip-compressed or not, and calls fn with each.
// The first line decides the format: a recorded run (see package
// trajectory), mapped to wire events by m, or a wire event (see package
// eventlog), in which case every event is read, and grouped by run in the
// order runs first appear, before fn is called. labels gives the outcome
// label of a wire-event run by "tenant/run" or by run id; recorded runs
// carry their own. An error names the line.
func Read(r io.Reader, m trajectory.Mapping, labels map[string]string, fn func(Input) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("eval: reading gzip input: %w", err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 1<<16)
	}
	var (
		recorded *bool
		order    []string
		byRun    = map[string][]event.Event{}
	)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("eval: line %d: %w", n, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if recorded == nil {
			isRun := trajectory.IsRun(line)
			recorded = &isRun
		}
		if *recorded {
			run, err := trajectory.Parse(line)
			if err != nil {
				return fmt.Errorf("eval: line %d: %w", n, err)
			}
			label := run.Label
			if label == "" {
				label = Unlabelled
			}
			if err := fn(Input{Run: run.Run, Label: label, Events: m.Events(&run)}); err != nil {
				return err
			}
			continue
		}
		ev, err := eventlog.Parse(line)
		if err != nil {
			return fmt.Errorf("eval: line %d: %w", n, err)
		}
		key := ev.Tenant + "/" + ev.Run
		if _, ok := byRun[key]; !ok {
			order = append(order, key)
		}
		byRun[key] = append(byRun[key], ev)
	}
	for _, key := range order {
		evs := byRun[key]
		label, ok := labels[key]
		if !ok {
			label, ok = labels[evs[0].Run]
		}
		if !ok {
			label = Unlabelled
		}
		if err := fn(Input{Run: key, Label: label, Events: evs}); err != nil {
			return err
		}
	}
	return nil
}

// readLine returns the next line without its newline, io.EOF at the end.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxLine {
			return nil, fmt.Errorf("a line longer than %d bytes", MaxLine)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		case err != nil:
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}
