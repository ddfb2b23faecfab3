package server

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

// Stream consumer groups: XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM,
// XAUTOCLAIM and XINFO GROUPS/CONSUMERS, as t_stream.c has them. The
// group model (PELs, NACKs, lag) is store/stream_cgroup.go's.
//
// Group state changes only add to the dirty counter (Dirtied), as in
// Redis, where none of these call signalModifiedKey: WATCH does not see
// an XREADGROUP or an XACK. XREADGROUP, XCLAIM and XAUTOCLAIM are
// propagated as what they did (streamPropagateXCLAIM and its kin): an
// XCLAIM ... FORCE JUSTID LASTID per pending entry they created, moved or
// dropped, XGROUP SETID for a last ID moved without one, and XGROUP
// CREATECONSUMER for a consumer NOACK created.
var streamGroupHandlers = map[string]Handler{
	"xgroup|create":         cmdXGroup,
	"xgroup|setid":          cmdXGroup,
	"xgroup|destroy":        cmdXGroup,
	"xgroup|createconsumer": cmdXGroup,
	"xgroup|delconsumer":    cmdXGroup,
	"xgroup|help":           helpHandler(xgroupHelp),
	"xreadgroup":            cmdXReadGroup,
	"xack":                  cmdXAck,
	"xpending":              cmdXPending,
	"xclaim":                cmdXClaim,
	"xautoclaim":            cmdXAutoClaim,
	"xinfo|groups":          cmdXInfoGroups,
	"xinfo|consumers":       cmdXInfoConsumers,
	"xinfo|help":            helpHandler(xinfoHelp),
}

var xgroupHelp = []string{
	"XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CREATE <key> <groupname> <id|$> [option]",
	"    Create a new consumer group. Options are:",
	"    * MKSTREAM",
	"      Create the empty stream if it does not exist.",
	"    * ENTRIESREAD entries_read",
	"      Set the group's entries_read counter (internal use).",
	"CREATECONSUMER <key> <groupname> <consumer>",
	"    Create a new consumer in the specified group.",
	"DELCONSUMER <key> <groupname> <consumer>",
	"    Remove the specified consumer.",
	"DESTROY <key> <groupname>",
	"    Remove the specified group.",
	"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
	"    Set the current group ID and entries_read counter.",
	"HELP",
	"    Prints this help.",
}

var xinfoHelp = []string{
	"XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CONSUMERS <key> <groupname>",
	"    Show consumers of <groupname>.",
	"GROUPS <key>",
	"    Show the stream consumer groups.",
	"STREAM <key> [FULL [COUNT <count>]",
	"    Show information about the stream.",
	"HELP",
	"    Prints this help.",
}

// Errors of the consumer-group commands, with Redis 7.0's text.
const (
	errXGroupNoKey        = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
	errXGroupEntriesRead  = "ERR value for ENTRIESREAD must be positive or -1"
	errBusyGroup          = "BUSYGROUP Consumer Group name already exists"
	errGroupGone          = "NOGROUP the consumer group this client was blocked on no longer exists"
	errXClaimMinIdle      = "ERR Invalid min-idle-time argument for XCLAIM"
	errXClaimIdle         = "ERR Invalid IDLE option argument for XCLAIM"
	errXClaimTime         = "ERR Invalid TIME option argument for XCLAIM"
	errXClaimRetryCount   = "ERR Invalid RETRYCOUNT option argument for XCLAIM"
	errXAutoClaimMinIdle  = "ERR Invalid min-idle-time argument for XAUTOCLAIM"
	errXAutoClaimCount    = "ERR COUNT must be > 0"
	errXAutoClaimMemory   = "ERR Insufficient memory, failed allocating transient memory, COUNT too high."
	errXReadGroupNoGroupF = "NOGROUP No such key '%s' or consumer group '%s' in XREADGROUP with GROUP option"
	errNoGroupKeyF        = "NOGROUP No such key '%s' or consumer group '%s'"
	errNoGroupForKeyF     = "NOGROUP No such consumer group '%s' for key name '%s'"
)

