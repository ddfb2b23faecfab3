package servertest

import (
	"errors"
	"math"
	"slices"
	"strconv"

	"github.com/floodgate/floodgate/store"
)

// The helpers in this file, most of them under miniredis's names, run the
// command itself (server.Server.Call: the same table entry and handler a
// client's command runs), so they cannot disagree with it: HIncrByFloat is
// HINCRBYFLOAT, with its parsing, its errors and its rounding.

// ErrKeyExists is Copy's error when the destination exists (COPY without
// REPLACE copies nothing then).
var ErrKeyExists = errors.New("floodgate: destination key exists")

// call runs a command on the database; a WRONGTYPE reply is ErrWrongType,
// any other error reply a server.ReplyError with Redis's text.
func (d *Database) call(args ...string) (any, error) {
	reply, err := d.srv.Call(d.index, args...)
	if err != nil && err.Error() == store.ErrWrongType.Error() {
		err = ErrWrongType
	}
	return reply, err
}

// existing fails with ErrKeyNotFound if key does not exist, for the
// helpers whose command answers a missing key as an empty one.
func (d *Database) existing(key string) error {
	if !d.Exists(key) {
		return ErrKeyNotFound
	}
	return nil
}

func callInt(reply any, err error) (int64, error) {
	n, _ := reply.(int64)
	return n, err
}

func callFloat(reply any, err error) (float64, error) {
	if err != nil {
		return 0, err
	}
	s, _ := reply.(string)
	return strconv.ParseFloat(s, 64)
}

func callStrings(reply any, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	elems, _ := reply.([]any)
	out := make([]string, len(elems))
	for i, e := range elems {
		out[i], _ = e.(string)
	}
	return out, nil
}

// replyFloat reads a score: a double, or a bulk string.
func replyFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case string:
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil
	}
	return 0, false
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// IncrByFloat adds delta to the number at key (created at 0), as
// INCRBYFLOAT, and returns the new value.
func (d *Database) IncrByFloat(key string, delta float64) (float64, error) {
	return callFloat(d.call("incrbyfloat", key, formatFloat(delta)))
}

// Unlink deletes key, as UNLINK, and reports whether it existed.
func (d *Database) Unlink(key string) bool {
	n, _ := callInt(d.call("unlink", key))
	return n == 1
}

// HKeys returns the fields of the hash at key, sorted (HKEYS answers them
// in the hash's order).
func (d *Database) HKeys(key string) ([]string, error) {
	if err := d.existing(key); err != nil {
		return nil, err
	}
	fields, err := callStrings(d.call("hkeys", key))
	slices.Sort(fields)
	return fields, err
}

// HDel deletes fields of the hash at key, as HDEL, and returns how many
// there were; an emptied hash is deleted.
func (d *Database) HDel(key string, fields ...string) (int, error) {
	n, err := callInt(d.call(append([]string{"hdel", key}, fields...)...))
	return int(n), err
}

// HIncrBy adds delta to the integer in field of the hash at key, as
// HINCRBY, and returns the new value.
func (d *Database) HIncrBy(key, field string, delta int64) (int64, error) {
	return callInt(d.call("hincrby", key, field, strconv.FormatInt(delta, 10)))
}

// HIncrByFloat adds delta to the number in field of the hash at key, as
// HINCRBYFLOAT, and returns the new value.
func (d *Database) HIncrByFloat(key, field string, delta float64) (float64, error) {
	return callFloat(d.call("hincrbyfloat", key, field, formatFloat(delta)))
}

// SetAdd is SAdd, under miniredis's name.
func (d *Database) SetAdd(key string, members ...string) (int, error) {
	return d.SAdd(key, members...)
}

// Members is SMembers, under miniredis's name: the members, sorted.
func (d *Database) Members(key string) ([]string, error) { return d.SMembers(key) }

// IsMember is SIsMember, under miniredis's name.
func (d *Database) IsMember(key, member string) (bool, error) { return d.SIsMember(key, member) }

// SCard returns the number of members of the set at key, as SCARD (0 for
// a missing key).
func (d *Database) SCard(key string) (int, error) {
	n, err := callInt(d.call("scard", key))
	return int(n), err
}

