package server

import (
	"slices"
	"strconv"

	"github.com/tidwall/redcon"
)

// Client-side caching, as Redis 7.0's src/tracking.c: the tracking table
// (key → the clients that may hold it), the prefix table of the BCAST
// clients, and the invalidation messages. Everything here is guarded by
// the execution lock, as in Redis it all runs on the one thread.
//
// Keys reach the table after a read-only command of a tracking client
// (trackingRemember, from invoke); every change, deletion, expiry and
// eviction the store makes reaches trackingInvalidate through
// store.OnInvalidate, the store's signalModifiedKey, so no write path is
// missed. A message for the client whose command runs waits until the
// outermost command is done (the pending list, Redis's
// tracking_pending_keys), so an EXEC or a script's reply is never split by
// one; BCAST messages go out once the batch of commands is done, where
// Redis's beforeSleep sends them.
type tracking struct {
	// keys is Redis's TrackingTable: which clients may have cached each
	// key. Keys are global, not per database, as in Redis. A client stays
	// in a key's set after it turns tracking off or goes away (Redis keeps
	// its id), and is skipped when the key is invalidated.
	keys map[string]map[*Client]struct{}
	// items is TrackingTableTotalItems: the clients of all the keys.
	items int64
	// prefixes is Redis's PrefixTable, prefixOrder its keys sorted (a
	// rax's order, in which messages go out).
	prefixes    map[string]*bcastState
	prefixOrder []string
	// bcastDirty: some prefix has keys to broadcast.
	bcastDirty bool
	// clients is tracking_clients: the clients with tracking on.
	clients int
	// maxKeys is tracking-table-max-keys (0: no limit); limitRounds is
	// trackingLimitUsedSlots' timeout_counter.
	maxKeys     int64
	limitRounds int

	// current is Redis's server.current_client: the client whose command
	// runs (a script's origin, not the script's own client). depth counts
	// nested invokes (call's fixed_time_expire); caller is the client the
	// innermost invoke runs as (a script's own client inside a script:
	// what Redis passes signalModifiedKey), and topCmd/topArgs the command
	// of the innermost invoke not run by a script (what a script's
	// caller's c->cmd and c->argv are in Redis).
	current, caller *Client
	depth           int
	topCmd          *Command
	topArgs         [][]byte
	// pending is the invalidations for current, sent after the command;
	// a nil entry is a flush's null.
	pending [][]byte
}

// bcastState is one prefix of the BCAST clients: the keys changed since
// the last broadcast, each with the client that changed it last (for
// NOLOOP), and the clients of the prefix.
type bcastState struct {
	keys    map[string]*Client
	clients map[*Client]struct{}
}

// clientTracking is one client's CLIENT TRACKING state (Redis's
// CLIENT_TRACKING* flags, client_tracking_redirection and
// client_tracking_prefixes). A client has one from its first CLIENT
// TRACKING on.
type clientTracking struct {
	on, bcast, optin, optout, noloop bool
	// caching is CLIENT CACHING yes (OPTIN) or no (OPTOUT), for the next
	// command or transaction.
	caching bool
	// brokenRedir: the client redirected to is gone.
	brokenRedir bool
	redirect    int64
	redir       *Client // the client redirect names, looked up when it was set
	// prefixes are the client's BCAST prefixes, sorted.
	prefixes []string
}

// tracked reports whether c has tracking on.
func (c *Client) tracked() bool { return c.tracking != nil && c.tracking.on }

const trackingChannel = "__redis__:invalidate"

// enableTracking is tracking.c's enableTracking.
func (s *Server) enableTracking(c *Client, redirect int64, redir *Client, opt clientTracking, prefixes [][]byte) {
	tk := &s.tracking
	if c.tracking == nil {
		c.tracking = &clientTracking{}
	}
	t := c.tracking
	if !t.on {
		tk.clients++
	}
	t.on = true
	t.brokenRedir, t.bcast, t.optin, t.optout, t.noloop = false, false, false, false, false
	t.redirect, t.redir = redirect, redir
	if tk.keys == nil {
		tk.keys = map[string]map[*Client]struct{}{}
		tk.prefixes = map[string]*bcastState{}
		s.store.OnInvalidate = s.trackingInvalidate
	}
	if opt.bcast {
		t.bcast = true
		if len(prefixes) == 0 {
			s.bcastPrefix(c, "")
		}
		for _, p := range prefixes {
			s.bcastPrefix(c, string(p))
		}
	}
	t.optin, t.optout, t.noloop = opt.optin, opt.optout, opt.noloop
}