// XAUTOCLAIM's COUNT.
const (
	xautoclaimDefaultCount = 100
	xautoclaimAttempts     = 10               // attempts_factor: PEL entries looked at per COUNT
	xautoclaimMaxCount     = (1<<63 - 1) / 16 // LONG_MAX / max(sizeof(streamID), attempts_factor)
	// xautoclaimMaxAlloc is the largest COUNT whose buffer for the deleted
	// IDs (16 bytes each, allocated up front) Redis can map: x86-64's
	// 47-bit user address space (measured: 10^12 passes, 10^13 fails).
	// Nothing is allocated here, but a COUNT past it fails as Redis's
	// ztrymalloc does.
	xautoclaimMaxAlloc = 1 << 47 / 16
)

// groupError formats one of the NOGROUP texts with C's %s (each argument
// ends at a NUL) and addReplyErrorFormat's clean-up (no CR or LF).
func groupError(c *Client, format string, a, b []byte) {
	msg := fmt.Sprintf(format, truncate(a, len(a)), truncate(b, len(b)))
	c.w.Error(sanitizeError(strings.TrimRight(msg, "\r\n")))
}

// Command names and arguments of the propagated forms, as Redis's shared
// objects spell them.
var (
	cmdXCLAIM         = []byte("XCLAIM")
	cmdXGROUP         = []byte("XGROUP")
	argSETID          = []byte("SETID")
	argCREATECONSUMER = []byte("CREATECONSUMER")
	argENTRIESREAD    = []byte("ENTRIESREAD")
	argTIME           = []byte("TIME")
	argRETRYCOUNT     = []byte("RETRYCOUNT")
	argFORCE          = []byte("FORCE")
	argJUSTID         = []byte("JUSTID")
	argLASTID         = []byte("LASTID")
	argZero           = []byte("0")
)

// groupChange is what a group command did, for the counter, the memory
// accounting and the propagation: Redis's server.dirty and alsoPropagate.
type groupChange struct {
	c     *Client
	key   []byte
	group []byte
	dirty int64
	// holdCreation: consumer holds the new consumer's event (held) for
	// raiseHeld to raise where Redis does, inside the reply (XCLAIM,
	// XAUTOCLAIM).
	holdCreation, held bool
}

// logClaim propagates the state of the pending entry n as streamPropagateXCLAIM:
// an XCLAIM that recreates it, whoever holds it, with the group's last ID.
func (gc *groupChange) logClaim(g *store.StreamGroup, id []byte, n *store.StreamNACK) {
	if !gc.c.srv.propagating() {
		return // no AOF, no replica: the arguments would be built for nothing
	}
	gc.c.alsoLog(cmdXCLAIM, gc.key, gc.group, []byte(n.Consumer.Name), argZero, id,
		argTIME, strconv.AppendInt(nil, n.DeliveryTime, 10),
		argRETRYCOUNT, strconv.AppendUint(nil, n.DeliveryCount, 10),
		argFORCE, argJUSTID, argLASTID, g.LastID.Append(nil))
}

// logClaimID is logClaim of an ID the command did not spell, formatted
// only when something listens.
func (gc *groupChange) logClaimID(g *store.StreamGroup, id store.StreamID, n *store.StreamNACK) {
	if gc.c.srv.propagating() {
		gc.logClaim(g, id.Append(nil), n)
	}
}

// logGroupID propagates the group's last ID and entries_read, as
// streamPropagateGroupID.
func (gc *groupChange) logGroupID(g *store.StreamGroup) {
	if !gc.c.srv.propagating() {
		return // as logClaim
	}
	gc.c.alsoLog(cmdXGROUP, argSETID, gc.key, gc.group, g.LastID.Append(nil),
		argENTRIESREAD, strconv.AppendInt(nil, g.EntriesRead, 10))
}

// consumer is streamLookupConsumer (refreshing its seen time) or, for a
// new name, streamCreateConsumer: counted, notified, and, where asked
// (NOACK, which propagates no XCLAIM to create it), propagated.
func (gc *groupChange) consumer(g *store.StreamGroup, name []byte, logCreation bool) *store.StreamConsumer {
	now := gc.c.srv.store.Now()
	if sc := g.Consumer(string(name)); sc != nil {
		sc.SeenTime = now
		return sc
	}
	sc := g.CreateConsumer(string(name), now)
	gc.dirty++
	if gc.holdCreation {
		gc.held = true
	} else {
		gc.c.notify(notifyStream, "xgroup-createconsumer", gc.key)
	}
	if logCreation {
		gc.c.alsoLog(cmdXGROUP, argCREATECONSUMER, gc.key, gc.group, []byte(sc.Name))
	}
	return sc
}