// SRandMember returns a random member of the set at key, as SRANDMEMBER;
// a missing key is ErrKeyNotFound.
func (d *Database) SRandMember(key string) (string, error) {
	reply, err := d.call("srandmember", key)
	if err == nil && reply == nil {
		err = ErrKeyNotFound
	}
	member, _ := reply.(string)
	return member, err
}

// SortedSet returns the members of the sorted set at key with their
// scores (ZRANGE key 0 -1 WITHSCORES).
func (d *Database) SortedSet(key string) (map[string]float64, error) {
	if err := d.existing(key); err != nil {
		return nil, err
	}
	reply, err := d.call("zrange", key, "0", "-1", "withscores")
	if err != nil {
		return nil, err
	}
	pairs, _ := reply.([]any)
	set := make(map[string]float64, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		member, _ := pairs[i].(string)
		set[member], _ = replyFloat(pairs[i+1])
	}
	return set, nil
}

// ZRem removes member from the sorted set at key, as ZREM, and reports
// whether it was there; a missing key is ErrKeyNotFound.
func (d *Database) ZRem(key, member string) (bool, error) {
	if err := d.existing(key); err != nil {
		return false, err
	}
	n, err := callInt(d.call("zrem", key, member))
	return n == 1, err
}

// ZMScore returns the scores of members in the sorted set at key, as
// ZMSCORE; a member that is not there has NaN, which no score can be. A
// missing key is ErrKeyNotFound.
func (d *Database) ZMScore(key string, members ...string) ([]float64, error) {
	if err := d.existing(key); err != nil {
		return nil, err
	}
	reply, err := d.call(append([]string{"zmscore", key}, members...)...)
	if err != nil {
		return nil, err
	}
	elems, _ := reply.([]any)
	scores := make([]float64, len(elems))
	for i, e := range elems {
		var ok bool
		if scores[i], ok = replyFloat(e); !ok {
			scores[i] = math.NaN() // nil: not a member
		}
	}
	return scores, nil
}

// PfAdd adds elements to the HyperLogLog at key (created if needed), as
// PFADD, and returns 1 if its estimate changed, else 0.
func (d *Database) PfAdd(key string, elems ...string) (int, error) {
	n, err := callInt(d.call(append([]string{"pfadd", key}, elems...)...))
	return int(n), err
}

// PfCount returns the estimated number of distinct elements added to the
// HyperLogLogs at keys (their union), as PFCOUNT.
func (d *Database) PfCount(keys ...string) (int, error) {
	n, err := callInt(d.call(append([]string{"pfcount"}, keys...)...))
	return int(n), err
}

// The Server's versions act on the selected database (Select).

// Select makes the Server's own helper methods (Get, Set, HSet, ...) act
// on database i, as miniredis's Select does; clients are not affected
// (they SELECT for themselves). It panics if i is out of range, as DB.
func (s *Server) Select(i int) {
	s.DB(i) // the range check
	s.selected.Store(int32(i))
}

// db is the database the Server's helpers act on.
func (s *Server) db() *Database { return s.DB(int(s.selected.Load())) }

// FlushDB deletes every key of the selected database.
func (s *Server) FlushDB() { s.db().FlushDB() }

// SwapDB swaps databases i and j, as SWAPDB (clients see each other's
// keys at once); it reports false if either is out of range.
func (s *Server) SwapDB(i, j int) bool {
	_, err := s.Call(0, "swapdb", strconv.Itoa(i), strconv.Itoa(j))
	return err == nil
}

// Copy copies key src of database srcDB to dest in database destDB, as
// COPY src dest DB destDB: ErrKeyNotFound if src does not exist,
// ErrKeyExists if dest does.
func (s *Server) Copy(srcDB int, src string, destDB int, dest string) error {
	if !s.DB(srcDB).Exists(src) {
		return ErrKeyNotFound
	}
	n, err := callInt(s.DB(srcDB).call("copy", src, dest, "db", strconv.Itoa(destDB)))
	if err == nil && n == 0 {
		err = ErrKeyExists
	}
	return err
}

// RequireAuth makes clients authenticate with AUTH password, as CONFIG
// SET requirepass: clients already connected stay authenticated, as in
// Redis; "" turns authentication off. (miniredis's RequireUserAuth needs
// ACL users, which floodgate does not have yet.)
func (s *Server) RequireAuth(password string) {
	s.Call(0, "config", "set", "requirepass", password)
}

