package server

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"

	"github.com/floodgate/floodgate/internal/transport"
	"github.com/floodgate/floodgate/store"
)

// The pub/sub registry, Redis's server.pubsub_channels, pubsub_patterns
// and pubsubshard_channels with each client's own sets (src/pubsub.c).
// Everything here is guarded by the execution lock, as in Redis every
// subscription and every PUBLISH runs on the one thread.
//
// A message goes into another connection's output as that connection's
// transport is the only one touching its buffers: the publisher appends
// the frame to the subscriber's inbox (conn.push, under wakeMu) and has
// the transport woken as for a blocked client's reply (transport.woke);
// the transport moves the inbox to the reply list (conn.TakePushes) when
// woken and when the subscriber's next batch takes the lock, so a message
// published before a command of the subscriber's is written before that
// command's reply, as in Redis. A message for the connection whose batch
// is running (a RESP3 subscriber publishing to itself, from a script or
// inside MULTI) goes straight into its replies, where Redis puts it.
//
// Orders where Redis iterates a dict (the channels UNSUBSCRIBE with no
// arguments leaves, the patterns a message matches) are insertion orders
// here: Redis's own orders depend on its hash seed.
type pubsubRegistry struct {
	channels map[string]*subscriberList
	shard    map[string]*subscriberList
	patterns map[string]*subscriberList
	// patternList is the patterns in the order they were first subscribed.
	patternList []string
	// clients is the number of clients subscribed to anything, read by the
	// clients cron outside the lock.
	clients atomic.Int64
}

// subscriberList is the clients of one channel or pattern, in the order
// they subscribed (Redis's list).
type subscriberList struct {
	clients []*Client
}

func (l *subscriberList) remove(c *Client) {
	for i, x := range l.clients {
		if x == c {
			l.clients = append(l.clients[:i], l.clients[i+1:]...)
			return
		}
	}
}

// clientSubs is one client's subscriptions. A client has one from its
// first subscription on and keeps it (emptied) until it is gone, so its
// transport may read the pointer without the lock.
type clientSubs struct {
	channels, patterns, shard orderedSet
	// total is the subscriptions of all three kinds: nonzero is Redis's
	// CLIENT_PUBSUB flag. Read outside the lock by the output limits.
	total atomic.Int64
}

// orderedSet is a set of names that remembers the order they came in.
type orderedSet struct {
	has  map[string]struct{}
	list []string
}

func (o *orderedSet) add(name string) bool {
	if _, ok := o.has[name]; ok {
		return false
	}
	if o.has == nil {
		o.has = map[string]struct{}{}
	}
	o.has[name] = struct{}{}
	o.list = append(o.list, name)
	return true
}

func (o *orderedSet) remove(name string) bool {
	if _, ok := o.has[name]; !ok {
		return false
	}
	delete(o.has, name)
	for i, x := range o.list {
		if x == name {
			o.list = append(o.list[:i], o.list[i+1:]...)
			break
		}
	}
	return true
}

func (o *orderedSet) len() int { return len(o.list) }

// subscribed reports whether the client is subscribed to anything (Redis's
// CLIENT_PUBSUB). Call it with the lock held or on the client's own batch.
func (c *Client) subscribed() bool { return c.pubsub != nil && c.pubsub.total.Load() > 0 }

// subs returns the client's subscriptions, creating them.
func (c *Client) subs() *clientSubs {
	if c.pubsub == nil {
		c.pubsub = &clientSubs{}
	}
	return c.pubsub
}

// pubsubKind is one of Redis's two pubsubtypes: global channels (with
// patterns beside them) or shard channels.
type pubsubKind struct {
	shard                bool
	subscribe, unsub     string
	message              string
	clientSet            func(*clientSubs) *orderedSet
	registry             func(*pubsubRegistry) *map[string]*subscriberList
	count                func(*clientSubs) int64 // the count in (un)subscribe replies
	allowedInDenyBlocked bool
}

var (
	globalChannels = &pubsubKind{
		subscribe: "subscribe", unsub: "unsubscribe", message: "message",
		clientSet: func(cs *clientSubs) *orderedSet { return &cs.channels },
		registry:  func(r *pubsubRegistry) *map[string]*subscriberList { return &r.channels },
		count:     func(cs *clientSubs) int64 { return int64(cs.channels.len() + cs.patterns.len()) },
	}
	shardChannels = &pubsubKind{
		shard:     true,
		subscribe: "ssubscribe", unsub: "sunsubscribe", message: "smessage",
		clientSet: func(cs *clientSubs) *orderedSet { return &cs.shard },
		registry:  func(r *pubsubRegistry) *map[string]*subscriberList { return &r.shard },
		count:     func(cs *clientSubs) int64 { return int64(cs.shard.len()) },
	}
)

