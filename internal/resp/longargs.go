package resp

import "encoding/binary"

// LongArgs are the arguments of a long request as the parser set them
// aside (Parser.Seal): parts in which each argument is an unsigned varint
// of its length and its bytes, and nothing per argument beside them. A
// command that takes them walks them in order (Cursor); whatever needs the
// request as argument slices (a transaction's queue, the AOF, a replica,
// MONITOR) makes them (Slices). Redis holds a long request as an argv of
// pointers, 8 bytes an argument; slices take 24.
type LongArgs struct {
	parts [][]byte
	count int
}

// NewLongArgs holds args as LongArgs, compacted: for tests and for
// requests made in-process.
func NewLongArgs(args [][]byte) *LongArgs {
	n := 0
	for _, a := range args {
		n += uvarintLen(int64(len(a))) + len(a)
	}
	part := make([]byte, 0, n)
	for _, a := range args {
		part = binary.AppendUvarint(part, uint64(len(a)))
		part = append(part, a...)
	}
	return &LongArgs{parts: [][]byte{part}, count: len(args)}
}

// Len is the number of arguments, the command's name included.
func (a *LongArgs) Len() int { return a.count }

// Cursor returns a cursor at the first argument.
func (a *LongArgs) Cursor() ArgCursor { return ArgCursor{parts: a.parts} }

// Head returns the first n arguments (all of them if there are fewer) as
// slices.
func (a *LongArgs) Head(n int) [][]byte {
	n = min(n, a.count)
	head := make([][]byte, 0, n)
	cur := a.Cursor()
	for range n {
		head = append(head, cur.Next())
	}
	return head
}

// Slices returns every argument as a slice of a's parts.
func (a *LongArgs) Slices() [][]byte { return a.Head(a.count) }

// ArgCursor walks LongArgs in order.
type ArgCursor struct {
	parts [][]byte
	pos   int // in parts[0]
}

// Next returns the next argument (valid as long as its LongArgs are), nil
// past the last.
func (c *ArgCursor) Next() []byte {
	for len(c.parts) > 0 && c.pos == len(c.parts[0]) {
		c.parts, c.pos = c.parts[1:], 0
	}
	if len(c.parts) == 0 {
		return nil
	}
	part := c.parts[0]
	n, w := uint64(part[c.pos]), 1
	if n >= 0x80 {
		n, w = binary.Uvarint(part[c.pos:])
	}
	start := c.pos + w
	end := start + int(n)
	c.pos = end
	return part[start:end:end]
}
