package server

import (
	"strconv"
	"time"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

// Streams: the data commands of t_stream.c (the consumer-group commands
// build on the same helpers, in their own file).
var streamHandlers = map[string]Handler{
	"xadd":         cmdXAdd,
	"xrange":       cmdXRange,
	"xrevrange":    cmdXRevRange,
	"xlen":         cmdXLen,
	"xdel":         cmdXDel,
	"xtrim":        cmdXTrim,
	"xread":        cmdXRead,
	"xsetid":       cmdXSetID,
	"xinfo|stream": cmdXInfoStream,
}

// Errors of the stream commands, with Redis 7.0's text.
const (
	errStreamID            = "ERR Invalid stream ID specified as stream command argument"
	errStreamTrimBoth      = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
	errStreamMaxLen        = "ERR The MAXLEN argument must be >= 0."
	errStreamLimit         = "ERR The LIMIT argument must be >= 0."
	errStreamLimitNoTrim   = "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
	errStreamXTrimNoTrim   = "ERR syntax error, XTRIM must be called with a trimming strategy"
	errStreamLimitNoApprox = "ERR syntax error, LIMIT cannot be used without the special ~ option"
	errStreamZeroID        = "ERR The ID specified in XADD must be greater than 0-0"
	errStreamExhausted     = "ERR The stream has exhausted the last possible ID, unable to add more items"
	errStreamIDTooSmall    = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
	errStreamTooLarge      = "ERR Elements are too large to be stored"
	errStreamStartInterval = "ERR invalid start ID for the interval"
	errStreamEndInterval   = "ERR invalid end ID for the interval"
	errXReadUnbalanced     = "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified."
	errXReadGroupOption    = "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."
	errXReadNoAckOption    = "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead."
	errXReadGroupMissing   = "ERR Missing GROUP option for XREADGROUP"
	errXReadGroupDollar    = "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set."
	errXReadGT             = "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option."
	errTimeoutInteger      = "ERR timeout is not an integer or out of range"
	errXSetIDEntriesAdded  = "ERR entries_added must be positive"
	errXSetIDMaxDeleted    = "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"
	errXSetIDTooSmall      = "ERR The ID specified in XSETID is smaller than the target stream top item"
	errXSetIDEntriesSmall  = "ERR The entries_added specified in XSETID is smaller than the target stream length"
)

// xreadBlockedDefaultCount is XREAD_BLOCKED_DEFAULT_COUNT: what a blocked
// read without COUNT is served at most.
const xreadBlockedDefaultCount = 1000

// parseStreamID parses an ID as streamGenericParseIDOrReply: "-" and "+"
// (unless strict), ms or ms-seq (the missing seq is missingSeq), and with
// seqGiven non-nil the "ms-*" form, which sets it false. Each part is read
// as string2ull: a canonical non-negative integer, or anything strtoull
// takes whole (spaces, a sign, leading zeros).
func parseStreamID(c *Client, b []byte, missingSeq uint64, strict bool, seqGiven *bool) (store.StreamID, bool) {
	id, ok := streamIDFrom(b, missingSeq, strict, seqGiven)
	if !ok && c != nil {
		c.w.Error(errStreamID)
	}
	return id, ok
}

func streamIDFrom(b []byte, missingSeq uint64, strict bool, seqGiven *bool) (store.StreamID, bool) {
	if len(b) > 127 {
		return store.StreamID{}, false
	}
	for i, ch := range b { // the C string ends at a NUL
		if ch == 0 {
			b = b[:i]
			break
		}
	}
	if strict && len(b) == 1 && (b[0] == '-' || b[0] == '+') {
		return store.StreamID{}, false
	}
	if seqGiven != nil {
		*seqGiven = true
	}
	if len(b) == 1 && b[0] == '-' {
		return store.StreamID{}, true
	}
	if len(b) == 1 && b[0] == '+' {
		return store.MaxStreamID, true
	}
	msPart, seqPart, dash := b, []byte(nil), false
	for i, ch := range b {
		if ch == '-' {
			msPart, seqPart, dash = b[:i], b[i+1:], true
			break
		}
	}
	ms, ok := string2ull(msPart)
	if !ok {
		return store.StreamID{}, false
	}
	seq := missingSeq
	if dash {
		if seqGiven != nil && len(seqPart) == 1 && seqPart[0] == '*' {
			seq, *seqGiven = 0, false
		} else if seq, ok = string2ull(seqPart); !ok {
			return store.StreamID{}, false
		}
	}
	return store.StreamID{Ms: ms, Seq: seq}, true
}

// string2ull is Redis's: string2ll (a negative number fails), else what
// strtoull parses whole without an error.
func string2ull(b []byte) (uint64, bool) {
	if n, ok := number.ParseInt(b); ok {
		return uint64(n), n >= 0
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return 0, false
	}
	var v uint64
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			return 0, false
		}
		if v > (1<<64-1-uint64(d))/10 {
			return 0, false // ERANGE
		}
		v = v*10 + uint64(d)
	}
	if neg {
		v = -v
	}
	return v, true
}