// bcastPrefix is enableBcastTrackingForPrefix.
func (s *Server) bcastPrefix(c *Client, prefix string) {
	tk := &s.tracking
	bs := tk.prefixes[prefix]
	if bs == nil {
		bs = &bcastState{keys: map[string]*Client{}, clients: map[*Client]struct{}{}}
		tk.prefixes[prefix] = bs
		i, _ := slices.BinarySearch(tk.prefixOrder, prefix)
		tk.prefixOrder = slices.Insert(tk.prefixOrder, i, prefix)
	}
	if _, ok := bs.clients[c]; !ok {
		bs.clients[c] = struct{}{}
		t := c.tracking
		if i, found := slices.BinarySearch(t.prefixes, prefix); !found {
			t.prefixes = slices.Insert(t.prefixes, i, prefix)
		}
	}
}

// disableTracking is tracking.c's disableTracking: the client leaves its
// prefixes at once; its entries in the tracking table go lazily.
func (s *Server) disableTracking(c *Client) {
	t := c.tracking
	if t == nil {
		return
	}
	tk := &s.tracking
	if t.bcast {
		for _, p := range t.prefixes {
			bs := tk.prefixes[p]
			if bs == nil {
				continue
			}
			delete(bs.clients, c)
			if len(bs.clients) == 0 {
				delete(tk.prefixes, p)
				if i, found := slices.BinarySearch(tk.prefixOrder, p); found {
					tk.prefixOrder = slices.Delete(tk.prefixOrder, i, i+1)
				}
			}
		}
		t.prefixes = nil
	}
	if t.on {
		tk.clients--
		*t = clientTracking{}
	}
}

// prefixOverlap is stringCheckPrefix: one is a prefix of the other.
func prefixOverlap(a, b string) bool {
	n := min(len(a), len(b))
	return a[:n] == b[:n]
}

// trackingRemember is trackingRememberKeys, after a read-only command of
// a tracking client not in BCAST mode: its keys go into the table.
func (s *Server) trackingRemember(c *Client, cmd *Command, args [][]byte) {
	t := c.tracking
	if (t.optin && !t.caching) || (t.optout && t.caching) {
		return
	}
	if cmd.Flags.Has(FlagPubSub) {
		return // shard channels are keys only for COMMAND's sake
	}
	tk := &s.tracking
	remember := func(key []byte) {
		ids := tk.keys[string(key)]
		if ids == nil {
			ids = map[*Client]struct{}{}
			tk.keys[string(key)] = ids
		}
		if _, ok := ids[c]; !ok {
			ids[c] = struct{}{}
			tk.items++
		}
	}
	if !cmd.Flags.Has(FlagMovableKeys) {
		if cmd.FirstKey <= 0 {
			return
		}
		last := cmd.LastKey
		if last < 0 {
			last += len(args)
		}
		for i := cmd.FirstKey; i <= last && i < len(args); i += max(cmd.Step, 1) {
			remember(args[i])
		}
		return
	}
	for i := range cmd.keySpecs {
		// Redis's trackingRememberKeys asks for partial results
		// (GET_KEYSPEC_RETURN_PARTIAL): an invalid spec drops its own
		// keys only.
		pos, _ := cmd.keySpecs[i].positions(args)
		for _, p := range pos {
			remember(args[p])
		}
	}
}

// trackingInvalidate is store.OnInvalidate: Redis's signalModifiedKey's
// trackingInvalidateKey(c, key, 1), with c the client that changed the key
// (none for an expiry or an eviction).
func (s *Server) trackingInvalidate(key []byte, byCommand bool) {
	var by *Client
	if byCommand {
		by = s.tracking.caller
	}
	s.invalidateKey(by, key, true)
}

// invalidateKey is trackingInvalidateKey: the key goes to the BCAST
// prefixes it matches (bcast), and every client that may have it is told,
// now or, for the client whose command runs, once the command is done.
func (s *Server) invalidateKey(by *Client, key []byte, bcast bool) {
	tk := &s.tracking
	if tk.keys == nil {
		return
	}
	if bcast && len(tk.prefixOrder) > 0 {
		for _, p := range tk.prefixOrder {
			if len(p) > len(key) || string(key[:len(p)]) != p {
				continue
			}
			tk.prefixes[p].keys[string(key)] = by
			tk.bcastDirty = true
		}
	}
	ids, ok := tk.keys[string(key)]
	if !ok {
		return
	}
	for target := range ids {
		t := target.tracking
		// A client that switched to BCAST gets nothing for the keys it
		// tracked before.
		if t == nil || !t.on || t.bcast {
			continue
		}
		if t.noloop && target == tk.current {
			continue
		}
		if target == tk.current && tk.depth > 0 {
			tk.pending = append(tk.pending, []byte(string(key)))
		} else {
			s.sendTracking(target, keyArray(key))
		}
	}
	tk.items -= int64(len(ids))
	delete(tk.keys, string(key))
}