// raiseHeld raises the event consumer held, if it held one. XCLAIM and
// XAUTOCLAIM create their consumer as they claim the first entry, after
// the claimed array's deferred header and before its first element, so a
// RESP3 client subscribed to its own events reads the push there.
func (gc *groupChange) raiseHeld() {
	if gc.held {
		gc.held = false
		gc.c.notify(notifyStream, "xgroup-createconsumer", gc.key)
	}
}

// done counts the changes and recharges the key's memory.
func (gc *groupChange) done() { gc.c.db.Dirtied(gc.key, gc.dirty) }

// cmdXGroup is xgroupCommand: the checks every subcommand shares (its
// options, the key, the group), in Redis's order, then the subcommand.
func cmdXGroup(c *Client, args [][]byte) {
	sub := args[1]
	create, setid := eqFold(sub, "create"), eqFold(sub, "setid")
	mkstream := false
	entriesRead := int64(store.StreamInvalidEntriesRead)
	for i := 5; i < len(args); {
		switch {
		case create && eqFold(args[i], "mkstream"):
			mkstream = true
			i++
		case (create || setid) && eqFold(args[i], "entriesread") && i+1 < len(args):
			n, ok := intArg(c, args[i+1])
			if !ok {
				return
			}
			if n < 0 && n != store.StreamInvalidEntriesRead {
				c.w.Error(errXGroupEntriesRead)
				return
			}
			entriesRead = n
			i += 2
		default:
			subcommandSyntaxError(c, args)
			return
		}
	}
	key, name := args[2], args[3]
	s, ok := valueAs[*store.Stream](c, key)
	if !ok {
		return
	}
	var g *store.StreamGroup
	if !mkstream {
		if s == nil {
			c.w.Error(errXGroupNoKey)
			return
		}
		if g = s.Group(string(name)); g == nil && !create && !eqFold(sub, "destroy") {
			groupError(c, errNoGroupForKeyF, name, key)
			return
		}
	}
	gc := &groupChange{c: c, key: key, group: name}
	switch {
	case create && len(args) <= 8:
		var id store.StreamID
		if len(args[4]) == 1 && args[4][0] == '$' {
			if s != nil {
				id = s.LastID()
			}
		} else if id, ok = parseStreamID(c, args[4], 0, true, nil); !ok {
			return
		}
		if s == nil {
			s = store.NewStream()
			c.db.Add(key, s)
			c.db.Modified(key)
			gc.dirty-- // Redis's dbAdd and signalModifiedKey count nothing
		}
		if s.CreateGroup(string(name), id, entriesRead) == nil {
			c.w.Error(errBusyGroup)
			gc.done()
			return
		}
		c.w.Status("OK")
		gc.dirty++
		c.notify(notifyStream, "xgroup-create", key)
	case setid && (len(args) == 5 || len(args) == 7):
		var id store.StreamID
		if len(args[4]) == 1 && args[4][0] == '$' {
			id = s.LastID()
		} else if id, ok = parseStreamID(c, args[4], 0, false, nil); !ok {
			return
		}
		g.LastID, g.EntriesRead = id, entriesRead
		c.w.Status("OK")
		gc.dirty++
		c.notify(notifyStream, "xgroup-setid", key)
	case eqFold(sub, "destroy"):
		if g == nil {
			c.w.Int(0)
			return
		}
		s.DestroyGroup(g.Name)
		c.w.Int(1)
		gc.dirty++
		c.notify(notifyStream, "xgroup-destroy", key)
		c.srv.keyReadyBytes(c.db, key) // its blocked readers fail with NOGROUP
	case eqFold(sub, "createconsumer"):
		if g.Consumer(string(args[4])) != nil {
			c.w.Int(0)
			return
		}
		gc.consumer(g, args[4], false)
		c.w.Int(1)
	case eqFold(sub, "delconsumer"):
		sc := g.Consumer(string(args[4]))
		if sc == nil {
			c.w.Int(0)
			return
		}
		c.w.Int(int64(g.DeleteConsumer(sc)))
		gc.dirty++
		c.notify(notifyStream, "xgroup-delconsumer", key)
	default:
		subcommandSyntaxError(c, args)
		return
	}
	gc.done()
}

