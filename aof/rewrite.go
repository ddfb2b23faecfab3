package aof

import (
	"errors"
	"io"
	"math"
	"strconv"

	"github.com/floodgate/floodgate/store"
)

// ItemsPerCommand is Redis's AOF_REWRITE_ITEMS_PER_CMD: a rewrite splits a
// collection into commands of at most this many items.
const ItemsPerCommand = 64

// SnapshotStep is how many keys SaveSnapshot encodes per hold of the
// caller's lock, as rdb.SaveStep.
const SnapshotStep = 128

// ErrAborted is SaveSnapshot's error when locked gives up (the server is
// stopping, or the rewrite was dropped).
var ErrAborted = errors.New("aof: rewrite aborted")

// SaveSnapshot writes the commands that recreate the keys of sn, in the
// style of Redis's rewriteAppendOnlyFileRio: a SELECT per non-empty
// database, then per key SET, RPUSH, SADD, ZADD or HMSET (at most
// ItemsPerCommand items a command) and a PEXPIREAT for a key with a TTL.
// It walks sn SnapshotStep keys at a time, each step run by locked, which
// holds whatever keeps the store still and reports false to abort, and
// writes out between steps, so the store is never held for the whole
// keyspace. It returns the bytes written.
func SaveSnapshot(out io.Writer, sn *store.Snapshot, locked func(step func()) bool) (int64, error) {
	cw := &countingWriter{w: out}
	var buf []byte
	cur := -1
	for more := true; more; {
		ok := locked(func() {
			more = sn.Next(SnapshotStep, func(db int, key string, v store.Value, expireAt int64) {
				if db != cur {
					buf = AppendCommand(buf, []byte("SELECT"), strconv.AppendInt(nil, int64(db), 10))
					cur = db
				}
				buf = AppendValue(buf, key, v, expireAt)
			})
		})
		if !ok {
			return cw.n, ErrAborted
		}
		if len(buf) >= 256<<10 || !more {
			if _, err := cw.Write(buf); err != nil {
				return cw.n, err
			}
			buf = buf[:0]
		}
	}
	return cw.n, nil
}

// AppendValue appends the commands that recreate one key: its value, then
// a PEXPIREAT if expireAt is not 0.
func AppendValue(buf []byte, key string, v store.Value, expireAt int64) []byte {
	buf = appendValue(buf, key, v)
	if expireAt != 0 {
		buf = AppendCommand(buf, []byte("PEXPIREAT"), []byte(key), strconv.AppendInt(nil, expireAt, 10))
	}
	return buf
}

func appendValue(buf []byte, key string, v store.Value) []byte {
	k := []byte(key)
	switch v := v.(type) {
	case *store.String:
		return AppendCommand(buf, []byte("SET"), k, v.Bytes())
	case *store.List:
		items := make([][]byte, 0, v.Len())
		v.Range(0, v.Len()-1, func(b []byte) bool {
			items = append(items, b)
			return true
		})
		return appendItems(buf, "RPUSH", k, len(items), 1, func(dst []byte, i int) []byte {
			return AppendBulk(dst, items[i])
		})
	case *store.Set:
		members := v.Members()
		return appendItems(buf, "SADD", k, len(members), 1, func(dst []byte, i int) []byte {
			return AppendBulk(dst, []byte(members[i]))
		})
	case *store.ZSet:
		type item struct {
			member []byte
			score  float64
		}
		items := make([]item, 0, v.Len())
		v.Ascend(0, func(m []byte, s float64) bool {
			items = append(items, item{m, s})
			return true
		})
		return appendItems(buf, "ZADD", k, len(items), 2, func(dst []byte, i int) []byte {
			dst = AppendBulk(dst, formatDouble(items[i].score))
			return AppendBulk(dst, items[i].member)
		})
	case *store.Hash:
		fields := v.Fields()
		return appendItems(buf, "HMSET", k, len(fields), 2, func(dst []byte, i int) []byte {
			dst = AppendBulk(dst, []byte(fields[i].Name))
			return AppendBulk(dst, []byte(fields[i].Value))
		})
	case *store.Stream:
		return appendStream(buf, k, v)
	}
	return buf
}

// appendStream writes a stream as rewriteStreamObject does: an XADD per
// entry (or XADD MAXLEN 0 0-1 x y for an empty stream), XSETID with the
// counters, then per group XGROUP CREATE ... ENTRIESREAD, and per consumer
// an XCLAIM ... FORCE of each pending entry, or XGROUP CREATECONSUMER.
func appendStream(buf, k []byte, s *store.Stream) []byte {
	id := func(id store.StreamID) []byte { return id.Append(nil) }
	num := func(n int64) []byte { return strconv.AppendInt(nil, n, 10) }
	if s.Len() > 0 {
		it := s.Iter(store.StreamID{}, store.MaxStreamID, false)
		for {
			eid, ok := it.Next()
			if !ok {
				break
			}
			args := append([][]byte{[]byte("XADD"), k, id(eid)}, it.Fields(nil)...)
			buf = AppendCommand(buf, args...)
		}
	} else {
		buf = AppendCommand(buf, []byte("XADD"), k, []byte("MAXLEN"), []byte("0"), []byte("0-1"), []byte("x"), []byte("y"))
	}
	buf = AppendCommand(buf, []byte("XSETID"), k, id(s.LastID()), []byte("ENTRIESADDED"), num(int64(s.EntriesAdded())),
		[]byte("MAXDELETEDID"), id(s.MaxDeletedID()))
	for _, g := range s.Groups() {
		name := []byte(g.Name)
		buf = AppendCommand(buf, []byte("XGROUP"), []byte("CREATE"), k, name, id(g.LastID), []byte("ENTRIESREAD"), num(g.EntriesRead))
		for _, c := range g.Consumers() {
			if c.PEL.Len() == 0 {
				buf = AppendCommand(buf, []byte("XGROUP"), []byte("CREATECONSUMER"), k, name, []byte(c.Name))
				continue
			}
			c.PEL.Each(func(nack *store.StreamNACK) bool {
				buf = AppendCommand(buf, []byte("XCLAIM"), k, name, []byte(c.Name), []byte("0"), id(nack.ID),
					[]byte("TIME"), num(nack.DeliveryTime), []byte("RETRYCOUNT"), num(int64(nack.DeliveryCount)),
					[]byte("JUSTID"), []byte("FORCE"))
				return true
			})
		}
	}
	return buf
}

// appendItems writes n items as commands of at most ItemsPerCommand items,
// each item width bulks long.
func appendItems(buf []byte, name string, key []byte, n, width int, item func(dst []byte, i int) []byte) []byte {
	for i := 0; i < n; {
		batch := min(n-i, ItemsPerCommand)
		buf = append(buf, '*')
		buf = strconv.AppendInt(buf, int64(2+batch*width), 10)
		buf = append(buf, '\r', '\n')
		buf = AppendBulk(buf, []byte(name))
		buf = AppendBulk(buf, key)
		for j := 0; j < batch; j++ {
			buf = item(buf, i+j)
		}
		i += batch
	}
	return buf
}

// formatDouble is C's "%.17g", as Redis's rioWriteBulkDouble.
func formatDouble(f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return []byte("inf")
	case math.IsInf(f, -1):
		return []byte("-inf")
	}
	return strconv.AppendFloat(nil, f, 'g', 17, 64)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
