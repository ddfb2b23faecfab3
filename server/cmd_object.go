package server

import (
	"math"
	"time"

	"github.com/floodgate/floodgate/store"
)

var objectHandlers = map[string]Handler{
	"object|freq":     cmdObjectFreq,
	"object|encoding": cmdObjectEncoding,
	"object|idletime": cmdObjectIdleTime,
	"object|help":     helpHandler(objectHelp),
	"object|refcount": cmdObjectRefCount,
}

var objectHelp = []string{
	"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
	"HELP",
	"    Prints this help.",
}

// The texts OBJECT FREQ and OBJECT IDLETIME answer when the policy keeps
// the other kind of access data.
const (
	errNoLFU = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
	errNoLRU = "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."
)

// objectEntry returns the key OBJECT inspects, answering null (and
// returning nil) when there is none. OBJECT is no access and raises no
// keymiss (LOOKUP_NOTOUCH|LOOKUP_NONOTIFY).
func objectEntry(c *Client, args [][]byte) *store.Entry {
	e := c.db.PeekQuiet(args[2])
	if e == nil {
		c.w.Null()
	}
	return e
}

func objectValue(c *Client, args [][]byte) store.Value {
	if e := objectEntry(c, args); e != nil {
		return e.Value()
	}
	return nil
}

func cmdObjectEncoding(c *Client, args [][]byte) {
	if v := objectValue(c, args); v != nil {
		c.w.BulkString(v.Encoding())
	}
}

func cmdObjectFreq(c *Client, args [][]byte) {
	e := objectEntry(c, args)
	switch {
	case e == nil:
	case !c.srv.store.Eviction().Policy.LFU():
		c.w.Error(errNoLFU)
	default:
		c.w.Int(int64(c.srv.store.Freq(e)))
	}
}

func cmdObjectIdleTime(c *Client, args [][]byte) {
	e := objectEntry(c, args)
	switch {
	case e == nil:
	case c.srv.store.Eviction().Policy.LFU():
		c.w.Error(errNoLRU)
	default:
		c.w.Int(int64(c.srv.store.IdleTime(e) / time.Second))
	}
}

// cmdObjectRefCount answers what Redis answers with its default config:
// integers 0..9999 are shared objects with a refcount of INT_MAX (unless
// COPY duplicated one), every other value has one reference.
func cmdObjectRefCount(c *Client, args [][]byte) {
	v := objectValue(c, args)
	if v == nil {
		return
	}
	if s, ok := v.(*store.String); ok {
		if s.Shared() {
			c.w.Int(math.MaxInt32)
			return
		}
	}
	c.w.Int(1)
}