// cmdXReadGroup is xreadCommand's XREADGROUP: every key and group must
// exist; ">" serves the entries after the group's last delivered ID (or
// blocks for them), another ID the consumer's own pending entries after
// it.
func cmdXReadGroup(c *Client, args [][]byte) {
	r, ok := parseXRead(c, args, true)
	if !ok {
		return
	}
	c.logNone() // propagated as what it did, never as it came
	n := len(r.keys)
	idArgs := args[len(args)-n:]
	groups := make([]*store.StreamGroup, n)
	for i, key := range r.keys {
		s, ok := valueAs[*store.Stream](c, key)
		if !ok {
			return
		}
		if s != nil {
			groups[i] = s.Group(string(r.group))
		}
		if groups[i] == nil {
			groupError(c, errXReadGroupNoGroupF, key, r.group)
			return
		}
		b := idArgs[i]
		switch {
		case len(b) == 1 && b[0] == '$':
			c.w.Error(errXReadGroupDollar)
			return
		case len(b) == 1 && b[0] == '>':
			// The largest ID stands for ">", as in Redis: naming it
			// reads new entries too.
			r.ids[i] = store.MaxStreamID
			continue
		}
		if r.ids[i], ok = parseStreamID(c, b, 0, true, nil); !ok {
			return
		}
	}
	// Serve at once what can be: a history, or new entries. Redis decides
	// key by key as it serves, so a key named twice with ">" is served
	// again only if the first serving (COUNT) left entries: served holds
	// where each group served so far has moved to.
	var ready []int
	var served []groupMove
	for i, key := range r.keys {
		s, _ := valueAs[*store.Stream](c, key)
		if r.ids[i] != store.MaxStreamID {
			ready = append(ready, i)
			continue
		}
		last := groups[i].LastID
		for _, m := range served {
			if m.g == groups[i] {
				last = m.last
			}
		}
		if s.Len() > 0 && s.LastValidID().Compare(last) > 0 {
			ready = append(ready, i)
			if n > 1 {
				served = append(served, groupMove{groups[i], lastServed(s, last, r.count)})
			}
		}
	}
	if len(ready) > 0 {
		writeXReadReply(c, r.keys, ready, func(i int, s *store.Stream) {
			gc := &groupChange{c: c, key: r.keys[i], group: r.group, dirty: 1}
			g := groups[i]
			sc := gc.consumer(g, r.consumer, r.noAck)
			if r.ids[i] != store.MaxStreamID {
				start, _ := r.ids[i].Incr()
				writeConsumerHistory(c, s, sc, start, r.count)
			} else {
				gc.deliverNew(s, g, sc, r.count, r.noAck)
			}
			gc.done()
		})
		return
	}
	if !r.block || !c.mayBlock() {
		c.w.NullArray()
		return
	}
	count := r.count
	if count == 0 {
		count = xreadBlockedDefaultCount
	}
	// The request's buffer is reused once the command is over.
	group, consumer, noAck := []byte(string(r.group)), []byte(string(r.consumer)), r.noAck
	c.srv.block(c, r.keys, store.KindStream, r.timeout, func(c *Client, key []byte) {
		s, _ := valueAs[*store.Stream](c, key)
		g := s.Group(string(group))
		if g == nil {
			c.w.Error(errGroupGone)
			return
		}
		writeXReadReply(c, [][]byte{key}, []int{0}, func(_ int, s *store.Stream) {
			gc := &groupChange{c: c, key: key, group: group}
			sc := gc.consumer(g, consumer, noAck)
			gc.deliverNew(s, g, sc, count, noAck)
			gc.done()
		})
	})
	c.blockedOn.groupRead = true
	c.blockedOn.ready = func(v store.Value, key string) bool {
		s := v.(*store.Stream)
		g := s.Group(string(group))
		return g == nil || s.LastID().Compare(g.LastID) > 0
	}
}

// groupMove is where serving new entries moves a group's last ID.
type groupMove struct {
	g    *store.StreamGroup
	last store.StreamID
}

// lastServed is the last of the (at most count, 0 for all) entries after
// last that deliverNew would serve.
func lastServed(s *store.Stream, last store.StreamID, count int64) store.StreamID {
	start, _ := last.Incr()
	it := s.Iter(start, store.MaxStreamID, false)
	for n := int64(0); count == 0 || n < count; n++ {
		id, ok := it.Next()
		if !ok {
			break
		}
		last = id
	}
	return last
}