// noteTotal recomputes the client's subscription count after a change and
// keeps the registry's count of subscribed clients.
func (s *Server) noteTotal(cs *clientSubs) {
	before := cs.total.Load()
	now := int64(cs.channels.len() + cs.patterns.len() + cs.shard.len())
	cs.total.Store(now)
	switch {
	case before == 0 && now > 0:
		s.pubsub.clients.Add(1)
	case before > 0 && now == 0:
		s.pubsub.clients.Add(-1)
	}
}

// subscribeChannel is pubsubSubscribeChannel: the subscription, then its
// notification.
func (s *Server) subscribeChannel(c *Client, name []byte, k *pubsubKind) {
	cs := c.subs()
	ch := string(name)
	if c.conn != nil && k.clientSet(cs).add(ch) {
		reg := k.registry(&s.pubsub)
		if *reg == nil {
			*reg = map[string]*subscriberList{}
		}
		l := (*reg)[ch]
		if l == nil {
			l = &subscriberList{}
			(*reg)[ch] = l
		}
		l.clients = append(l.clients, c)
		s.noteTotal(cs)
	}
	c.pushReply(k.subscribe, name, false, k.count(cs))
}

// unsubscribeChannel is pubsubUnsubscribeChannel.
func (s *Server) unsubscribeChannel(c *Client, ch string, notify bool, k *pubsubKind) bool {
	cs := c.subs()
	removed := k.clientSet(cs).remove(ch)
	if removed {
		reg := *k.registry(&s.pubsub)
		if l := reg[ch]; l != nil {
			l.remove(c)
			if len(l.clients) == 0 {
				delete(reg, ch)
			}
		}
		s.noteTotal(cs)
	}
	if notify {
		c.pushReply(k.unsub, []byte(ch), false, k.count(cs))
	}
	return removed
}

// unsubscribeAllChannels is pubsubUnsubscribeAllChannelsInternal.
func (s *Server) unsubscribeAllChannels(c *Client, notify bool, k *pubsubKind) {
	cs := c.subs()
	names := append([]string(nil), k.clientSet(cs).list...)
	for _, ch := range names {
		s.unsubscribeChannel(c, ch, notify, k)
	}
	if notify && len(names) == 0 {
		c.pushReply(k.unsub, nil, true, k.count(cs))
	}
}

// subscribePattern is pubsubSubscribePattern.
func (s *Server) subscribePattern(c *Client, pattern []byte) {
	cs := c.subs()
	p := string(pattern)
	if c.conn != nil && cs.patterns.add(p) {
		if s.pubsub.patterns == nil {
			s.pubsub.patterns = map[string]*subscriberList{}
		}
		l := s.pubsub.patterns[p]
		if l == nil {
			l = &subscriberList{}
			s.pubsub.patterns[p] = l
			s.pubsub.patternList = append(s.pubsub.patternList, p)
		}
		l.clients = append(l.clients, c)
		s.noteTotal(cs)
	}
	c.pushReply("psubscribe", pattern, false, globalChannels.count(cs))
}

// unsubscribePattern is pubsubUnsubscribePattern.
func (s *Server) unsubscribePattern(c *Client, p string, notify bool) {
	cs := c.subs()
	if cs.patterns.remove(p) {
		if l := s.pubsub.patterns[p]; l != nil {
			l.remove(c)
			if len(l.clients) == 0 {
				delete(s.pubsub.patterns, p)
				for i, x := range s.pubsub.patternList {
					if x == p {
						s.pubsub.patternList = append(s.pubsub.patternList[:i], s.pubsub.patternList[i+1:]...)
						break
					}
				}
			}
		}
		s.noteTotal(cs)
	}
	if notify {
		c.pushReply("punsubscribe", []byte(p), false, globalChannels.count(cs))
	}
}