// appendStreamID formats id for a reply.
func writeStreamID(c *Client, id store.StreamID) {
	var buf [41]byte
	c.w.Bulk(id.Append(buf[:0]))
}

// streamTrimOptions are XADD's and XTRIM's parsed options
// (streamAddTrimArgs).
type streamTrimOptions struct {
	store.TrimArgs
	id         store.StreamID
	idGiven    bool
	seqGiven   bool
	noMkStream bool
	argIdx     int // the MAXLEN/MINID value's position, for the AOF's rewrite
}

// parseAddTrim is streamParseAddOrTrimArgsOrReply; it returns the ID's
// position (XADD) or -1 after replying an error.
func parseAddTrim(c *Client, args [][]byte, xadd bool) (streamTrimOptions, int) {
	var o streamTrimOptions
	limitGiven := false
	i := 2
	for ; i < len(args); i++ {
		more := len(args) - 1 - i
		opt := args[i]
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
		case eqFold(opt, "maxlen") && more > 0, eqFold(opt, "minid") && more > 0:
			if o.Strategy != store.TrimNone {
				c.w.Error(errStreamTrimBoth)
				return o, -1
			}
			o.Approx = false
			next := args[i+1]
			if more >= 2 && len(next) == 1 && next[0] == '~' {
				o.Approx = true
				i++
			} else if more >= 2 && len(next) == 1 && next[0] == '=' {
				i++
			}
			if eqFold(opt, "maxlen") {
				n, ok := intArg(c, args[i+1])
				if !ok {
					return o, -1
				}
				if n < 0 {
					c.w.Error(errStreamMaxLen)
					return o, -1
				}
				o.MaxLen, o.Strategy = n, store.TrimMaxLen
			} else {
				id, ok := parseStreamID(c, args[i+1], 0, true, nil)
				if !ok {
					return o, -1
				}
				o.MinID, o.Strategy = id, store.TrimMinID
			}
			i++
			o.argIdx = i
			continue
		case eqFold(opt, "limit") && more > 0:
			n, ok := intArg(c, args[i+1])
			if !ok {
				return o, -1
			}
			if n < 0 {
				c.w.Error(errStreamLimit)
				return o, -1
			}
			o.Limit, limitGiven = n, true
			i++
			continue
		case xadd && eqFold(opt, "nomkstream"):
			o.noMkStream = true
			continue
		case xadd:
			id, ok := parseStreamID(c, opt, 0, true, &o.seqGiven)
			if !ok {
				return o, -1
			}
			o.id, o.idGiven = id, true
		default:
			c.w.Error(errSyntax)
			return o, -1
		}
		break
	}
	if o.Limit != 0 && o.Strategy == store.TrimNone {
		c.w.Error(errStreamLimitNoTrim)
		return o, -1
	}
	if !xadd && o.Strategy == store.TrimNone {
		c.w.Error(errStreamXTrimNoTrim)
		return o, -1
	}
	if c.obeysWrites() {
		o.Limit = 0 // the trim argument was rewritten to what the master did
	} else if limitGiven {
		if !o.Approx {
			c.w.Error(errStreamLimitNoApprox)
			return o, -1
		}
	} else if o.Approx {
		o.Limit = 100 * c.db.Encodings().StreamNodeMaxEntries
		if o.Limit <= 0 {
			o.Limit = 10000
		}
		o.Limit = min(o.Limit, 1000000)
	} else {
		o.Limit = 0
	}
	return o, i
}