// deliverNew answers the entries after the group's last delivered ID (at
// most count, 0 for all) and delivers them to sc, as streamReplyWithRange
// with a group: the group's last ID and entries_read move along, and,
// unless noAck, each entry becomes pending for sc.
func (gc *groupChange) deliverNew(s *store.Stream, g *store.StreamGroup, sc *store.StreamConsumer, count int64, noAck bool) {
	c := gc.c
	start, _ := g.LastID.Incr()
	counter := s.Iter(start, store.MaxStreamID, false)
	// A copy of the sought iterator serves the entries: seeking again
	// walked the node's listpack from its start a second time.
	it := *counter
	n := 0
	for ; count == 0 || int64(n) < count; n++ {
		if _, ok := counter.Next(); !ok {
			break
		}
	}
	c.w.Array(n)
	now := c.srv.store.Now()
	movedID := false
	for range n {
		id, _ := it.Next()
		if id.Compare(g.LastID) > 0 {
			s.Delivered(g, id)
			movedID = true
		}
		writeStreamEntry(c, &it, id)
		if !noAck {
			nack := g.Deliver(id, sc, now)
			gc.logClaimID(g, id, nack)
		}
	}
	if noAck && movedID {
		gc.logGroupID(g)
	}
}

// writeEntryByID writes the live entry id and reports whether there is
// one.
func writeEntryByID(c *Client, s *store.Stream, id store.StreamID) bool {
	it := s.Iter(id, id, false)
	if _, ok := it.Next(); !ok {
		return false
	}
	writeStreamEntry(c, it, id)
	return true
}

// writeConsumerHistory answers sc's pending entries from start on (at
// most count, 0 for all), as streamReplyWithRangeFromConsumerPEL: each
// one delivered again, or, for an entry deleted since, its ID with a
// null.
func writeConsumerHistory(c *Client, s *store.Stream, sc *store.StreamConsumer, start store.StreamID, count int64) {
	var pending []*store.StreamNACK
	sc.PEL.Ascend(start, func(n *store.StreamNACK) bool {
		pending = append(pending, n)
		return count == 0 || int64(len(pending)) < count
	})
	c.w.Array(len(pending))
	now := c.srv.store.Now()
	for _, n := range pending {
		if writeEntryByID(c, s, n.ID) {
			n.DeliveryTime = now
			n.DeliveryCount++
			continue
		}
		c.w.Array(2)
		writeStreamID(c, n.ID)
		c.w.NullArray()
	}
}

// groupOf is the stream and group a command names: a missing key or
// group is a zero and a nil (answered by the caller), another type
// WRONGTYPE (ok false).
func groupOf(c *Client, key, name []byte) (*store.Stream, *store.StreamGroup, bool) {
	s, ok := valueAs[*store.Stream](c, key)
	if !ok || s == nil {
		return nil, nil, ok
	}
	return s, s.Group(string(name)), true
}

// groupOrReply is groupOf answering NOGROUP for a missing key or group
// (then the group is nil).
func groupOrReply(c *Client, key, name []byte) (*store.Stream, *store.StreamGroup) {
	s, g, ok := groupOf(c, key, name)
	if ok && g == nil {
		groupError(c, errNoGroupKeyF, key, name)
	}
	return s, g
}

func cmdXAck(c *Client, args [][]byte) {
	_, g, ok := groupOf(c, args[1], args[2])
	if !ok {
		return
	}
	if g == nil {
		c.w.Int(0)
		return
	}
	ids, ok := parseStreamIDs(c, args[3:])
	if !ok {
		return
	}
	gc := &groupChange{c: c, key: args[1], group: args[2]}
	for _, id := range ids {
		if g.Ack(id) {
			gc.dirty++
		}
	}
	c.w.Int(gc.dirty)
	gc.done()
}