// keyArray is the RESP array of one key.
func keyArray(key []byte) []byte {
	return redcon.AppendBulk(redcon.AppendArray(nil, 1), key)
}

// nullFor is shared.null[proto]: the body of a flush's invalidation.
func nullFor(proto int) []byte {
	if proto == 3 {
		return []byte("_\r\n")
	}
	return []byte("$-1\r\n")
}

// flushPendingInvalidations is trackingHandlePendingKeyInvalidations,
// after the outermost command.
func (s *Server) flushPendingInvalidations() {
	tk := &s.tracking
	pending := tk.pending
	tk.pending = nil
	c := tk.current
	if c == nil || c.conn == nil || c.conn.killed.Load() {
		return
	}
	for _, key := range pending {
		if key == nil {
			s.sendTracking(c, nullFor(c.protocol()))
		} else {
			s.sendTracking(c, keyArray(key))
		}
	}
}

// sendTracking is sendTrackingMessage: body (an array of keys, or a
// null) goes to c's redirect if it has one, else to c, as a push in
// RESP3 or, to a redirect subscribed in RESP2, as a message of the
// __redis__:invalidate channel. A RESP2 client without a redirect gets
// nothing, and a client whose redirect is gone is told so (RESP3).
func (s *Server) sendTracking(c *Client, body []byte) {
	t := c.tracking
	target := c
	redirected := false
	if t.redirect != 0 {
		redir := s.liveClient(t.redir)
		if redir == nil {
			t.brokenRedir = true
			if c.protocol() == 3 {
				b := appendPushHeader(nil, 3, 2)
				b = redcon.AppendBulkString(b, "tracking-redir-broken")
				b = redcon.AppendInt(b, t.redirect)
				s.deliverOrClose(c, b)
			}
			return
		}
		target, redirected = redir, true
	}
	var b []byte
	switch {
	case target.protocol() == 3:
		b = appendPushHeader(nil, 3, 2)
		b = redcon.AppendBulkString(b, "invalidate")
	case redirected && target.subscribed():
		b = appendPushHeader(nil, 2, 3)
		b = redcon.AppendBulkString(b, "message")
		b = redcon.AppendBulkString(b, trackingChannel)
	default:
		return // RESP2 has no push on the client's own connection
	}
	s.deliverOrClose(target, append(b, body...))
}

// deliverOrClose delivers a frame, closing a client over its output
// buffer limit as a publish does.
func (s *Server) deliverOrClose(c *Client, frame []byte) {
	if !s.deliver(c, frame) {
		s.closeOverLimit(c)
	}
}

// liveClient returns c if it is still connected (lookupClientByID).
func (s *Server) liveClient(c *Client) *Client {
	if c == nil {
		return nil
	}
	s.clientsMu.Lock()
	_, ok := s.clients[c]
	s.clientsMu.Unlock()
	if !ok {
		return nil
	}
	return c
}

// clientByID finds a connected client by id (lookupClientByID).
func (s *Server) clientByID(id int64) *Client {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	for c := range s.clients {
		if c.id == id {
			return c
		}
	}
	return nil
}

// trackingFlushed is trackingInvalidateKeysOnFlush, after FLUSHALL or
// FLUSHDB: every tracking client is told that all its keys are invalid
// (a null), and the tracking table is emptied.
func (s *Server) trackingFlushed() {
	tk := &s.tracking
	if tk.clients > 0 {
		for _, c := range s.clientsByID() {
			if !c.tracked() {
				continue
			}
			if c == tk.current {
				tk.pending = append(tk.pending, nil)
			} else {
				s.sendTracking(c, nullFor(c.protocol()))
			}
		}
	}
	if tk.keys != nil {
		tk.keys = map[string]map[*Client]struct{}{}
		tk.items = 0
	}
}

