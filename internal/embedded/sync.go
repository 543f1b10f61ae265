package embedded

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// DefaultSyncInterval is how often the server fsyncs when nothing else is
// set: nats-server's own default.
const DefaultSyncInterval = 2 * time.Minute

// Sync says when the server flushes what JetStream stored to disk: after
// every write (Always), or every Interval. Between two fsyncs, a power loss
// or a kernel crash loses writes the server has already acknowledged; a
// process crash loses nothing, the kernel has them.
type Sync struct {
	Always   bool
	Interval time.Duration // 0 is DefaultSyncInterval; ignored when Always
}

// Running returns the setting s runs with: the one its options ended up
// with once a configuration file and the server's defaults were applied,
// which is not always what Options.Sync asked for. A server without
// JetStream has none; it returns the server's default.
func Running(s *server.Server) Sync {
	c := s.JetStreamConfig()
	switch {
	case c == nil:
		return Sync{}
	case c.SyncAlways:
		return Sync{Always: true}
	}
	return Sync{Interval: c.SyncInterval}
}

// ParseSync reads "always" or a duration such as "2m" or "100ms".
func ParseSync(s string) (Sync, error) {
	if s == "always" {
		return Sync{Always: true}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return Sync{}, fmt.Errorf("%w %q: want always, or a positive duration such as 2m or 1s", ErrSync, s)
	}
	return Sync{Interval: d}, nil
}

// String returns the setting as ParseSync reads it.
func (s Sync) String() string {
	if s.Always {
		return "always"
	}
	return s.interval().String()
}

// Describe says in a sentence what the setting keeps across a crash of the
// host.
func (s Sync) Describe() string {
	if s.Always {
		return "fsync after every write: an acknowledged event survives a power loss"
	}
	return fmt.Sprintf("fsync every %v: a power loss or kernel crash can lose events acknowledged since the last fsync (a process crash loses nothing)", s.interval())
}

func (s Sync) interval() time.Duration {
	if s.Interval == 0 {
		return DefaultSyncInterval
	}
	return s.Interval
}
