package server

import "github.com/floodgate/floodgate/internal/resp"

// Writer receives a command's reply. Handlers write through it and never
// format protocol bytes themselves, so the same handler serves a RESP2 or
// RESP3 client (resp.Writer) and a script's redis.call (the engine's Lua
// values): it is resp.ReplyWriter, one interface for both.
type Writer = resp.ReplyWriter

// Replies for a missing key (valueOrReply).
func replyZero(w Writer)        { w.Int(0) }
func replyNull(w Writer)        { w.Null() }
func replyNullArray(w Writer)   { w.NullArray() }
func replyEmptyArray(w Writer)  { w.Array(0) }
func replyEmptyString(w Writer) { w.BulkString("") }
func replyOK(w Writer)          { w.Status("OK") }
func replyNoKey(w Writer)       { w.Error(errNoSuchKey) }

// replyIntPair writes [a, b]: at once to a connection's writer, element by
// element to another (a script's redis.call).
func replyIntPair(w Writer, a, b int64) {
	if rw, ok := w.(*resp.Writer); ok {
		rw.IntPair(a, b)
		return
	}
	w.Array(2)
	w.Int(a)
	w.Int(b)
}

// pairReply writes n members, each followed by its score (or value) when
// paired: a flat array of 2n under RESP2, an array of n two-element arrays
// under RESP3 (Redis's WITHSCORES, WITHVALUES, ZPOPMIN with a count).
type pairReply struct {
	w      Writer
	nested bool
}

// newPairReply writes the reply's header. A flat reply stays flat under
// RESP3 too (ZPOPMIN without a count, HSCAN).
func newPairReply(c *Client, n int, paired, flat bool) pairReply {
	p := pairReply{w: c.w, nested: paired && !flat && c.w.Proto() == 3}
	switch {
	case p.nested || !paired:
		c.w.Array(n)
	default:
		c.w.Array(2 * n)
	}
	return p
}

// item opens the next member's pair when pairs nest.
func (p pairReply) item() {
	if p.nested {
		p.w.Array(2)
	}
}

// helpHandler answers a container's HELP with Redis's text.
func helpHandler(lines []string) func(c *Client, args [][]byte) {
	return func(c *Client, args [][]byte) {
		c.w.Array(len(lines))
		for _, l := range lines {
			c.w.Status(l)
		}
	}
}
