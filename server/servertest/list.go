package servertest

import (
	"slices"
	"testing"

	"github.com/floodgate/floodgate/store"
)

// The list helpers call the keyspace operations LPUSH, RPUSH, LPOP and RPOP
// use (store.DB.LPush and friends). A push here serves clients blocked on
// the key, as a client's push would (Server.Do serves ready keys).

// LPush inserts values at the head of the list at key (created if needed),
// as LPUSH, and returns the list's length.
func (d *Database) LPush(key string, values ...string) (n int, err error) {
	d.do(func(db *store.DB) { n, err = db.LPush([]byte(key), bytesOf(values)...) })
	return n, err
}

// RPush appends values to the list at key (created if needed), as RPUSH,
// and returns the list's length.
func (d *Database) RPush(key string, values ...string) (n int, err error) {
	d.do(func(db *store.DB) { n, err = db.RPush([]byte(key), bytesOf(values)...) })
	return n, err
}

func bytesOf(values []string) [][]byte {
	vals := make([][]byte, len(values))
	for i, v := range values {
		vals[i] = []byte(v)
	}
	return vals
}

// LPop removes and returns the first element of the list at key, as LPOP;
// a missing key is ErrKeyNotFound.
func (d *Database) LPop(key string) (string, error) { return d.pop(key, (*store.DB).LPop) }

// RPop removes and returns the last element of the list at key, as RPOP.
func (d *Database) RPop(key string) (string, error) { return d.pop(key, (*store.DB).RPop) }

func (d *Database) pop(key string, op func(*store.DB, []byte, int) ([][]byte, error)) (v string, err error) {
	d.do(func(db *store.DB) {
		var popped [][]byte
		if popped, err = op(db, []byte(key), 1); err == nil && popped == nil {
			err = ErrKeyNotFound
		}
		if len(popped) > 0 {
			v = string(popped[0])
		}
	})
	return v, err
}

// List returns the elements of the list at key (LRANGE key 0 -1).
func (d *Database) List(key string) (elems []string, err error) {
	d.do(func(db *store.DB) {
		var l *store.List
		if l, err = valueAt[*store.List](db, key); err == nil {
			elems = listElems(l)
		}
	})
	return elems, err
}

func listElems(l *store.List) []string {
	elems := make([]string, 0, l.Len())
	l.Range(0, l.Len()-1, func(v []byte) bool {
		elems = append(elems, string(v))
		return true
	})
	return elems
}

// CheckList fails t unless the list at key holds exactly want, in order.
func (d *Database) CheckList(t testing.TB, key string, want ...string) {
	t.Helper()
	got, err := d.List(key)
	if err != nil {
		t.Errorf("floodgate: db %d: LRANGE %q 0 -1: %v (want %q)", d.index, key, err, want)
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("floodgate: db %d: LRANGE %q 0 -1 = %q, want %q", d.index, key, got, want)
	}
}

// LPush is DB(selected).LPush.
func (s *Server) LPush(key string, values ...string) (int, error) {
	return s.db().LPush(key, values...)
}

// RPush is DB(selected).RPush.
func (s *Server) RPush(key string, values ...string) (int, error) {
	return s.db().RPush(key, values...)
}

// LPop is DB(selected).LPop.
func (s *Server) LPop(key string) (string, error) { return s.db().LPop(key) }

// RPop is DB(selected).RPop.
func (s *Server) RPop(key string) (string, error) { return s.db().RPop(key) }

// List is DB(selected).List.
func (s *Server) List(key string) ([]string, error) { return s.db().List(key) }

// CheckList is DB(selected).CheckList.
func (s *Server) CheckList(t testing.TB, key string, want ...string) {
	t.Helper()
	s.db().CheckList(t, key, want...)
}
