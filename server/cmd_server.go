package server

import (
	"strconv"

	"github.com/floodgate/floodgate/internal/number"
)

var serverHandlers = map[string]Handler{
	"dbsize":   cmdDBSize,
	"flushdb":  cmdFlushDB,
	"flushall": cmdFlushAll,
	"swapdb":   cmdSwapDB,
	"time":     cmdTime,
	"shutdown": cmdShutdown,
}

func cmdDBSize(c *Client, args [][]byte) { c.w.Int(int64(c.db.Len())) }

// flushMode accepts FLUSHDB/FLUSHALL's optional ASYNC or SYNC.
func flushMode(c *Client, args [][]byte) bool {
	if len(args) > 2 || (len(args) == 2 && !eqFold(args[1], "async") && !eqFold(args[1], "sync")) {
		c.w.Error(errSyntax)
		return false
	}
	return true
}

func cmdFlushDB(c *Client, args [][]byte) {
	if flushMode(c, args) {
		c.db.Flush()
		c.srv.keysReadyIn(c.db.Index()) // fails the XREADGROUP readers
		c.srv.trackingFlushed()
		c.forceLog() // an empty database's FLUSHDB too, as Redis
		c.w.Status("OK")
	}
}

func cmdFlushAll(c *Client, args [][]byte) {
	if flushMode(c, args) {
		c.srv.store.FlushAll()
		for i := range c.srv.store.Databases() {
			c.srv.keysReadyIn(i) // fails the XREADGROUP readers
		}
		c.srv.trackingFlushed()
		c.forceLog()
		c.w.Status("OK")
	}
}

// cmdSwapDB reads each index as Redis's getIntFromObjectOrReply with its
// own message, which an index past an int's range gets too.
func cmdSwapDB(c *Client, args [][]byte) {
	a, okA := number.ParseInt(args[1])
	if !okA || a != int64(int32(a)) {
		c.w.Error("ERR invalid first DB index")
		return
	}
	b, okB := number.ParseInt(args[2])
	if !okB || b != int64(int32(b)) {
		c.w.Error("ERR invalid second DB index")
		return
	}
	n := int64(c.srv.store.Databases())
	if a < 0 || a >= n || b < 0 || b >= n {
		c.w.Error(errDBIndex)
		return
	}
	c.srv.store.SwapDB(int(a), int(b))
	c.srv.keysReadyIn(int(a))
	c.srv.keysReadyIn(int(b))
	c.w.Status("OK")
}

// cmdTime reads the store's clock, so a test's manual clock moves TIME
// together with the TTLs.
func cmdTime(c *Client, args [][]byte) {
	now := c.srv.store.Clock().Now()
	c.w.Array(2)
	c.w.BulkString(strconv.FormatInt(now.Unix(), 10))
	c.w.BulkString(strconv.Itoa(now.Nanosecond() / 1000))
}