// obeysWrites reports whether c runs commands it must apply as they come,
// Redis's mustObeyClient: the master's stream and the AOF's replay.
func (c *Client) obeysWrites() bool {
	return c.isMasterClient() || c.conn == nil && !c.inScript && c.srv.loading.active.Load()
}

// rewriteTrim logs an approximate trim as the exact one it turned out to
// be (streamRewriteApproxSpecifier and streamRewriteTrimArgument): "=" and
// the length left, or the first entry's ID.
func rewriteTrim(args [][]byte, s *store.Stream, o *streamTrimOptions) {
	args[o.argIdx-1] = []byte("=")
	if o.Strategy == store.TrimMaxLen {
		args[o.argIdx] = strconv.AppendUint(nil, s.Len(), 10)
	} else {
		args[o.argIdx] = s.EdgeID(true, false).Append(nil)
	}
}

// streamForWrite is streamTypeLookupWriteOrCreate: the stream at key,
// created (and stored) unless noCreate, which answers a null instead.
func streamForWrite(c *Client, key []byte, noCreate bool) *store.Stream {
	s, ok := valueAs[*store.Stream](c, key)
	if !ok || s != nil {
		return s
	}
	if noCreate {
		c.w.Null()
		return nil
	}
	s = store.NewStream()
	c.db.Set(key, s, 0)
	return s
}

func cmdXAdd(c *Client, args [][]byte) {
	o, idPos := parseAddTrim(c, args, true)
	if idPos < 0 {
		return
	}
	fieldPos := idPos + 1
	if n := len(args) - fieldPos; n < 2 || n%2 == 1 {
		c.wrongArity(c.cmd)
		return
	}
	if o.idGiven && o.seqGiven && o.id.IsZero() {
		c.w.Error(errStreamZeroID)
		return
	}
	s := streamForWrite(c, args[1], o.noMkStream)
	if s == nil {
		return
	}
	if s.LastID() == store.MaxStreamID {
		c.w.Error(errStreamExhausted)
		return
	}
	var id store.StreamID
	switch {
	case !o.idGiven:
		id, _ = s.NextID(uint64(c.srv.store.Now()))
	case o.seqGiven:
		id = o.id
	case s.LastID().Ms == o.id.Ms:
		if s.LastID().Seq == 1<<64-1 {
			// streamAppendItem fails without setting errno to EDOM, so
			// xaddCommand takes it for a size error.
			c.w.Error(errStreamTooLarge)
			return
		}
		id = store.StreamID{Ms: o.id.Ms, Seq: s.LastID().Seq + 1}
	default:
		id = o.id
	}
	if id.Compare(s.LastID()) <= 0 {
		c.w.Error(errStreamIDTooSmall)
		return
	}
	fv := args[fieldPos:]
	total := 0
	for _, b := range fv {
		total += len(b)
	}
	if total > store.StreamListpackMaxSize {
		c.w.Error(errStreamTooLarge)
		return
	}
	s.Append(id, fv, c.db.Encodings().StreamLimits())
	// In the client's scratch: on the stack it would escape through the
	// Writer interface, and the ID's text was a third of a fill's garbage.
	c.w.Bulk(id.Append(c.replyScratch[:0]))
	c.db.Modified(args[1])
	c.notify(notifyStream, "xadd", args[1])
	// The command is logged as it ran (the ID it gave, the exact trim) only
	// for an AOF or replicas: the copy of the arguments was most of an
	// XADD's garbage.
	propagating := c.srv.propagating()
	rewritten := false
	var logged [][]byte
	if o.Strategy != store.TrimNone {
		if s.Trim(o.TrimArgs) > 0 {
			c.notify(notifyStream, "xtrim", args[1])
		}
		if o.Approx && propagating {
			logged = append([][]byte(nil), args...)
			rewriteTrim(logged, s, &o)
			rewritten = true
		}
		c.db.Modified(args[1])
	}
	if propagating && (!o.idGiven || !o.seqGiven) {
		if !rewritten {
			logged = append([][]byte(nil), args...)
		}
		logged[idPos] = id.Append(nil)
		rewritten = true
	}
	if rewritten {
		c.logAs(logged...)
	}
	c.srv.keyReadyBytes(c.db, args[1])
}

