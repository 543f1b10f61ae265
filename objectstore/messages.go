package objectstore

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// Messages returns the messages that store data, at most one chunk long,
// under its digest: the chunk (nil when data is empty) and the object's
// metadata, in the object store's own format, so Get and any NATS tool
// read the object as if Put had stored it. Publish them in this order.
//
// Writing the same output again needs no lookup first: the new metadata
// replaces the old (rollup) and points to the new chunk. The old chunk is
// not purged — purging, or rolling up the chunk subject, costs the server a
// purge that made pipelined writes ten times slower in guard-bench — so it
// stays behind until it expires. Writers should not rewrite what they
// wrote recently.
func (s *Store) Messages(data []byte) (chunk, meta *nats.Msg, ref event.OutputRef, err error) {
	if len(data) > s.cfg.ChunkSize {
		return nil, nil, ref, fmt.Errorf("%w: %d bytes do not fit one %d-byte chunk; use Put", ErrTooLarge, len(data), s.cfg.ChunkSize)
	}
	sum := sha256.Sum256(data)
	ref = event.OutputRef{Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(data))}
	id := nuid.Next()
	info := jetstream.ObjectInfo{
		ObjectMeta: jetstream.ObjectMeta{Name: ref.Digest, Opts: &jetstream.ObjectMetaOptions{ChunkSize: uint32(s.cfg.ChunkSize)}},
		Bucket:     Bucket,
		NUID:       id,
		Size:       uint64(len(data)),
		ModTime:    time.Now().UTC(),
		Digest:     "SHA-256=" + base64.URLEncoding.EncodeToString(sum[:]),
	}
	if len(data) > 0 {
		info.Chunks = 1
		chunk = nats.NewMsg("$O." + Bucket + ".C." + id)
		chunk.Data = data
	}
	meta = nats.NewMsg("$O." + Bucket + ".M." + base64.URLEncoding.EncodeToString([]byte(ref.Digest)))
	meta.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupSubject)
	if meta.Data, err = json.Marshal(info); err != nil {
		return nil, nil, ref, err
	}
	return chunk, meta, ref, nil
}