// IncrByFloat is DB(selected).IncrByFloat.
func (s *Server) IncrByFloat(key string, delta float64) (float64, error) {
	return s.db().IncrByFloat(key, delta)
}

// Unlink is DB(selected).Unlink.
func (s *Server) Unlink(key string) bool { return s.db().Unlink(key) }

// HKeys is DB(selected).HKeys.
func (s *Server) HKeys(key string) ([]string, error) { return s.db().HKeys(key) }

// HDel is DB(selected).HDel.
func (s *Server) HDel(key string, fields ...string) (int, error) {
	return s.db().HDel(key, fields...)
}

// HIncrBy is DB(selected).HIncrBy.
func (s *Server) HIncrBy(key, field string, delta int64) (int64, error) {
	return s.db().HIncrBy(key, field, delta)
}

// HIncrByFloat is DB(selected).HIncrByFloat.
func (s *Server) HIncrByFloat(key, field string, delta float64) (float64, error) {
	return s.db().HIncrByFloat(key, field, delta)
}

// SetAdd is DB(selected).SetAdd.
func (s *Server) SetAdd(key string, members ...string) (int, error) {
	return s.db().SetAdd(key, members...)
}

// Members is DB(selected).Members.
func (s *Server) Members(key string) ([]string, error) { return s.db().Members(key) }

// IsMember is DB(selected).IsMember.
func (s *Server) IsMember(key, member string) (bool, error) { return s.db().IsMember(key, member) }

// SCard is DB(selected).SCard.
func (s *Server) SCard(key string) (int, error) { return s.db().SCard(key) }

// SRandMember is DB(selected).SRandMember.
func (s *Server) SRandMember(key string) (string, error) { return s.db().SRandMember(key) }

// SortedSet is DB(selected).SortedSet.
func (s *Server) SortedSet(key string) (map[string]float64, error) { return s.db().SortedSet(key) }

// ZRem is DB(selected).ZRem.
func (s *Server) ZRem(key, member string) (bool, error) { return s.db().ZRem(key, member) }

// ZMScore is DB(selected).ZMScore.
func (s *Server) ZMScore(key string, members ...string) ([]float64, error) {
	return s.db().ZMScore(key, members...)
}

// PfAdd is DB(selected).PfAdd.
func (s *Server) PfAdd(key string, elems ...string) (int, error) {
	return s.db().PfAdd(key, elems...)
}

// PfCount is DB(selected).PfCount.
func (s *Server) PfCount(keys ...string) (int, error) { return s.db().PfCount(keys...) }

// StreamEntry is one entry of a stream: its ID and its field/value pairs in
// order, as XRANGE answers them (miniredis's StreamEntry).
type StreamEntry struct {
	ID     string
	Values []string
}

// XAdd appends an entry to the stream at key, as XADD key id field value
// ...: id may be "*" or "ms-*", and the ID given to the entry is returned;
// values holds field/value pairs.
func (d *Database) XAdd(key, id string, values []string) (string, error) {
	reply, err := d.call(append([]string{"xadd", key, id}, values...)...)
	s, _ := reply.(string)
	return s, err
}

// Stream returns every entry of the stream at key, oldest first, as XRANGE
// key - +; ErrKeyNotFound when there is no such key.
func (d *Database) Stream(key string) ([]StreamEntry, error) {
	if err := d.existing(key); err != nil {
		return nil, err
	}
	reply, err := d.call("xrange", key, "-", "+")
	if err != nil {
		return nil, err
	}
	elems, _ := reply.([]any)
	out := make([]StreamEntry, 0, len(elems))
	for _, e := range elems {
		pair, _ := e.([]any)
		if len(pair) != 2 {
			continue
		}
		id, _ := pair[0].(string)
		values, _ := callStrings(pair[1], nil)
		out = append(out, StreamEntry{ID: id, Values: values})
	}
	return out, nil
}

// XAdd is DB(selected).XAdd.
func (s *Server) XAdd(key, id string, values []string) (string, error) {
	return s.db().XAdd(key, id, values)
}

// Stream is DB(selected).Stream.
func (s *Server) Stream(key string) ([]StreamEntry, error) { return s.db().Stream(key) }