// rangeArg parses an XRANGE bound: "(" makes it exclusive (then strict).
func rangeArg(c *Client, b []byte, missingSeq uint64) (id store.StreamID, exclusive, ok bool) {
	if len(b) > 1 && b[0] == '(' {
		id, ok = parseStreamID(c, b[1:], missingSeq, true, nil)
		return id, true, ok
	}
	id, ok = parseStreamID(c, b, missingSeq, false, nil)
	return id, false, ok
}

func cmdXRange(c *Client, args [][]byte)    { xrange(c, args, false) }
func cmdXRevRange(c *Client, args [][]byte) { xrange(c, args, true) }

// xrange is xrangeGenericCommand.
func xrange(c *Client, args [][]byte, rev bool) {
	startArg, endArg := args[2], args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, ex, ok := rangeArg(c, startArg, 0)
	if !ok {
		return
	}
	if ex {
		if start, ok = start.Incr(); !ok {
			c.w.Error(errStreamStartInterval)
			return
		}
	}
	end, ex, ok := rangeArg(c, endArg, 1<<64-1)
	if !ok {
		return
	}
	if ex {
		if end, ok = end.Decr(); !ok {
			c.w.Error(errStreamEndInterval)
			return
		}
	}
	count := int64(-1)
	for j := 4; j < len(args); j++ {
		if eqFold(args[j], "count") && j+1 < len(args) {
			n, ok := intArg(c, args[j+1])
			if !ok {
				return
			}
			count = max(n, 0)
			j++
			continue
		}
		c.w.Error(errSyntax)
		return
	}
	s := valueOrReply[*store.Stream](c, args[1], replyEmptyArray)
	if s == nil {
		return
	}
	if count == 0 {
		c.w.NullArray()
		return
	}
	writeStreamRange(c, s, start, end, max(count, 0), rev)
}

// writeStreamRange answers the entries from start to end (at most count,
// 0 for all) as an array of [id, [field, value, ...]], and returns how
// many.
func writeStreamRange(c *Client, s *store.Stream, start, end store.StreamID, count int64, rev bool) int {
	n := 0
	it := s.Iter(start, end, rev)
	for count == 0 || int64(n) < count {
		if _, ok := it.Next(); !ok {
			break
		}
		n++
	}
	c.w.Array(n)
	writeStreamEntries(c, s.Iter(start, end, rev), n)
	return n
}

// writeStreamEntries writes the next n entries of it.
func writeStreamEntries(c *Client, it *store.StreamIterator, n int) {
	var idBuf [41]byte // one for all entries: it escapes to c.w
	for range n {
		id, _ := it.Next()
		writeStreamEntryBuf(c, it, id, idBuf[:0])
	}
}

// writeStreamEntry writes the iterator's current entry as [id, [field,
// value, ...]].
func writeStreamEntry(c *Client, it *store.StreamIterator, id store.StreamID) {
	var idBuf [41]byte
	writeStreamEntryBuf(c, it, id, idBuf[:0])
}

// writeStreamEntryBuf is writeStreamEntry formatting the ID in buf, which a
// caller writing many entries allocates once (it escapes to c.w).
func writeStreamEntryBuf(c *Client, it *store.StreamIterator, id store.StreamID, buf []byte) {
	c.w.Array(2)
	c.w.Bulk(id.Append(buf))
	c.w.Array(2 * it.NumFields())
	it.EachField(func(f, v []byte) {
		c.w.Bulk(f)
		c.w.Bulk(v)
	})
}

func cmdXLen(c *Client, args [][]byte) {
	if s := valueOrReply[*store.Stream](c, args[1], replyZero); s != nil {
		c.w.Int(int64(s.Len()))
	}
}

// parseStreamIDs parses XDEL's and XACK's IDs, all of them before the
// command acts: an error must leave the stream as it was.
func parseStreamIDs(c *Client, args [][]byte) ([]store.StreamID, bool) {
	ids := make([]store.StreamID, 0, len(args))
	for _, a := range args {
		id, ok := parseStreamID(c, a, 0, true, nil)
		if !ok {
			return nil, false
		}
		ids = append(ids, id)
	}
	return ids, true
}

func cmdXDel(c *Client, args [][]byte) {
	s := valueOrReply[*store.Stream](c, args[1], replyZero)
	if s == nil {
		return
	}
	ids, ok := parseStreamIDs(c, args[2:])
	if !ok {
		return
	}
	deleted := s.DeleteIDs(ids)
	if deleted > 0 {
		c.db.ModifiedBy(args[1], int64(deleted))
		c.notify(notifyStream, "xdel", args[1])
	}
	c.w.Int(int64(deleted))
}