// intervalArg parses an XPENDING or XAUTOCLAIM bound as
// streamParseIntervalIDOrReply and moves an exclusive one inwards,
// answering the error when there is no ID on that side.
func intervalArg(c *Client, b []byte, end bool) (store.StreamID, bool) {
	missingSeq, errText := uint64(0), errStreamStartInterval
	if end {
		missingSeq, errText = 1<<64-1, errStreamEndInterval
	}
	id, ex, ok := rangeArg(c, b, missingSeq)
	if !ok || !ex {
		return id, ok
	}
	if end {
		id, ok = id.Decr()
	} else {
		id, ok = id.Incr()
	}
	if !ok {
		c.w.Error(errText)
	}
	return id, ok
}

// cmdXPending is XPENDING key group [[IDLE min-idle] start end count
// [consumer]].
func cmdXPending(c *Client, args [][]byte) {
	if len(args) != 3 && (len(args) < 6 || len(args) > 9) {
		c.w.Error(errSyntax)
		return
	}
	var start, end store.StreamID
	var count, minIdle int64
	var consumer []byte
	if len(args) >= 6 {
		at := 3
		if eqFold(args[3], "idle") {
			var ok bool
			if minIdle, ok = intArg(c, args[4]); !ok {
				return
			}
			if len(args) < 8 {
				c.w.Error(errSyntax)
				return
			}
			at = 5
		}
		var ok bool
		if count, ok = intArg(c, args[at+2]); !ok {
			return
		}
		count = max(count, 0)
		if start, ok = intervalArg(c, args[at], false); !ok {
			return
		}
		if end, ok = intervalArg(c, args[at+1], true); !ok {
			return
		}
		if at+3 < len(args) {
			consumer = args[at+3]
		}
	}
	_, g := groupOrReply(c, args[1], args[2])
	if g == nil {
		return
	}
	if len(args) == 3 {
		c.w.Array(4)
		c.w.Int(int64(g.PEL.Len()))
		if g.PEL.Len() == 0 {
			c.w.Null()
			c.w.Null()
			c.w.NullArray()
			return
		}
		writeStreamID(c, g.PEL.First().ID)
		writeStreamID(c, g.PEL.Last().ID)
		n := 0
		for _, sc := range g.Consumers() {
			if sc.PEL.Len() > 0 {
				n++
			}
		}
		c.w.Array(n)
		var count []byte // one buffer for every consumer's count
		for _, sc := range g.Consumers() {
			if sc.PEL.Len() > 0 {
				c.w.Array(2)
				c.w.BulkString(sc.Name)
				count = strconv.AppendInt(count[:0], int64(sc.PEL.Len()), 10)
				c.w.Bulk(count)
			}
		}
		return
	}
	pel := &g.PEL
	if consumer != nil {
		sc := g.Consumer(string(consumer))
		if sc == nil {
			c.w.Array(0)
			return
		}
		pel = &sc.PEL
	}
	now := c.srv.store.Now()
	var found []*store.StreamNACK
	if count > 0 {
		pel.Ascend(start, func(n *store.StreamNACK) bool {
			if n.ID.Compare(end) > 0 {
				return false
			}
			if minIdle == 0 || now-n.DeliveryTime >= minIdle {
				found = append(found, n)
			}
			return int64(len(found)) < count
		})
	}
	c.w.Array(len(found))
	for _, n := range found {
		c.w.Array(4)
		writeStreamID(c, n.ID)
		c.w.BulkString(n.Consumer.Name)
		c.w.Int(max(now-n.DeliveryTime, 0))
		c.w.Int(int64(n.DeliveryCount))
	}
}

