package server

import (
	"github.com/floodgate/floodgate/store"
)

// Key lookups that commands of every family share: a value of the
// expected type or WRONGTYPE, the reply for a missing key, and the store of
// a command's result.

// valueAs returns the value of type V at key, the zero V (nil) if there is
// none, or false (having answered WRONGTYPE) if the key holds another type.
func valueAs[V store.Value](c *Client, key []byte) (V, bool) {
	v, err := store.ValueAt[V](c.db, key)
	if err != nil {
		c.w.Error(err.Error())
		return v, false
	}
	return v, true
}

// valueOrReply is valueAs with Redis's lookupKeyReadOrReply: a missing
// key answers missing (replyZero, replyNull, ...), and either way, as after
// WRONGTYPE, it returns nil for the handler to stop.
func valueOrReply[V store.Value](c *Client, key []byte, missing func(Writer)) V {
	var none V // V is a pointer type: nil when the key is missing
	v, ok := valueAs[V](c, key)
	if ok && any(v) == any(none) {
		missing(c.w)
	}
	return v
}

// readLookups makes the lookups that follow count as keyspace hits and
// misses, a miss raising keymiss, as Redis's lookupKeyRead does inside a
// write command whose other lookups are lookupKeyWrite's, which count
// nothing (SET GET, PFMERGE's sources, BITFIELD with GETs only). It
// returns the setting for endReadLookups to put back.
func (c *Client) readLookups() (was bool) { return c.srv.store.CountLookups(true) }

// endReadLookups ends what readLookups began.
func (c *Client) endReadLookups(was bool) { c.srv.store.CountLookups(was) }

// setKey stores v at key as Redis's setKey does for the commands that
// store a result (SORT STORE, SINTERSTORE, ZUNIONSTORE, GEO STORE, BITOP,
// MSET, GETSET): its lookupKeyWrite is an access of the old value, and
// under an LFU policy the new value inherits the old one's counter
// (dbOverwrite), so an existing destination counts one more access.
func setKey(c *Client, key []byte, v store.Value) { c.db.Put(key, v) }
