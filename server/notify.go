package server

import (
	"strconv"
	"strings"
)

// Keyspace notifications, Redis 7.0's src/notify.c: with
// notify-keyspace-events naming a class, a command that changes a key of
// that class publishes the event's name on __keyspace@<db>__:<key> (K) and
// the key on __keyevent@<db>__:<event> (E), through the ordinary PUBLISH
// path (pubsub.go), so patterns, RESP2/RESP3 frames, a RESP3 client's own
// events and the output limits all behave as for PUBLISH.
//
// Handlers raise events with c.notify(class, event, key) where Redis calls
// notifyKeyspaceEvent, in its order. With notify-keyspace-events "" (the
// default) the cost is the one test inlined into every call site.

// notifyClass is a set of Redis's NOTIFY_* flags, with Redis's values.
type notifyClass uint16

const (
	notifyKeyspace notifyClass = 1 << iota // K
	notifyKeyevent                         // E
	notifyGeneric                          // g
	notifyString                           // $
	notifyList                             // l
	notifySet                              // s
	notifyHash                             // h
	notifyZSet                             // z
	notifyExpired                          // x
	notifyEvicted                          // e
	notifyStream                           // t
	notifyKeyMiss                          // m, not part of A
	notifyLoaded                           // modules only: no letter
	notifyModule                           // d
	notifyNew                              // n, not part of A

	notifyAll = notifyGeneric | notifyString | notifyList | notifySet | notifyHash | notifyZSet |
		notifyExpired | notifyEvicted | notifyStream | notifyModule
)

// notifyLetters are keyspaceEventsFlagsToString's letters for the classes
// A stands for and n, in its order.
var notifyLetters = []struct {
	class  notifyClass
	letter byte
}{
	{notifyGeneric, 'g'}, {notifyString, '$'}, {notifyList, 'l'}, {notifySet, 's'}, {notifyHash, 'h'},
	{notifyZSet, 'z'}, {notifyExpired, 'x'}, {notifyEvicted, 'e'}, {notifyStream, 't'},
	{notifyModule, 'd'}, {notifyNew, 'n'},
}

// parseNotifyClasses is keyspaceEventsStringToFlags. Redis reads the value
// as a C string, so it ends at a NUL byte.
func parseNotifyClasses(v string) (notifyClass, bool) {
	if i := strings.IndexByte(v, 0); i >= 0 {
		v = v[:i]
	}
	var flags notifyClass
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case 'A':
			flags |= notifyAll
		case 'K':
			flags |= notifyKeyspace
		case 'E':
			flags |= notifyKeyevent
		case 'm':
			flags |= notifyKeyMiss
		default:
			found := false
			for _, l := range notifyLetters {
				if l.letter == v[i] {
					flags |= l.class
					found = true
					break
				}
			}
			if !found {
				return 0, false
			}
		}
	}
	return flags, true
}

// String is keyspaceEventsFlagsToString: A when every class of A is on
// (n is then left out even if on, as Redis prints it), else the letters in
// Redis's order; then K, E and m.
func (f notifyClass) String() string {
	var b []byte
	if f&notifyAll == notifyAll {
		b = append(b, 'A')
	} else {
		for _, l := range notifyLetters {
			if f&l.class != 0 {
				b = append(b, l.letter)
			}
		}
	}
	if f&notifyKeyspace != 0 {
		b = append(b, 'K')
	}
	if f&notifyKeyevent != 0 {
		b = append(b, 'E')
	}
	if f&notifyKeyMiss != 0 {
		b = append(b, 'm')
	}
	return string(b)
}

const errKeyspaceEvents = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."

// parseKeyspaceEvents is setConfigNotifyKeyspaceEventsOption's check.
func parseKeyspaceEvents(v string) (string, string) {
	f, ok := parseNotifyClasses(v)
	if !ok {
		return "", errKeyspaceEvents
	}
	return f.letters(), ""
}