func cmdXTrim(c *Client, args [][]byte) {
	o, at := parseAddTrim(c, args, false)
	if at < 0 {
		return
	}
	s := valueOrReply[*store.Stream](c, args[1], replyZero)
	if s == nil {
		return
	}
	deleted := s.Trim(o.TrimArgs)
	if deleted > 0 {
		c.notify(notifyStream, "xtrim", args[1])
		if o.Approx {
			logged := append([][]byte(nil), args...)
			rewriteTrim(logged, s, &o)
			c.logAs(logged...)
		}
		c.db.ModifiedBy(args[1], deleted)
	}
	c.w.Int(deleted)
}

// xreadRequest is XREAD's (and XREADGROUP's) parsed arguments.
type xreadRequest struct {
	block    bool
	timeout  time.Duration
	count    int64
	keys     [][]byte
	ids      []store.StreamID
	group    []byte // XREADGROUP's GROUP group consumer, and NOACK
	consumer []byte
	noAck    bool
}

// parseXRead parses XREAD's or XREADGROUP's options and IDs as
// xreadCommand, up to resolving the groups: "$" is the stream's last ID
// (0-0 without a stream), ">" is the largest ID. It answers the error and
// returns false on bad input.
func parseXRead(c *Client, args [][]byte, group bool) (*xreadRequest, bool) {
	r := &xreadRequest{}
	streamsAt := 0
	for i := 1; i < len(args); i++ {
		more := len(args) - i - 1
		o := args[i]
		switch {
		case eqFold(o, "block") && more > 0:
			if c.inScript {
				c.errorf("ERR %s command is not allowed with BLOCK option from scripts", string(args[0]))
				return nil, false
			}
			i++
			ms, ok := number.ParseInt(args[i])
			if !ok {
				c.w.Error(errTimeoutInteger)
				return nil, false
			}
			if ms < 0 {
				c.w.Error(errTimeoutNegative)
				return nil, false
			}
			r.block, r.timeout = true, time.Duration(min(ms, int64(1<<63-1)/int64(time.Millisecond)))*time.Millisecond
		case eqFold(o, "count") && more > 0:
			i++
			n, ok := intArg(c, args[i])
			if !ok {
				return nil, false
			}
			r.count = max(n, 0)
		case eqFold(o, "streams") && more > 0:
			streamsAt = i + 1
			if (len(args)-streamsAt)%2 != 0 {
				c.w.Error(errXReadUnbalanced)
				return nil, false
			}
			i = len(args)
		case eqFold(o, "group") && more >= 2:
			if !group {
				c.w.Error(errXReadGroupOption)
				return nil, false
			}
			r.group, r.consumer = args[i+1], args[i+2]
			i += 2
		case eqFold(o, "noack"):
			if !group {
				c.w.Error(errXReadNoAckOption)
				return nil, false
			}
			r.noAck = true
		default:
			c.w.Error(errSyntax)
			return nil, false
		}
	}
	if streamsAt == 0 {
		c.w.Error(errSyntax)
		return nil, false
	}
	if group && r.group == nil {
		c.w.Error(errXReadGroupMissing)
		return nil, false
	}
	n := (len(args) - streamsAt) / 2
	r.keys = args[streamsAt : streamsAt+n]
	r.ids = make([]store.StreamID, n)
	return r, true
}

// resolveXReadID parses the i-th ID of an XREAD (not XREADGROUP) for the
// stream s (nil when missing).
func resolveXReadID(c *Client, r *xreadRequest, b []byte, s *store.Stream, i int) bool {
	switch {
	case len(b) == 1 && b[0] == '$':
		if s != nil {
			r.ids[i] = s.LastID()
		}
		return true
	case len(b) == 1 && b[0] == '>':
		c.w.Error(errXReadGT)
		return false
	}
	id, ok := parseStreamID(c, b, 0, true, nil)
	r.ids[i] = id
	return ok
}

