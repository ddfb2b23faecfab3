package server

import (
	"math"

	"github.com/floodgate/floodgate/store"
)

var objectCommands = []*Command{
	// Subcommands in the order Redis lists them (COMMAND INFO).
	{Name: "object", Arity: -2, Group: "generic", Summary: "A container for object introspection commands", Since: "2.2.3", Subcommands: []*Command{
		{Name: "freq", Arity: 3, Flags: FlagReadonly, FirstKey: 2, LastKey: 2, Step: 1, ACL: objectACL, Group: "generic", Summary: "Get the logarithmic access frequency counter of a Redis object", Since: "4.0.0", Tips: []string{"nondeterministic_output"}, Handler: cmdObjectFreq},
		{Name: "encoding", Arity: 3, Flags: FlagReadonly, FirstKey: 2, LastKey: 2, Step: 1, ACL: objectACL, Group: "generic", Summary: "Inspect the internal encoding of a Redis object", Since: "2.2.3", Tips: []string{"nondeterministic_output"}, Handler: cmdObjectEncoding},
		{Name: "idletime", Arity: 3, Flags: FlagReadonly, FirstKey: 2, LastKey: 2, Step: 1, ACL: objectACL, Group: "generic", Summary: "Get the time since a Redis object was last accessed", Since: "2.2.3", Tips: []string{"nondeterministic_output"}, Handler: cmdObjectIdleTime},
		{Name: "help", Arity: 2, Flags: FlagLoading | FlagStale, ACL: []string{"keyspace"}, Group: "generic", Summary: "Show helpful text about the different subcommands", Since: "6.2.0", Handler: helpHandler(objectHelp)},
		{Name: "refcount", Arity: 3, Flags: FlagReadonly, FirstKey: 2, LastKey: 2, Step: 1, ACL: objectACL, Group: "generic", Summary: "Get the number of references to the value of the key", Since: "2.2.3", Tips: []string{"nondeterministic_output"}, Handler: cmdObjectRefCount},
	}},
}

func init() { register(objectCommands...) }

var objectACL = []string{"keyspace"}

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

// errNoLFU is what OBJECT FREQ answers under the default maxmemory-policy
// (noeviction), the only one floodgate has.
const errNoLFU = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."

// objectValue returns the value at the key OBJECT inspects, answering null
// (and returning nil) when there is none.
func objectValue(c *Client, args [][]byte) store.Value {
	e := c.db.Get(args[2])
	if e == nil {
		c.w.Null()
		return nil
	}
	return e.Value
}

func cmdObjectEncoding(c *Client, args [][]byte) {
	if v := objectValue(c, args); v != nil {
		c.w.BulkString(v.Encoding())
	}
}

func cmdObjectFreq(c *Client, args [][]byte) {
	if v := objectValue(c, args); v != nil {
		c.w.Error(errNoLFU)
	}
}

// cmdObjectIdleTime answers 0: floodgate keeps no access times, and a key
// read by a client is, for a limiter, always hot.
func cmdObjectIdleTime(c *Client, args [][]byte) {
	if v := objectValue(c, args); v != nil {
		c.w.Int(0)
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