// letters spells every class of f, A's one by one: the stored form, from
// which apply reads the classes back (String, what CONFIG GET prints,
// drops n beside A).
func (f notifyClass) letters() string {
	var b []byte
	for _, l := range notifyLetters {
		if f&l.class != 0 {
			b = append(b, l.letter)
		}
	}
	for _, l := range []struct {
		class  notifyClass
		letter byte
	}{{notifyKeyspace, 'K'}, {notifyKeyevent, 'E'}, {notifyKeyMiss, 'm'}} {
		if f&l.class != 0 {
			b = append(b, l.letter)
		}
	}
	return string(b)
}

// applyKeyspaceEvents puts notify-keyspace-events into effect; called with
// the execution lock held (CONFIG SET) or before serving (the config file).
func applyKeyspaceEvents(s *Server, v string) string {
	s.notifyFlags, _ = parseNotifyClasses(v)
	if s.store != nil { // a config file is read before the store is made (Init)
		s.setNotifyHooks()
	}
	return ""
}

// setNotifyHooks sets the store's hooks for the classes on.
func (s *Server) setNotifyHooks() {
	f := s.notifyFlags
	// Key misses and new keys are seen by the store (its read lookups,
	// its key creation); a hook is set only while its class is on, so that
	// no lookup or write pays for it otherwise.
	s.store.OnMiss, s.store.OnNew = nil, nil
	if f&notifyKeyMiss != 0 {
		s.store.OnMiss = s.keyMissed
	}
	if f&notifyNew != 0 {
		s.store.OnNew = s.keyCreated
	}
}

func getKeyspaceEvents(s *Server) string { return s.notifyFlags.String() }

// notify raises a keyspace event of class for key in the client's
// database (notifyKeyspaceEvent). Small enough to inline: with the class
// off it is one test.
func (c *Client) notify(class notifyClass, event string, key []byte) {
	if c.srv.notifyFlags&class != 0 {
		c.srv.notifyKeyspaceEvent(class, event, key, c.db.Index())
	}
}

// notifyIn is notify for a key of another database (MOVE, COPY ... DB).
func (c *Client) notifyIn(db int, class notifyClass, event string, key []byte) {
	if c.srv.notifyFlags&class != 0 {
		c.srv.notifyKeyspaceEvent(class, event, key, db)
	}
}

// notifyKeyspaceEvent publishes the event on the keyspace and the keyevent
// channel, as notify.c. Nothing is published while the dataset loads (the
// AOF's commands run through the handlers then). With no subscription at
// all the messages would reach no one, so they are not built.
func (s *Server) notifyKeyspaceEvent(class notifyClass, event string, key []byte, db int) {
	if s.notifyFlags&class == 0 || s.loading.active.Load() {
		return
	}
	if len(s.pubsub.channels) == 0 && len(s.pubsub.patternList) == 0 {
		return
	}
	var buf [64]byte
	if s.notifyFlags&notifyKeyspace != 0 {
		ch := append(buf[:0], "__keyspace@"...)
		ch = strconv.AppendInt(ch, int64(db), 10)
		ch = append(ch, "__:"...)
		ch = append(ch, key...)
		s.publish(ch, []byte(event), globalChannels)
	}
	if s.notifyFlags&notifyKeyevent != 0 {
		ch := append(buf[:0], "__keyevent@"...)
		ch = strconv.AppendInt(ch, int64(db), 10)
		ch = append(ch, "__:"...)
		ch = append(ch, event...)
		s.publish(ch, key, globalChannels)
	}
}

// keyMissed is the store's OnMiss while m is on: a read lookup found no
// key (lookupKeyReadWithFlags' keymiss).
func (s *Server) keyMissed(db int, key []byte) {
	s.notifyKeyspaceEvent(notifyKeyMiss, "keymiss", key, db)
}

// keyCreated is the store's OnNew: a key was added (dbAdd's "new").
func (s *Server) keyCreated(db int, key string) {
	s.notifyKeyspaceEvent(notifyNew, "new", []byte(key), db)
}