func cmdXRead(c *Client, args [][]byte) {
	r, ok := parseXRead(c, args, false)
	if !ok {
		return
	}
	n := len(r.keys)
	idArgs := args[len(args)-n:]
	for i, key := range r.keys {
		s, ok := valueAs[*store.Stream](c, key)
		if !ok {
			return
		}
		if !resolveXReadID(c, r, idArgs[i], s, i) {
			return
		}
	}
	// Serve at once the streams that have an entry after their ID.
	var ready []int
	for i, key := range r.keys {
		s, _ := valueAs[*store.Stream](c, key)
		if s != nil && s.Len() > 0 && s.LastValidID().Compare(r.ids[i]) > 0 {
			ready = append(ready, i)
		}
	}
	if len(ready) > 0 {
		writeXReadReply(c, r.keys, ready, func(i int, s *store.Stream) {
			start, _ := r.ids[i].Incr()
			writeStreamRange(c, s, start, store.MaxStreamID, r.count, false)
		})
		return
	}
	if !r.block {
		c.w.NullArray()
		return
	}
	if !c.mayBlock() {
		c.w.NullArray()
		return
	}
	count := r.count
	if count == 0 {
		count = xreadBlockedDefaultCount
	}
	after := make(map[string]store.StreamID, n)
	for i, key := range r.keys {
		if _, dup := after[string(key)]; !dup { // a key named twice waits for its first ID
			after[string(key)] = r.ids[i]
		}
	}
	c.srv.block(c, r.keys, store.KindStream, r.timeout, func(c *Client, key []byte) {
		writeXReadReply(c, [][]byte{key}, []int{0}, func(_ int, s *store.Stream) {
			start, _ := after[string(key)].Incr()
			writeStreamRange(c, s, start, store.MaxStreamID, count, false)
		})
	})
	c.blockedOn.ready = func(v store.Value, key string) bool {
		return v.(*store.Stream).LastID().Compare(after[key]) > 0
	}
}

// writeXReadReply answers XREAD's and XREADGROUP's streams that ready
// indexes, each as [key, entries] (a map of them in RESP3), serve writing
// the entries.
func writeXReadReply(c *Client, keys [][]byte, ready []int, serve func(i int, s *store.Stream)) {
	if c.w.Proto() == 2 {
		c.w.Array(len(ready))
	} else {
		c.w.Map(len(ready))
	}
	for _, i := range ready {
		// The caller's lookup that found the key ready was Redis's one
		// lookupKeyRead of the serving loop: this one counts nothing.
		var s *store.Stream
		if e := c.db.GetWrite(keys[i]); e != nil {
			s, _ = e.Value().(*store.Stream)
		}
		if c.w.Proto() == 2 {
			c.w.Array(2)
		}
		c.w.Bulk(keys[i])
		serve(i, s)
	}
}

func cmdXSetID(c *Client, args [][]byte) {
	id, ok := parseStreamID(c, args[2], 0, true, nil)
	if !ok {
		return
	}
	entriesAdded := int64(-1)
	var maxDeleted store.StreamID
	for i := 3; i < len(args); i++ {
		more := len(args) - 1 - i
		switch {
		case eqFold(args[i], "entriesadded") && more > 0:
			n, ok := intArg(c, args[i+1])
			if !ok {
				return
			}
			if n < 0 {
				c.w.Error(errXSetIDEntriesAdded)
				return
			}
			entriesAdded = n
		case eqFold(args[i], "maxdeletedid") && more > 0:
			if maxDeleted, ok = parseStreamID(c, args[i+1], 0, true, nil); !ok {
				return
			}
			if id.Less(maxDeleted) {
				c.w.Error(errXSetIDMaxDeleted)
				return
			}
		default:
			c.w.Error(errSyntax)
			return
		}
		i++
	}
	s := valueOrReply[*store.Stream](c, args[1], replyNoKey)
	if s == nil {
		return
	}
	if s.Len() > 0 {
		if id.Less(s.LastValidID()) {
			c.w.Error(errXSetIDTooSmall)
			return
		}
		if entriesAdded != -1 && s.Len() > uint64(entriesAdded) {
			c.w.Error(errXSetIDEntriesSmall)
			return
		}
	}
	s.SetLastID(id)
	if entriesAdded != -1 {
		s.SetEntriesAdded(uint64(entriesAdded))
	}
	if !maxDeleted.IsZero() {
		s.SetMaxDeletedID(maxDeleted)
	}
	c.w.Status("OK")
	c.db.Modified(args[1])
	c.notify(notifyStream, "xsetid", args[1])
}

