package servertest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/resp"
	"github.com/floodgate/floodgate/store"
)

// ErrKeyNotFound is returned by the inspection methods for a missing key
// (or hash field, or sorted-set member).
var ErrKeyNotFound = errors.New("floodgate: key not found")

// ErrWrongType is returned by the inspection methods for a key of another
// type (WRONGTYPE).
var ErrWrongType = store.ErrWrongType

// Database is a view of one database of a server, for seeding and
// inspecting keys without a client. Every method runs under the execution
// lock, as a command would, so it is safe while clients are connected.
type Database struct {
	srv   *Server
	index int
}

// do runs fn on the database with the execution lock held.
func (d *Database) do(fn func(db *store.DB)) {
	d.srv.Do(func() { fn(d.srv.Store().DB(d.index)) })
}

// Get returns the string value of key.
func (d *Database) Get(key string) (value string, err error) {
	d.do(func(db *store.DB) {
		var s *store.String
		if s, err = stringAt(db, key); err == nil {
			value = string(s.Bytes())
		}
	})
	return value, err
}

// valueAt returns the value of type V at key, ErrKeyNotFound or
// ErrWrongType.
func valueAt[V store.Value](db *store.DB, key string) (V, error) {
	if db.GetString(key) == nil {
		var none V
		return none, ErrKeyNotFound
	}
	return store.ValueAt[V](db, []byte(key))
}

func stringAt(db *store.DB, key string) (*store.String, error) {
	return valueAt[*store.String](db, key)
}

// Set sets key to the string value, replacing any value and TTL, as SET.
func (d *Database) Set(key, value string) {
	d.do(func(db *store.DB) { db.Set([]byte(key), store.NewString([]byte(value)), 0) })
}

// Incr adds delta to the integer at key (created at 0), as INCRBY, and
// returns the new value.
func (d *Database) Incr(key string, delta int64) (n int64, err error) {
	d.do(func(db *store.DB) { n, err = db.IncrBy([]byte(key), delta) })
	return n, err
}

// TTL returns the time key has left to live (millisecond precision), or 0
// if it has no TTL or does not exist.
func (d *Database) TTL(key string) (ttl time.Duration) {
	d.do(func(db *store.DB) {
		if e := db.GetString(key); e != nil && db.ExpireAt(e) != 0 {
			ttl = db.TTL(e)
		}
	})
	return ttl
}

// SetTTL sets key's time to live, as PEXPIRE does (a ttl under a
// millisecond deletes the key); a ttl <= 0 removes the TTL instead, as
// PERSIST.
func (d *Database) SetTTL(key string, ttl time.Duration) (err error) {
	d.do(func(db *store.DB) {
		e := db.GetString(key)
		switch {
		case e == nil:
			err = ErrKeyNotFound
		case ttl <= 0:
			db.SetExpire(e, 0)
		default:
			db.Expire(e, db.Store().Now()+ttl.Milliseconds()) // PEXPIRE's
		}
	})
	return err
}

// Exists reports whether key exists.
func (d *Database) Exists(key string) (ok bool) {
	d.do(func(db *store.DB) { ok = db.GetString(key) != nil })
	return ok
}

// Del deletes key and reports whether it existed.
func (d *Database) Del(key string) (ok bool) {
	d.do(func(db *store.DB) { ok = db.Delete([]byte(key)) })
	return ok
}

// Keys returns every key, sorted.
func (d *Database) Keys() []string {
	var keys []string
	d.do(func(db *store.DB) {
		db.Each(func(e *store.Entry) { keys = append(keys, e.Key()) })
	})
	sort.Strings(keys)
	return keys
}

// FlushDB deletes every key of the database.
func (d *Database) FlushDB() { d.do(func(db *store.DB) { db.Flush() }) }

// Type returns the key's type as TYPE names it ("string", "zset", ...), or
// "none".
func (d *Database) Type(key string) (kind string) {
	d.do(func(db *store.DB) {
		kind = store.KindNone.String()
		if e := db.GetString(key); e != nil {
			kind = e.Kind().String()
		}
	})
	return kind
}

// The Server's own inspection methods act on the selected database
// (0 unless Select).

// Get returns the string value of key in the selected database.
func (s *Server) Get(key string) (string, error) { return s.db().Get(key) }

// Set sets key to value in the selected database, as SET (replacing any TTL).
func (s *Server) Set(key, value string) { s.db().Set(key, value) }

// Incr adds delta to the integer at key in the selected database, as INCRBY.
func (s *Server) Incr(key string, delta int64) (int64, error) { return s.db().Incr(key, delta) }