// cmdXClaim is XCLAIM key group consumer min-idle-time id [id ...] [IDLE
// ms] [TIME unix-ms] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID id].
func cmdXClaim(c *Client, args [][]byte) {
	s, g := groupOrReply(c, args[1], args[2])
	if g == nil {
		return
	}
	minIdle, ok := intArgOr(c, args[4], errXClaimMinIdle)
	if !ok {
		return
	}
	minIdle = max(minIdle, 0)
	// The IDs run up to the first argument that is none; the options
	// follow.
	j := 5
	var ids []store.StreamID
	for ; j < len(args); j++ {
		id, ok := streamIDFrom(args[j], 0, true, nil)
		if !ok {
			break
		}
		ids = append(ids, id)
	}
	idArgs := args[5:j]
	now := c.srv.store.Now()
	retryCount, deliveryTime := int64(-1), int64(-1)
	force, justID := false, false
	var lastID store.StreamID
	for ; j < len(args); j++ {
		more := len(args) - 1 - j
		opt := args[j]
		switch {
		case eqFold(opt, "force"):
			force = true
		case eqFold(opt, "justid"):
			justID = true
		case eqFold(opt, "idle") && more > 0:
			j++
			idle, ok := intArgOr(c, args[j], errXClaimIdle)
			if !ok {
				return
			}
			deliveryTime = now - idle
		case eqFold(opt, "time") && more > 0:
			j++
			if deliveryTime, ok = intArgOr(c, args[j], errXClaimTime); !ok {
				return
			}
		case eqFold(opt, "retrycount") && more > 0:
			j++
			if retryCount, ok = intArgOr(c, args[j], errXClaimRetryCount); !ok {
				return
			}
		case eqFold(opt, "lastid") && more > 0:
			j++
			if lastID, ok = parseStreamID(c, args[j], 0, true, nil); !ok {
				return
			}
		default:
			c.w.Error(sanitizeError(strings.TrimRight("ERR Unrecognized XCLAIM option '"+truncate(opt, len(opt))+"'", "\r\n")))
			return
		}
	}
	c.logNone() // propagated as what it did
	gc := &groupChange{c: c, key: args[1], group: args[2], holdCreation: true}
	logLastID := false
	if lastID.Compare(g.LastID) > 0 {
		g.LastID = lastID
		logLastID = true
	}
	// A time that is bogus (negative, in the future) is now: a client's
	// clock may be a little ahead.
	if deliveryTime < 0 || deliveryTime > now {
		deliveryTime = now
	}
	var sc *store.StreamConsumer
	var claimed []store.StreamID
	for i, id := range ids {
		nack := g.PEL.Get(id)
		if !s.Exists(id) {
			if nack != nil { // pending, but deleted since: drop it
				gc.logClaim(g, idArgs[i], nack)
				logLastID = false
				gc.dirty++
				g.Ack(id)
			}
			continue
		}
		if force && nack == nil {
			nack = g.Force(id, now)
		}
		if nack == nil {
			continue
		}
		// A NACK FORCE just made has no consumer, and no idle time to
		// check.
		if nack.Consumer != nil && minIdle > 0 && now-nack.DeliveryTime < minIdle {
			continue
		}
		if sc == nil {
			sc = gc.consumer(g, args[3], false)
		}
		g.Claim(nack, sc)
		nack.DeliveryTime = deliveryTime
		if retryCount >= 0 {
			nack.DeliveryCount = uint64(retryCount)
		} else if !justID {
			nack.DeliveryCount++
		}
		claimed = append(claimed, id)
		gc.logClaim(g, idArgs[i], nack)
		logLastID = false
		gc.dirty++
	}
	if logLastID {
		gc.logGroupID(g)
		gc.dirty++
	}
	writeClaimed(gc, s, claimed, justID)
	gc.done()
}

// writeClaimed answers the entries XCLAIM or XAUTOCLAIM claimed, or
// with JUSTID their IDs, raising the event of the consumer they created
// after the array's header.
func writeClaimed(gc *groupChange, s *store.Stream, ids []store.StreamID, justID bool) {
	c := gc.c
	c.w.Array(len(ids))
	gc.raiseHeld()
	for _, id := range ids {
		if justID {
			writeStreamID(c, id)
		} else {
			writeEntryByID(c, s, id)
		}
	}
}

// intArgOr is intArg with the command's own error text.
func intArgOr(c *Client, b []byte, errText string) (int64, bool) {
	n, ok := number.ParseInt(b)
	if !ok {
		c.w.Error(errText)
	}
	return n, ok
}

