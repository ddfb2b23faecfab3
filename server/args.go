package server

import (
	"math"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/store"
)

// Argument parsers shared by commands of more than one family. Those given
// the client answer its error themselves and return false, so that the
// handler only stops.

// eqFold reports whether b equals the lower-case ASCII word, ignoring case.
func eqFold(b []byte, word string) bool {
	if len(b) != len(word) {
		return false
	}
	for i := range b {
		ch := b[i]
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		if ch != word[i] {
			return false
		}
	}
	return true
}

// intArg parses an integer argument (Redis's getLongLongFromObjectOrReply).
func intArg(c *Client, b []byte) (int64, bool) {
	n, ok := number.ParseInt(b)
	if !ok {
		c.w.Error(errNotInteger)
	}
	return n, ok
}

// dbArg parses a database index argument as COPY's DB and MOVE do (an
// int, then a valid index), answering the error otherwise.
func dbArg(c *Client, b []byte) (*store.DB, bool) {
	n, ok := intArg(c, b)
	if !ok {
		return nil, false
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		c.w.Error(errIntRange)
		return nil, false
	}
	if n < 0 || n >= int64(c.srv.store.Databases()) {
		c.w.Error(errDBIndex)
		return nil, false
	}
	return c.srv.store.DB(int(n)), true
}

// mpopArgs parses the numkeys, keys, LEFT|RIGHT and COUNT of LMPOP and
// BLMPOP (and BZMPOP's MIN|MAX through where), from args[at] on.
func mpopArgs(c *Client, args [][]byte, at int, where func(*Client, []byte) (bool, bool)) (keys [][]byte, front bool, count int64, ok bool) {
	numKeys, isInt := number.ParseInt(args[at])
	if !isInt || numKeys < 1 {
		c.w.Error(errNumKeysZero)
		return nil, false, 0, false
	}
	whereAt := at + 1 + int(min(numKeys, int64(len(args))))
	if whereAt >= len(args) {
		c.w.Error(errSyntax)
		return nil, false, 0, false
	}
	if front, ok = where(c, args[whereAt]); !ok {
		return nil, false, 0, false
	}
	count = -1
	for i := whereAt + 1; i < len(args); i++ {
		if count == -1 && eqFold(args[i], "count") && i+1 < len(args) {
			i++
			n, isInt := number.ParseInt(args[i])
			if !isInt || n < 1 {
				c.w.Error(errCountPositive)
				return nil, false, 0, false
			}
			count = n
			continue
		}
		c.w.Error(errSyntax)
		return nil, false, 0, false
	}
	if count == -1 {
		count = 1
	}
	return args[at+1 : whereAt], front, count, true
}
