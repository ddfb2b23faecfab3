package store

import (
	"math"
	"unsafe"
)

// Keyspace operations: what a command does to the keyspace, without its
// argument parsing or its reply. The server's command handlers and the test
// double's direct API (servertest's Database.Incr, ZAdd, HSet) both call
// these, as miniredis's db.stringIncr serves both INCR and RedisDB.Incr.

// ValueAt returns the value of type V at key: the zero V (nil) and no error
// if the key does not exist, ErrWrongType if it holds another type.
func ValueAt[V Value](db *DB, key []byte) (V, error) {
	var v V
	e := db.Get(key)
	if e == nil {
		return v, nil
	}
	v, ok := e.Value().(V)
	if !ok {
		return v, ErrWrongType
	}
	return v, nil
}

// IncrBy adds delta to the integer at key, creating it at 0, as INCRBY. The
// key keeps its TTL, as with Redis's dbOverwrite.
func (db *DB) IncrBy(key []byte, delta int64) (int64, error) {
	db.PreWrite(key) // these change values in place; callers other than commands (the test double) skip invoke's hook
	e := db.Get(key)
	if e == nil {
		db.Set(key, NewInt(delta), 0)
		return delta, nil
	}
	s, ok := e.str()
	if !ok {
		return 0, ErrWrongType
	}
	n, err := s.plus(delta)
	if err != nil {
		return 0, err
	}
	db.storeInt(e, s, n)
	db.notifyWatchers(key)
	return n, nil
}

// storeInt writes the integer n over e's string s as Redis's
// incrDecrCommand does: a result of 0..9999 becomes the shared integer,
// another one is written in place unless the old value is shared.
func (db *DB) storeInt(e *Entry, s *String, n int64) {
	switch {
	case !db.store.sharing():
		// Redis makes a new object unless the old one is an integer of
		// its own and the result is no small integer; either way one of
		// its own.
		if s.isShared() {
			e.setStr(ownInt(n))
		} else {
			*s = *ownInt(n)
		}
		db.account(e)
	case n >= 0 && n < sharedIntCount, s.isShared():
		e.setStr(intString(n))
		db.account(e)
	case s.isInt():
		s.SetInt(n) // an integer's size does not change
	default:
		s.SetInt(n)
		db.account(e)
	}
}

// UnshareString returns the string at key ready to be changed in place,
// s being its value: a shared integer is first replaced by a copy of its
// own (Redis's dbUnshareStringValue).
func (db *DB) UnshareString(key []byte, s *String) *String {
	if !s.isShared() {
		return s
	}
	c := &String{n: s.n}
	if e := db.keys.findBytes(key); e != nil && e.val == unsafe.Pointer(s) {
		e.setStr(c)
		db.account(e)
	}
	return c
}

// ZAddFlags are ZADD's options.
type ZAddFlags struct {
	NX, XX, GT, LT, Incr bool
}

// ScoredMember is a sorted-set member with its score (ZADD's pairs).
type ScoredMember struct {
	Score  float64
	Member []byte
}

// ZAddResult says what ZAdd did: members added, scores updated, members
// processed (not skipped by NX, XX, GT or LT) and the last processed score
// (ZADD INCR's reply).
type ZAddResult struct {
	Added, Updated, Processed int
	Last                      float64
}

// ZAdd applies scored members to the sorted set at key as Redis's zsetAdd
// does, creating the set unless XX. An INCR that makes a NaN stops with
// ErrScoreNaN, keeping what the earlier members did.
func (db *DB) ZAdd(key []byte, f ZAddFlags, members []ScoredMember) (res ZAddResult, err error) {
	db.PreWrite(key) // these change values in place; callers other than commands (the test double) skip invoke's hook
	z, err := ValueAt[*ZSet](db, key)
	if err != nil || z == nil && f.XX {
		return res, err
	}
	isNew := z == nil
	if isNew {
		z = NewZSet()
	}
	defer func() {
		switch {
		case isNew && z.Len() > 0:
			db.Set(key, z, 0)
		case !isNew && res.Added+res.Updated > 0:
			db.Modified(key)
		}
	}()
	for i, m := range members {
		score := m.Score
		cur, exists := z.Score(m.Member)
		switch {
		case exists && f.NX, !exists && f.XX:
			continue
		case exists:
			if f.Incr {
				score += cur
				if math.IsNaN(score) {
					return res, ErrScoreNaN
				}
			}
			if f.LT && score >= cur || f.GT && score <= cur {
				continue
			}
			if score != cur {
				z.Add(m.Member, score, &db.store.enc)
				res.Updated++
			}
		default:
			packed := z.big == nil
			z.Add(m.Member, score, &db.store.enc)
			if packed && z.big != nil {
				z.big.reserve(len(members) - i - 1)
			}
			res.Added++
		}
		res.Processed++
		res.Last = score
	}
	return res, nil
}

// HSet sets fields of the hash at key (created if needed) from field, value
// pairs, as HSET, and returns how many fields are new.
func (db *DB) HSet(key []byte, fieldValues [][]byte) (added int, err error) {
	db.PreWrite(key) // these change values in place; callers other than commands (the test double) skip invoke's hook
	h, err := ValueAt[*Hash](db, key)
	if err != nil {
		return 0, err
	}
	created := h == nil
	if created {
		h = NewHash()
	}
	added = h.SetAll(fieldValues, &db.store.enc)
	switch {
	case h.Len() == 0:
	case created:
		db.Set(key, h, 0)
	default:
		db.Modified(key)
	}
	return added, nil
}

// Expire gives the entry e (of key) the deadline at, in unix ms, as
// EXPIRE and its siblings do once their options allow it: a deadline not in
// the future deletes the key at once.
func (db *DB) Expire(e *Entry, at int64) {
	if at <= db.store.Now() {
		db.Delete([]byte(e.Key()))
		return
	}
	db.SetExpire(e, at)
}