// cmdXAutoClaim is XAUTOCLAIM key group consumer min-idle-time start
// [COUNT count] [JUSTID]: it claims the idle pending entries from start
// on, looking at no more than ten times COUNT of them, drops those whose
// entry is gone (the reply's third element), and answers the cursor to go
// on from.
func cmdXAutoClaim(c *Client, args [][]byte) {
	minIdle, ok := intArgOr(c, args[4], errXAutoClaimMinIdle)
	if !ok {
		return
	}
	minIdle = max(minIdle, 0)
	start, ok := intervalArg(c, args[5], false)
	if !ok {
		return
	}
	count, justID := int64(xautoclaimDefaultCount), false
	for j := 6; j < len(args); j++ {
		switch {
		case eqFold(args[j], "count") && j+1 < len(args):
			n, ok := number.ParseInt(args[j+1])
			if !ok || n < 1 || n > xautoclaimMaxCount {
				c.w.Error(errXAutoClaimCount)
				return
			}
			count = n
			j++
		case eqFold(args[j], "justid"):
			justID = true
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	s, g := groupOrReply(c, args[1], args[2])
	if g == nil {
		return
	}
	if count > xautoclaimMaxAlloc {
		c.w.Error(errXAutoClaimMemory)
		return
	}
	c.logNone() // propagated as what it did
	gc := &groupChange{c: c, key: args[1], group: args[2], holdCreation: true}
	now := c.srv.store.Now()
	attempts := count * xautoclaimAttempts
	var sc *store.StreamConsumer
	var claimed, deleted []store.StreamID
	from, eof := start, false
	for attempts > 0 && count > 0 {
		attempts--
		nack := g.PEL.Seek(from)
		if nack == nil {
			eof = true
			break
		}
		id := nack.ID
		if from, ok = id.Incr(); !ok {
			eof = true // the last possible ID: nothing can follow
		}
		switch {
		case !s.Exists(id):
			gc.logClaimID(g, id, nack)
			gc.dirty++
			g.Ack(id)
			deleted = append(deleted, id)
			count--
		case minIdle > 0 && now-nack.DeliveryTime < minIdle:
		default:
			if sc == nil {
				sc = gc.consumer(g, args[3], false)
			}
			g.Claim(nack, sc)
			nack.DeliveryTime = now
			if !justID {
				nack.DeliveryCount++
			}
			claimed = append(claimed, id)
			count--
			gc.logClaimID(g, id, nack)
			gc.dirty++
		}
		if eof {
			break
		}
	}
	var cursor store.StreamID
	if !eof {
		if next := g.PEL.Seek(from); next != nil {
			cursor = next.ID
		}
	}
	c.w.Array(3)
	writeStreamID(c, cursor)
	writeClaimed(gc, s, claimed, justID)
	c.w.Array(len(deleted))
	for _, id := range deleted {
		writeStreamID(c, id)
	}
	gc.done()
}

// cmdXInfoGroups is XINFO GROUPS key.
func cmdXInfoGroups(c *Client, args [][]byte) {
	s := valueOrReply[*store.Stream](c, args[2], replyNoKey)
	if s == nil {
		return
	}
	c.w.Array(len(s.Groups()))
	for _, g := range s.Groups() {
		c.w.Map(6)
		c.w.BulkString("name")
		c.w.BulkString(g.Name)
		c.w.BulkString("consumers")
		c.w.Int(int64(len(g.Consumers())))
		c.w.BulkString("pending")
		c.w.Int(int64(g.PEL.Len()))
		c.w.BulkString("last-delivered-id")
		writeStreamID(c, g.LastID)
		writeGroupCounters(c, s, g)
	}
}

// writeGroupCounters writes a group's entries-read and lag fields, null
// when not known.
func writeGroupCounters(c *Client, s *store.Stream, g *store.StreamGroup) {
	c.w.BulkString("entries-read")
	if g.EntriesRead != store.StreamInvalidEntriesRead {
		c.w.Int(g.EntriesRead)
	} else {
		c.w.Null()
	}
	c.w.BulkString("lag")
	if lag, ok := s.Lag(g); ok {
		c.w.Int(lag)
	} else {
		c.w.Null()
	}
}

// cmdXInfoConsumers is XINFO CONSUMERS key group.
func cmdXInfoConsumers(c *Client, args [][]byte) {
	s := valueOrReply[*store.Stream](c, args[2], replyNoKey)
	if s == nil {
		return
	}
	g := s.Group(string(args[3]))
	if g == nil {
		groupError(c, errNoGroupForKeyF, args[3], args[2])
		return
	}
	now := c.srv.store.Now()
	c.w.Array(len(g.Consumers()))
	for _, sc := range g.Consumers() {
		c.w.Map(3)
		c.w.BulkString("name")
		c.w.BulkString(sc.Name)
		c.w.BulkString("pending")
		c.w.Int(int64(sc.PEL.Len()))
		c.w.BulkString("idle")
		c.w.Int(max(now-sc.SeenTime, 0))
	}
}
