// Package replication holds the parts of Redis 7.0's master-replica
// protocol that need no server internals: the replication backlog, the
// replication IDs, and the framing of an RDB sent to a replica.
package replication

import (
	"crypto/rand"
	"encoding/hex"
)

// Backlog is Redis's replication backlog: the last Size bytes of the
// replication stream, kept so that a replica that lost its link can ask
// for what it missed (PSYNC replid offset) instead of a full resync.
// Offsets count stream bytes from 1, as Redis's: the byte at offset o is
// the o-th byte ever fed. The zero value is not usable; see NewBacklog.
type Backlog struct {
	buf   []byte // a ring of len(buf) bytes
	next  int    // where the next byte goes in buf
	hist  int    // bytes of history held, at most len(buf)
	first int64  // the offset of the oldest byte held
}

// NewBacklog returns an empty backlog of size bytes whose next byte will
// be at offset start+1 (start: master_repl_offset when it is made).
func NewBacklog(size int, start int64) *Backlog {
	return &Backlog{buf: make([]byte, max(size, 1)), first: start + 1}
}

// Size is the backlog's capacity (repl-backlog-size).
func (b *Backlog) Size() int { return len(b.buf) }

// HistLen is how many bytes it holds (INFO's repl_backlog_histlen).
func (b *Backlog) HistLen() int { return b.hist }

// FirstOffset is the offset of the oldest byte held
// (repl_backlog_first_byte_offset).
func (b *Backlog) FirstOffset() int64 { return b.first }

// Append adds stream bytes, dropping the oldest past the capacity.
func (b *Backlog) Append(p []byte) {
	if len(p) >= len(b.buf) {
		drop := len(p) - len(b.buf)
		b.first += int64(b.hist + drop)
		copy(b.buf, p[drop:])
		b.next, b.hist = 0, len(b.buf)
		return
	}
	n := copy(b.buf[b.next:], p)
	if n < len(p) {
		copy(b.buf, p[n:])
	}
	b.next = (b.next + len(p)) % len(b.buf)
	b.hist += len(p)
	if over := b.hist - len(b.buf); over > 0 {
		b.first += int64(over)
		b.hist = len(b.buf)
	}
}

// Covers reports whether the stream from offset on (through the last byte
// held) is in the backlog, as masterTryPartialResynchronization checks:
// offset may be one past the last byte (nothing to send).
func (b *Backlog) Covers(offset int64) bool {
	return offset >= b.first && offset <= b.first+int64(b.hist)
}

// From returns a copy of the stream from offset on; offset must be
// covered.
func (b *Backlog) From(offset int64) []byte {
	skip := int(offset - b.first)
	n := b.hist - skip
	out := make([]byte, 0, n)
	start := (b.next - b.hist + skip + 2*len(b.buf)) % len(b.buf)
	if start+n <= len(b.buf) {
		return append(out, b.buf[start:start+n]...)
	}
	out = append(out, b.buf[start:]...)
	return append(out, b.buf[:n-(len(b.buf)-start)]...)
}

// Resize changes the capacity (CONFIG SET repl-backlog-size), keeping the
// newest bytes that fit.
func (b *Backlog) Resize(size int) {
	size = max(size, 1)
	if size == len(b.buf) {
		return
	}
	kept := b.From(b.first)
	if len(kept) > size {
		b.first += int64(len(kept) - size)
		kept = kept[len(kept)-size:]
	}
	b.buf = make([]byte, size)
	b.next, b.hist = 0, 0
	b.Append(kept)
}

// NewID returns a fresh replication ID: 40 random hex digits, as Redis's
// changeReplicationId.
func NewID() string {
	var raw [20]byte
	if _, err := rand.Read(raw[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	var digits [40]byte
	hex.Encode(digits[:], raw[:])
	return string(digits[:]) // one allocation, where EncodeToString makes two
}

// NoID is the replid2 of a server with no previous history: forty zeros.
const NoID = "0000000000000000000000000000000000000000"
