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

// cmdShutdown stops the server as Redis 7.0's SHUTDOWN: it saves with save
// points set or SAVE given, unless NOSAVE, and FORCE goes on when saving
// fails. While a script is busy only NOSAVE is allowed, and it stops the
// script. It cannot close the server itself: Close waits for the batch in
// flight, which is this one. So it ends this connection's batch and closes
// the server from another goroutine; cmd/floodgate then exits 0.
func cmdShutdown(c *Client, args [][]byte) {
	var save, noSave, abort, now, force bool
	for _, a := range args[1:] {
		switch {
		case eqFold(a, "nosave"):
			noSave = true
		case eqFold(a, "save"):
			save = true
		case eqFold(a, "abort"):
			abort = true
		case eqFold(a, "now"):
			now = true
		case eqFold(a, "force"):
			force = true
		default:
			c.w.Error(errSyntax)
			return
		}
	}
	if (abort && (save || noSave || now || force)) || (save && noSave) {
		c.w.Error(errSyntax)
		return
	}
	if abort {
		c.w.Error("ERR No shutdown in progress.")
		return
	}
	s := c.srv
	busy := s.scripting.busy.Load()
	if busy && !noSave {
		c.w.Error(s.busyError())
		return
	}
	if err := s.prepareShutdown(save, noSave, force); err != nil {
		c.w.Error("ERR Errors trying to SHUTDOWN. Check logs.")
		return
	}
	if busy {
		if e := s.scripting.current(); e != nil {
			e.Abort()
		}
	}
	c.closing = true
	go s.Close()
}

// Shutdown waits for the command in flight, a busy script included (SCRIPT
// KILL or SHUTDOWN NOSAVE end it sooner), as Redis acts on a SIGTERM only
// between commands. The caller then closes the server.
func (s *Server) Shutdown() {
	select {
	case s.lock <- struct{}{}:
		<-s.lock
	case <-s.stop:
	}
}