// TTL returns the time key in the selected database has left to live, or 0.
func (s *Server) TTL(key string) time.Duration { return s.db().TTL(key) }

// SetTTL sets the time to live of key in the selected database (<= 0: none).
func (s *Server) SetTTL(key string, ttl time.Duration) error { return s.db().SetTTL(key, ttl) }

// Exists reports whether key exists in the selected database.
func (s *Server) Exists(key string) bool { return s.db().Exists(key) }

// Del deletes key from the selected database and reports whether it existed.
func (s *Server) Del(key string) bool { return s.db().Del(key) }

// Keys returns the keys of the selected database, sorted.
func (s *Server) Keys() []string { return s.db().Keys() }

// Type returns the type of key in the selected database, as TYPE.
func (s *Server) Type(key string) string { return s.db().Type(key) }

// FlushAll deletes every key of every database.
func (s *Server) FlushAll() { s.Do(s.Store().FlushAll) }

// CheckGet fails t unless key holds the string want in the selected database.
func (s *Server) CheckGet(t testing.TB, key, want string) {
	t.Helper()
	s.db().CheckGet(t, key, want)
}

// CheckTTL fails t unless key in the selected database has exactly want left to live
// (0: no TTL).
func (s *Server) CheckTTL(t testing.TB, key string, want time.Duration) {
	t.Helper()
	s.db().CheckTTL(t, key, want)
}

// CheckExists fails t unless key exists in the selected database.
func (s *Server) CheckExists(t testing.TB, key string) {
	t.Helper()
	s.db().CheckExists(t, key)
}

// CheckNotExists fails t if key exists in the selected database.
func (s *Server) CheckNotExists(t testing.TB, key string) {
	t.Helper()
	s.db().CheckNotExists(t, key)
}

// CheckGet fails t unless key holds the string want.
func (d *Database) CheckGet(t testing.TB, key, want string) {
	t.Helper()
	got, err := d.Get(key)
	if err != nil {
		t.Errorf("floodgate: db %d: GET %q: %v (want %q)", d.index, key, err, want)
		return
	}
	if got != want {
		t.Errorf("floodgate: db %d: GET %q = %q, want %q", d.index, key, got, want)
	}
}

// CheckTTL fails t unless key has exactly want left to live (0: no TTL).
// With a manual clock the TTL is exact; with the real clock it runs down
// as the test runs, so compare with TTL yourself.
func (d *Database) CheckTTL(t testing.TB, key string, want time.Duration) {
	t.Helper()
	if !d.Exists(key) {
		t.Errorf("floodgate: db %d: TTL %q: %v (want %v)", d.index, key, ErrKeyNotFound, want)
		return
	}
	if got := d.TTL(key); got != want {
		t.Errorf("floodgate: db %d: TTL %q = %v, want %v", d.index, key, got, want)
	}
}

// CheckExists fails t unless key exists.
func (d *Database) CheckExists(t testing.TB, key string) {
	t.Helper()
	if !d.Exists(key) {
		t.Errorf("floodgate: db %d: key %q does not exist, want it to", d.index, key)
	}
}

// CheckNotExists fails t if key exists.
func (d *Database) CheckNotExists(t testing.TB, key string) {
	t.Helper()
	if d.Exists(key) {
		t.Errorf("floodgate: db %d: key %q exists (%s), want it not to", d.index, key, d.Type(key))
	}
}

// Dump returns a readable listing of every non-empty database: one key per
// line, sorted, with its value and TTL; members and fields of collections
// are listed below their key.
//
//	db 0
//	  counter "5" ttl 59s
//	  visits zset
//	    1 "alice"
func (s *Server) Dump() string {
	var b strings.Builder
	for i := 0; i < s.Store().Databases(); i++ {
		b.WriteString(s.DB(i).Dump())
	}
	return b.String()
}

// Dump returns a readable listing of the database (see Server.Dump), or ""
// if it is empty.
func (d *Database) Dump() string {
	var b strings.Builder
	d.do(func(db *store.DB) {
		var entries []*store.Entry
		db.Each(func(e *store.Entry) { entries = append(entries, e) })
		if len(entries) == 0 {
			return
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Key() < entries[j].Key() })
		fmt.Fprintf(&b, "db %d\n", d.index)
		for _, e := range entries {
			summary, members := dumpValue(e.Value())
			fmt.Fprintf(&b, "  %s %s", strconv.Quote(e.Key()), summary)
			if db.ExpireAt(e) != 0 {
				fmt.Fprintf(&b, " ttl %v", db.TTL(e))
			}
			b.WriteByte('\n')
			for _, m := range members {
				b.WriteString("    " + m + "\n")
			}
		}
	})
	return b.String()
}