// cmdXInfoStream is XINFO STREAM key [FULL [COUNT count]].
func cmdXInfoStream(c *Client, args [][]byte) {
	s := valueOrReply[*store.Stream](c, args[2], replyNoKey)
	if s == nil {
		return
	}
	full, count := false, int64(10)
	if opts := args[3:]; len(opts) > 0 {
		if len(opts) != 1 && len(opts) != 3 || !eqFold(opts[0], "full") || len(opts) == 3 && !eqFold(opts[1], "count") {
			subcommandSyntaxError(c, args)
			return
		}
		full = true
		if len(opts) == 3 {
			n, ok := intArg(c, opts[2])
			if !ok {
				return
			}
			if n < 0 {
				n = 10
			}
			count = n
		}
	}
	if full {
		c.w.Map(9)
	} else {
		c.w.Map(10)
	}
	c.w.BulkString("length")
	c.w.Int(int64(s.Len()))
	c.w.BulkString("radix-tree-keys")
	c.w.Int(int64(s.NodeCount()))
	c.w.BulkString("radix-tree-nodes")
	c.w.Int(int64(s.RaxNodes()))
	c.w.BulkString("last-generated-id")
	writeStreamID(c, s.LastID())
	c.w.BulkString("max-deleted-entry-id")
	writeStreamID(c, s.MaxDeletedID())
	c.w.BulkString("entries-added")
	c.w.Int(int64(s.EntriesAdded()))
	c.w.BulkString("recorded-first-entry-id")
	writeStreamID(c, s.FirstID())
	if !full {
		c.w.BulkString("groups")
		c.w.Int(int64(len(s.Groups())))
		for _, rev := range []bool{false, true} {
			if rev {
				c.w.BulkString("last-entry")
			} else {
				c.w.BulkString("first-entry")
			}
			it := s.Iter(store.StreamID{}, store.MaxStreamID, rev)
			if _, ok := it.Next(); !ok {
				c.w.Null()
				continue
			}
			writeStreamEntries(c, s.Iter(store.StreamID{}, store.MaxStreamID, rev), 1)
		}
		return
	}
	c.w.BulkString("entries")
	writeStreamRange(c, s, store.StreamID{}, store.MaxStreamID, count, false)
	c.w.BulkString("groups")
	groups := s.Groups()
	c.w.Array(len(groups))
	for _, g := range groups {
		c.w.Map(7)
		c.w.BulkString("name")
		c.w.BulkString(g.Name)
		c.w.BulkString("last-delivered-id")
		writeStreamID(c, g.LastID)
		writeGroupCounters(c, s, g)
		c.w.BulkString("pel-count")
		c.w.Int(int64(g.PEL.Len()))
		c.w.BulkString("pending")
		n := g.PEL.Len()
		if count > 0 {
			n = min(n, int(count))
		}
		c.w.Array(n)
		left := n
		g.PEL.Each(func(nack *store.StreamNACK) bool {
			if left == 0 {
				return false
			}
			left--
			c.w.Array(4)
			writeStreamID(c, nack.ID)
			c.w.BulkString(nack.Consumer.Name)
			c.w.Int(nack.DeliveryTime)
			c.w.Int(int64(nack.DeliveryCount))
			return true
		})
		c.w.BulkString("consumers")
		consumers := g.Consumers()
		c.w.Array(len(consumers))
		for _, sc := range consumers {
			c.w.Map(4)
			c.w.BulkString("name")
			c.w.BulkString(sc.Name)
			c.w.BulkString("seen-time")
			c.w.Int(sc.SeenTime)
			c.w.BulkString("pel-count")
			c.w.Int(int64(sc.PEL.Len()))
			c.w.BulkString("pending")
			n := sc.PEL.Len()
			if count > 0 {
				n = min(n, int(count))
			}
			c.w.Array(n)
			left := n
			sc.PEL.Each(func(nack *store.StreamNACK) bool {
				if left == 0 {
					return false
				}
				left--
				c.w.Array(3)
				writeStreamID(c, nack.ID)
				c.w.Int(nack.DeliveryTime)
				c.w.Int(int64(nack.DeliveryCount))
				return true
			})
		}
	}
}