// trackingLimit is trackingLimitUsedSlots: past tracking-table-max-keys,
// random keys are dropped from the table, their clients told as if the
// keys had changed, with an effort that grows while the table stays over.
func (s *Server) trackingLimit() {
	tk := &s.tracking
	if tk.keys == nil || tk.maxKeys == 0 {
		return
	}
	if int64(len(tk.keys)) <= tk.maxKeys {
		tk.limitRounds = 0
		return
	}
	for effort := 100 * (tk.limitRounds + 1); effort > 0; effort-- {
		var key string
		found := false
		for k := range tk.keys { // Go's map iteration starts at random
			key, found = k, true
			break
		}
		if !found {
			break
		}
		s.invalidateKey(nil, []byte(key), false)
		if int64(len(tk.keys)) <= tk.maxKeys {
			tk.limitRounds = 0
			return
		}
	}
	tk.limitRounds++
}

// trackingBroadcast is trackingBroadcastInvalidationMessages, once a
// batch of commands is done (Redis's beforeSleep): each prefix's changed
// keys go to its clients in one message, a NOLOOP client's without the
// keys it changed itself.
func (s *Server) trackingBroadcast() {
	tk := &s.tracking
	if !tk.bcastDirty {
		return
	}
	tk.bcastDirty = false
	for _, p := range tk.prefixOrder {
		bs := tk.prefixes[p]
		if len(bs.keys) == 0 {
			continue
		}
		keys := make([]string, 0, len(bs.keys))
		for k := range bs.keys {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		all := broadcastReply(keys, bs.keys, nil)
		for _, c := range s.clientsByID() { // in id order, for a stable order of deliveries
			if _, ok := bs.clients[c]; !ok {
				continue
			}
			if c.tracking.noloop {
				if own := broadcastReply(keys, bs.keys, c); own != nil {
					s.sendTracking(c, own)
				}
				continue
			}
			s.sendTracking(c, all)
		}
		bs.keys = map[string]*Client{}
	}
}

// broadcastReply is trackingBuildBroadcastReply: the array of keys, less
// those c changed last when c is not nil; nil if that leaves none.
func broadcastReply(keys []string, by map[string]*Client, c *Client) []byte {
	n := 0
	for _, k := range keys {
		if c == nil || by[k] != c {
			n++
		}
	}
	if n == 0 && c != nil {
		return nil
	}
	b := redcon.AppendArray(nil, n)
	for _, k := range keys {
		if c == nil || by[k] != c {
			b = redcon.AppendBulkString(b, k)
		}
	}
	return b
}

// trackingParams is tracking-table-max-keys, applied (config.go).
var trackingParams = map[string]floodgateParam{
	"tracking-table-max-keys": {effect: effectApplied, apply: func(s *Server, v string) string {
		s.tracking.maxKeys, _ = strconv.ParseInt(v, 10, 64)
		return ""
	}},
}

// trackingFlags are CLIENT LIST's tracking flags, in Redis's order.
func (c *Client) trackingFlags() string {
	t := c.tracking
	switch {
	case t == nil || !t.on:
		return ""
	case t.brokenRedir && t.bcast:
		return "tRB"
	case t.brokenRedir:
		return "tR"
	case t.bcast:
		return "tB"
	}
	return "t"
}

// trackingRedirect is CLIENT LIST's redir and CLIENT GETREDIR: the
// redirect, 0 for none, or -1 when tracking is off.
func (c *Client) trackingRedirect() int64 {
	if !c.tracked() {
		return -1
	}
	return c.tracking.redirect
}

// initTracking sets tracking-table-max-keys' default and then the
// configured value.
func (s *Server) initTracking() {
	s.tracking.maxKeys = 1000000
	s.applySettings(trackingParams)
}

// trackingAfterCall is call()'s part for client-side caching: after a
// read-only command (not EVAL_RO, EVALSHA_RO or FCALL_RO) the keys go into
// the table for its client, or, for a command a script ran, the keys the
// script declared go in for the script's caller.
func (s *Server) trackingAfterCall(c *Client, cmd *Command) {
	if !cmd.Flags.Has(FlagReadonly) {
		return
	}
	switch cmd.Name {
	case "eval_ro", "evalsha_ro", "fcall_ro":
		return
	}
	caller := c
	if c.inScript {
		if caller = s.scripting.caller.origin; caller == nil {
			return
		}
	}
	if caller.tracked() && !caller.tracking.bcast && s.tracking.topCmd != nil {
		s.trackingRemember(caller, s.tracking.topCmd, s.tracking.topArgs)
	}
}