// dumpValue describes a value for Dump: a one-line summary, and a line per
// member of a collection.
func dumpValue(v store.Value) (summary string, members []string) {
	switch v := v.(type) {
	case *store.String:
		return strconv.Quote(string(v.Bytes())), nil
	case *store.ZSet:
		v.Ascend(0, func(member []byte, score float64) bool {
			members = append(members, formatScore(score)+" "+strconv.Quote(string(member)))
			return true
		})
		return "zset", members
	case *store.List:
		for _, e := range listElems(v) {
			members = append(members, strconv.Quote(e))
		}
		return "list", members
	case *store.Hash:
		for _, f := range v.Fields() {
			members = append(members, strconv.Quote(f.Name)+": "+strconv.Quote(f.Value))
		}
		return "hash", members
	}
	return v.Kind().String() + " (" + v.Encoding() + ")", nil
}

// formatScore writes a score for people: the shortest exact form, without
// an exponent for the range timestamps and counters live in.
func formatScore(f float64) string {
	switch abs := math.Abs(f); {
	case math.IsInf(f, 0):
		return string(resp.AppendDouble(nil, f))
	case f == 0 || (abs >= 1e-4 && abs < 1e21):
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func zsetAt(db *store.DB, key string) (*store.ZSet, error) {
	return valueAt[*store.ZSet](db, key)
}

// ZAdd sets member's score in the sorted set at key (created if needed),
// as ZADD, and reports whether the member is new.
func (d *Database) ZAdd(key string, score float64, member string) (added bool, err error) {
	if math.IsNaN(score) {
		return false, errors.New("floodgate: ZAdd: score is NaN")
	}
	d.do(func(db *store.DB) {
		var res store.ZAddResult
		res, err = db.ZAdd([]byte(key), store.ZAddFlags{}, []store.ScoredMember{{Score: score, Member: []byte(member)}})
		added = res.Added == 1
	})
	return added, err
}

// ZMembers returns the members of the sorted set at key, by ascending
// score (ZRANGE key 0 -1).
func (d *Database) ZMembers(key string) (members []string, err error) {
	d.do(func(db *store.DB) {
		var z *store.ZSet
		if z, err = zsetAt(db, key); err != nil {
			return
		}
		members = make([]string, 0, z.Len())
		z.Ascend(0, func(member []byte, _ float64) bool {
			members = append(members, string(member))
			return true
		})
	})
	return members, err
}

// ZScore returns member's score in the sorted set at key; a missing member
// is ErrKeyNotFound.
func (d *Database) ZScore(key, member string) (score float64, err error) {
	d.do(func(db *store.DB) {
		var z *store.ZSet
		if z, err = zsetAt(db, key); err != nil {
			return
		}
		var ok bool
		if score, ok = z.Score([]byte(member)); !ok {
			err = ErrKeyNotFound
		}
	})
	return score, err
}

// CheckZMembers fails t unless the sorted set at key holds exactly want,
// in ascending score order.
func (d *Database) CheckZMembers(t testing.TB, key string, want ...string) {
	t.Helper()
	got, err := d.ZMembers(key)
	if err != nil {
		t.Errorf("floodgate: db %d: ZRANGE %q 0 -1: %v (want %q)", d.index, key, err, want)
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("floodgate: db %d: ZRANGE %q 0 -1 = %q, want %q", d.index, key, got, want)
	}
}

// ZAdd sets member's score in the sorted set at key in the selected database.
func (s *Server) ZAdd(key string, score float64, member string) (bool, error) {
	return s.db().ZAdd(key, score, member)
}

// ZMembers returns the members of the sorted set at key in the selected database.
func (s *Server) ZMembers(key string) ([]string, error) { return s.db().ZMembers(key) }

// ZScore returns member's score in the sorted set at key in the selected database.
func (s *Server) ZScore(key, member string) (float64, error) { return s.db().ZScore(key, member) }

// CheckZMembers fails t unless the sorted set at key in the selected database holds
// exactly want, in ascending score order.
func (s *Server) CheckZMembers(t testing.TB, key string, want ...string) {
	t.Helper()
	s.db().CheckZMembers(t, key, want...)
}

// HSet sets fields of the hash at key (created if needed), as HSET:
// HSet(key, "field1", "value1", "field2", "value2", ...).
func (d *Database) HSet(key string, fieldValues ...string) (err error) {
	if len(fieldValues) == 0 || len(fieldValues)%2 != 0 {
		return errors.New("floodgate: HSet: want field and value pairs")
	}
	args := make([][]byte, len(fieldValues))
	for i, a := range fieldValues {
		args[i] = []byte(a)
	}
	d.do(func(db *store.DB) { _, err = db.HSet([]byte(key), args) })
	return err
}

// HGet returns a field of the hash at key; a missing field is
// ErrKeyNotFound.
func (d *Database) HGet(key, field string) (value string, err error) {
	d.do(func(db *store.DB) {
		var h *store.Hash
		if h, err = valueAt[*store.Hash](db, key); err != nil {
			return
		}
		var ok bool
		if value, ok = h.Get([]byte(field)); !ok {
			err = ErrKeyNotFound
		}
	})
	return value, err
}

// HSet sets fields of the hash at key in the selected database.
func (s *Server) HSet(key string, fieldValues ...string) error {
	return s.db().HSet(key, fieldValues...)
}

// HGet returns a field of the hash at key in the selected database.
func (s *Server) HGet(key, field string) (string, error) { return s.db().HGet(key, field) }

// byteArgs converts strings to the [][]byte the keyspace operations take.
func byteArgs(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// SAdd adds members to the set at key (created if needed), as SADD, and
// returns how many are new.
func (d *Database) SAdd(key string, members ...string) (added int, err error) {
	d.do(func(db *store.DB) {
		var n int64
		n, err = db.SAdd([]byte(key), byteArgs(members))
		added = int(n)
	})
	return added, err
}

// SRem removes members from the set at key, as SREM, and returns how many
// were there; an emptied set is deleted.
func (d *Database) SRem(key string, members ...string) (removed int, err error) {
	d.do(func(db *store.DB) {
		var n int64
		n, err = db.SRem([]byte(key), byteArgs(members))
		removed = int(n)
	})
	return removed, err
}

// SMembers returns the members of the set at key, sorted.
func (d *Database) SMembers(key string) (members []string, err error) {
	d.do(func(db *store.DB) {
		var s *store.Set
		if s, err = valueAt[*store.Set](db, key); err == nil {
			members = s.Members()
			slices.Sort(members)
		}
	})
	return members, err
}

// SIsMember reports whether member is in the set at key.
func (d *Database) SIsMember(key, member string) (ok bool, err error) {
	d.do(func(db *store.DB) {
		var s *store.Set
		if s, err = valueAt[*store.Set](db, key); err == nil {
			ok = s.Has([]byte(member))
		}
	})
	return ok, err
}

// CheckSet fails t unless the set at key holds exactly want, in any order.
func (d *Database) CheckSet(t testing.TB, key string, want ...string) {
	t.Helper()
	got, err := d.SMembers(key)
	if err != nil {
		t.Errorf("floodgate: db %d: SMEMBERS %q: %v (want %q)", d.index, key, err, want)
		return
	}
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, slices.Compact(want)) {
		t.Errorf("floodgate: db %d: SMEMBERS %q = %q, want %q", d.index, key, got, want)
	}
}

// SAdd adds members to the set at key in the selected database.
func (s *Server) SAdd(key string, members ...string) (int, error) {
	return s.db().SAdd(key, members...)
}

// SRem removes members from the set at key in the selected database.
func (s *Server) SRem(key string, members ...string) (int, error) {
	return s.db().SRem(key, members...)
}

// SMembers returns the members of the set at key in the selected database, sorted.
func (s *Server) SMembers(key string) ([]string, error) { return s.db().SMembers(key) }

// SIsMember reports whether member is in the set at key in the selected database.
func (s *Server) SIsMember(key, member string) (bool, error) { return s.db().SIsMember(key, member) }

// CheckSet fails t unless the set at key in the selected database holds exactly want.
func (s *Server) CheckSet(t testing.TB, key string, want ...string) {
	t.Helper()
	s.db().CheckSet(t, key, want...)
}

// Seed makes the random picks of SRANDMEMBER, SPOP, HRANDFIELD,
// ZRANDMEMBER, RANDOMKEY and eviction reproducible, as miniredis's Seed:
// two servers seeded alike, sent the same commands, answer alike, and
// seeding again repeats the sequence. Restart starts a new generator, as a
// new process would: seed again after it.
func (s *Server) Seed(seed int) { s.Server.Seed(uint64(seed)) }