// SAdd adds members to the set at key, created if needed, and returns
// how many are new (SADD, and the test double's SAdd);
// ErrWrongType for a key of another type.
func (db *DB) SAdd(key []byte, members [][]byte) (int64, error) {
	db.PreWrite(key) // these change values in place; callers other than commands (the test double) skip invoke's hook
	var s *Set
	if e := db.Get(key); e != nil {
		var ok bool
		if s, ok = e.Value().(*Set); !ok {
			return 0, ErrWrongType
		}
	}
	created := s == nil
	if created {
		s = NewSet()
	}
	added := int64(s.AddAll(members, &db.store.enc))
	switch {
	case created:
		db.Set(key, s, 0)
	case added > 0:
		db.Modified(key)
	}
	return added, nil
}

// SRem removes members from the set at key and returns how many were
// there, deleting the emptied set as Redis does (SREM, and the test
// double's SRem); ErrWrongType for a key of another type.
func (db *DB) SRem(key []byte, members [][]byte) (int64, error) {
	db.PreWrite(key) // these change values in place; callers other than commands (the test double) skip invoke's hook
	e := db.Get(key)
	if e == nil {
		return 0, nil
	}
	s, ok := e.Value().(*Set)
	if !ok {
		return 0, ErrWrongType
	}
	var removed int64
	for _, m := range members {
		if s.Remove(m) {
			removed++
		}
	}
	switch {
	case removed == 0:
	case s.Len() == 0:
		db.Delete(key)
	default:
		db.Modified(key)
	}
	return removed, nil
}

// LPush inserts vals at the head of the list at key, created if needed, as
// LPUSH (each in turn, so the last ends up first), and returns the list's
// length; ErrWrongType for a key of another type.
func (db *DB) LPush(key []byte, vals ...[]byte) (int, error) {
	return db.push(key, true, false, vals)
}

// RPush appends vals to the list at key, created if needed, as RPUSH.
func (db *DB) RPush(key []byte, vals ...[]byte) (int, error) {
	return db.push(key, false, false, vals)
}

// LPushX is LPush on an existing list only: 0 when there is none.
func (db *DB) LPushX(key []byte, vals ...[]byte) (int, error) {
	return db.push(key, true, true, vals)
}

// RPushX is RPush on an existing list only: 0 when there is none.
func (db *DB) RPushX(key []byte, vals ...[]byte) (int, error) {
	return db.push(key, false, true, vals)
}

func (db *DB) push(key []byte, front, onlyExisting bool, vals [][]byte) (int, error) {
	db.PreWrite(key)
	l, err := ValueAt[*List](db, key)
	if err != nil || l == nil && onlyExisting {
		return 0, err
	}
	created := l == nil
	if created {
		l = db.store.enc.NewList()
	}
	l.Push(front, vals...)
	if created {
		db.Set(key, l, 0) // wakes clients blocked on key (OnReady)
	} else {
		db.Modified(key)
	}
	return l.Len(), nil
}

// LPop removes and returns up to count elements from the head of the list
// at key, as LPOP with a count, deleting the list once empty (Redis never
// keeps an empty one); nil when there is no list.
func (db *DB) LPop(key []byte, count int) ([][]byte, error) {
	return db.pop(key, true, count)
}

// RPop is LPop from the tail, as RPOP.
func (db *DB) RPop(key []byte, count int) ([][]byte, error) {
	return db.pop(key, false, count)
}

func (db *DB) pop(key []byte, front bool, count int) ([][]byte, error) {
	l, err := ValueAt[*List](db, key)
	if err != nil || l == nil {
		return nil, err
	}
	return db.PopListRange(key, l, front, count), nil
}

// PopListRange pops up to count elements from one end of l, the list at
// key, as one range (LPOP with a count, LMPOP), and deletes key if that
// emptied it.
func (db *DB) PopListRange(key []byte, l *List, front bool, count int) [][]byte {
	db.PreWrite(key)
	elems := l.PopRange(front, count)
	db.ListChanged(key, l)
	return elems
}

// PopList pops up to count elements from one end of l, the list at key,
// and deletes key if that emptied it.
func (db *DB) PopList(key []byte, l *List, front bool, count int) [][]byte {
	db.PreWrite(key)
	n := min(count, l.Len())
	elems := make([][]byte, n)
	for i := range elems {
		elems[i] = l.Pop(front)
	}
	db.ListChanged(key, l)
	return elems
}

// ListChanged publishes a change made to l, the list at key, in place: it
// deletes the list if it became empty, and signals the key otherwise.
func (db *DB) ListChanged(key []byte, l *List) {
	if l.Len() == 0 {
		db.Delete(key)
		return
	}
	db.Modified(key)
}

// LMove pops an element from one end of the list at src and pushes it at
// one end of the list at dst (which may be src, created if needed), as
// LMOVE; nil when src holds no list. ErrWrongType if either key holds
// another type (and then nothing moves).
func (db *DB) LMove(src, dst []byte, fromFront, toFront bool) ([]byte, error) {
	db.PreWrite(src)
	db.PreWrite(dst)
	sl, err := ValueAt[*List](db, src)
	if err != nil || sl == nil {
		return nil, err
	}
	dl, err := ValueAt[*List](db, dst)
	if err != nil {
		return nil, err
	}
	v := sl.Pop(fromFront)
	if dl == nil {
		dl = db.store.enc.NewList()
		dl.Push(toFront, v)
		db.Set(dst, dl, 0)
	} else {
		dl.Push(toFront, v)
		db.Modified(dst)
	}
	db.ListChanged(src, sl)
	return v, nil
}