// unsubscribeAllPatterns is pubsubUnsubscribeAllPatterns.
func (s *Server) unsubscribeAllPatterns(c *Client, notify bool) {
	cs := c.subs()
	names := append([]string(nil), cs.patterns.list...)
	for _, p := range names {
		s.unsubscribePattern(c, p, notify)
	}
	if notify && len(names) == 0 {
		c.pushReply("punsubscribe", nil, true, globalChannels.count(cs))
	}
}

// dropSubscriptions ends every subscription of a client that is reset or
// gone, without a word (clearClientConnectionState, freeClient).
func (s *Server) dropSubscriptions(c *Client) {
	if c.pubsub == nil || c.pubsub.total.Load() == 0 {
		return
	}
	s.unsubscribeAllChannels(c, false, globalChannels)
	s.unsubscribeAllChannels(c, false, shardChannels)
	s.unsubscribeAllPatterns(c, false)
}

// publish is pubsubPublishMessageInternal: the message goes to the
// channel's subscribers, then (global channels only) to the subscribers of
// each matching pattern; it returns the number of deliveries.
func (s *Server) publish(channel, message []byte, k *pubsubKind) int64 {
	var receivers int64
	var over []*Client
	reg := *k.registry(&s.pubsub)
	if l := reg[string(channel)]; l != nil && len(l.clients) > 0 {
		var f frames
		for _, sub := range l.clients {
			frame := f.get(sub.protocol(), func(dst []byte, proto int) []byte {
				dst = appendPushHeader(dst, proto, 3)
				dst = redcon.AppendBulkString(dst, k.message)
				dst = redcon.AppendBulk(dst, channel)
				return redcon.AppendBulk(dst, message)
			})
			if !s.deliver(sub, frame) {
				over = append(over, sub)
			}
			receivers++
		}
	}
	if !k.shard && len(s.pubsub.patternList) > 0 {
		for _, p := range s.pubsub.patternList {
			l := s.pubsub.patterns[p]
			if l == nil || !store.Match([]byte(p), channel, false) {
				continue
			}
			var f frames
			for _, sub := range l.clients {
				frame := f.get(sub.protocol(), func(dst []byte, proto int) []byte {
					dst = appendPushHeader(dst, proto, 4)
					dst = redcon.AppendBulkString(dst, "pmessage")
					dst = redcon.AppendBulkString(dst, p)
					dst = redcon.AppendBulk(dst, channel)
					return redcon.AppendBulk(dst, message)
				})
				if !s.deliver(sub, frame) {
					over = append(over, sub)
				}
				receivers++
			}
		}
	}
	for _, c := range over {
		s.closeOverLimit(c)
	}
	return receivers
}

// frames builds a message's frame once per protocol.
type frames struct{ resp2, resp3 []byte }

func (f *frames) get(proto int, build func(dst []byte, proto int) []byte) []byte {
	if proto == 3 {
		if f.resp3 == nil {
			f.resp3 = build(nil, 3)
		}
		return f.resp3
	}
	if f.resp2 == nil {
		f.resp2 = build(nil, 2)
	}
	return f.resp2
}

// appendPushHeader is a pub/sub frame's header: an array in RESP2, a push
// in RESP3.
func appendPushHeader(dst []byte, proto, n int) []byte {
	if proto == 3 {
		dst = strconv.AppendInt(append(dst, '>'), int64(n), 10)
		return append(dst, '\r', '\n')
	}
	return redcon.AppendArray(dst, n)
}

// deliver hands a frame to a subscriber's connection. It returns false
// when the subscriber is over its output buffer limit and must be closed.
func (s *Server) deliver(sub *Client, frame []byte) bool {
	cn := sub.conn
	if cn == nil || cn.killed.Load() {
		return true
	}
	if cn.answering != nil {
		// A blocked client being served (ZPOPMIN's event inside its
		// reply, BLPOP's after it), as Redis writes into the receiver's
		// reply while serving it.
		cn.answering.B = append(cn.answering.B, frame...)
		return true
	}
	if cn == s.running {
		// The connection whose batch runs: its own goroutine, which may
		// touch its buffers. Pushes are written even under CLIENT REPLY
		// OFF (Redis's CLIENT_PUSHING).
		cn.raw(frame)
		return true
	}
	// Publishers hold the execution lock, as this one does, and only they
	// fill the inbox: the length read here cannot change under us. With
	// earlier messages in the inbox, this one goes after them.
	if s.running != nil && cn.pushedLen.Load() == 0 {
		if d, ok := cn.tr.(transport.DirectPusher); ok && d.Direct(s.running.tr) {
			if !cn.outLimited {
				cn.raw(frame) // over its limit, the loop closes it (outputGrew)
			}
			return true
		}
	}
	return cn.push(frame)
}

