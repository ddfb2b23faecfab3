package resp

import "slices"

// Buffer is where a Writer's replies go: B, the block being filled, which
// its owner writes out and empties. A connection keeps the full blocks in
// a list of its own (Redis's client reply list), so a large reply is never
// one slice grown by copying.
type Buffer struct {
	B []byte
	// Muted drops every reply while CLIENT REPLY OFF or SKIP is in effect
	// (Redis's prepareClientToWrite refusing).
	Muted bool
	// Grow, when set, is called when B has less than n bytes free, and
	// leaves at least n free (a connection moves the full block to its
	// list and starts another, enforcing its output buffer limit). When
	// nil, B grows as append grows it.
	Grow func(n int)
}

// Reserve makes room for n more bytes in B, so that appending them never
// copies the replies before.
//
// Reserve is not inlined, so that room, which calls it, is (as before the
// package split): every append pays one call, in which the room is
// usually there.
func (b *Buffer) Reserve(n int) {
	if cap(b.B)-len(b.B) >= n {
		return
	}
	if b.Grow != nil {
		b.Grow(n)
		return
	}
	b.B = slices.Grow(b.B, n)
}

// ErrorCounter counts error replies by their kind (the server's INFO
// errorstats).
type ErrorCounter interface {
	CountError(msg string)
}

// NewWriter returns a RESP2 Writer appending to out, whose error replies
// errs counts (it may be nil).
func NewWriter(out *Buffer, errs ErrorCounter) *Writer {
	return &Writer{out: out, errs: errs, proto: 2}
}

// Out is the Buffer w appends to.
func (w *Writer) Out() *Buffer { return w.out }

// SetProto switches w between RESP2 and RESP3 (HELLO, RESET).
func (w *Writer) SetProto(proto int) { w.proto = proto }