// closeOverLimit closes a subscriber whose pending messages passed its
// output buffer limit, as Redis's closeClientOnOutputBufferLimitReached:
// logged, out of every subscription at once, its connection closed.
func (s *Server) closeOverLimit(c *Client) {
	cn := c.conn
	if cn == nil || cn.killed.Load() {
		return
	}
	s.logOutputLimit(c)
	s.dropSubscriptions(c)
	s.killClient(c)
}

// pushReply writes a (un)subscribe notification to the client itself:
// [kind, name or null, count], a push frame in RESP3, written even under
// CLIENT REPLY OFF.
func (c *Client) pushReply(kind string, name []byte, null bool, count int64) {
	if c.conn == nil || c.w != Writer(c.resp) {
		c.w.Array(3)
		c.w.BulkString(kind)
		if null {
			c.w.Null()
		} else {
			c.w.Bulk(name)
		}
		c.w.Int(count)
		return
	}
	proto := c.protocol()
	b := appendPushHeader(c.conn.pushScratch[:0], proto, 3)
	b = redcon.AppendBulkString(b, kind)
	switch {
	case !null:
		b = redcon.AppendBulk(b, name)
	case proto == 3:
		b = append(b, "_\r\n"...)
	default:
		b = append(b, "$-1\r\n"...)
	}
	b = redcon.AppendInt(b, count)
	c.conn.raw(b)
	c.conn.pushScratch = b[:0]
}

// push appends a frame to the connection's inbox and wakes its transport
// if the inbox was empty. Called with the execution lock held. It returns
// false when the pending output is past the client's limit.
func (cn *conn) push(frame []byte) bool { return cn.enqueue(frame, false) }

// pushOwned is push of a frame the caller gives up to this connection (a
// replica's RDB): an empty inbox takes it as it is, so that a payload of
// many megabytes is not copied, nor allocated again, under the execution
// lock.
func (cn *conn) pushOwned(frame []byte) bool { return cn.enqueue(frame, true) }

func (cn *conn) enqueue(frame []byte, owned bool) bool {
	cn.wakeMu.Lock()
	first := len(cn.pushed) == 0
	if owned && first {
		cn.pushed = frame
	} else {
		cn.pushed = append(cn.pushed, frame...)
	}
	pending := len(cn.pushed)
	cn.pushedLen.Store(int64(pending))
	cn.wakeMu.Unlock()
	if first {
		cn.tr.Woke()
	}
	if pending > replyChunk && cn.overOutputLimit(time.Now().Unix()) {
		cn.wakeMu.Lock()
		cn.pushed = nil
		cn.pushedLen.Store(0)
		cn.wakeMu.Unlock()
		return false
	}
	return true
}

// TakePushes moves the inbox to the replies; on the transport's goroutine.
// It reports whether there was anything.
func (cn *conn) TakePushes() bool {
	cn.wakeMu.Lock()
	p := cn.pushed
	cn.pushed = cn.pushSpare[:0]
	cn.pushedLen.Store(0)
	cn.wakeMu.Unlock()
	if len(p) == 0 {
		cn.pushSpare = p
		return false
	}
	if len(p) > keepReplyBytes {
		// Large: kept as a block rather than copied (the inbox is the
		// connection's own, or a frame given up to it, pushOwned).
		if !cn.outLimited {
			cn.adopt(p)
		}
		cn.pushSpare = nil
		return true
	}
	if !cn.outLimited {
		cn.raw(p)
	}
	if cap(p) <= keepReplyBytes {
		cn.pushSpare = p[:0]
	} else {
		cn.pushSpare = nil
	}
	return true
}

// pendingPushes is the size of the inbox.
func (cn *conn) pendingPushes() int { return int(cn.pushedLen.Load()) }

// outputClass is the client's client-output-buffer-limit class: pubsub
// (2) while subscribed to anything, as Redis's getClientType, else normal.
func (cn *conn) outputClass() int {
	if c := cn.client; c != nil && c.pubsub != nil && c.pubsub.total.Load() > 0 {
		return 2
	}
	if c := cn.client; c != nil && c.replica != nil && c.replica.state != replicaNone {
		return 1 // client-output-buffer-limit replica
	}
	return 0
}
