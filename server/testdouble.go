package server

// The test-double API: start a server inside a Go test, move its clock,
// seed and inspect its keyspace without a client, inject faults, and read
// counters. It is the same server as the floodgate binary (same command
// table, same handlers, same expiry), so a test sees Redis's exact replies.

import (
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate/floodgate/store"
)

// Option configures a server started by Run or RunT.
type Option func(*runConfig)

type runConfig struct {
	cfg    Config
	listen bool
}

// WithDatabases sets the number of databases (16 by default).
func WithDatabases(n int) Option { return func(rc *runConfig) { rc.cfg.Databases = n } }

// WithPassword makes clients authenticate with AUTH (requirepass).
func WithPassword(password string) Option {
	return func(rc *runConfig) { rc.cfg.Password = password }
}

// WithManualClock starts the server on a clock set to t0 that moves only
// when the test calls FastForward or SetTime. TTLs, expiry, TIME and the
// time scripts see all read that one clock.
func WithManualClock(t0 time.Time) Option {
	return func(rc *runConfig) { rc.cfg.Clock = store.NewManualClock(t0) }
}

// WithAddr sets the TCP address to listen on ("127.0.0.1:0", a free port,
// by default).
func WithAddr(addr string) Option { return func(rc *runConfig) { rc.cfg.Addr = addr } }

// WithoutListener starts the server with no TCP listener: clients connect
// with Dial. Such a server uses no network at all, so it can be started
// inside a testing/synctest bubble.
func WithoutListener() Option { return func(rc *runConfig) { rc.listen = false } }

// Run starts a server on a free local port. By default it has 16 databases,
// no password and the real clock: keys expire on their own, exactly as in
// the floodgate binary (FastForward and SetTime still move that clock).
// Close it when done, or use RunT.
func Run(opts ...Option) (*Server, error) {
	rc := runConfig{cfg: Config{Addr: "127.0.0.1:0", Clock: &shiftedClock{}}, listen: true}
	for _, opt := range opts {
		opt(&rc)
	}
	s := New(rc.cfg)
	if !rc.listen {
		s.stopped.Add(1)
		go s.expiryLoop()
		s.pipeListener() // the server is reachable by Dial only
		return s, nil
	}
	if err := s.StartAddr(rc.cfg.Addr); err != nil {
		return nil, err
	}
	return s, nil
}

// RunT is Run for tests: it fails t if the server cannot start and closes
// the server when the test ends (t.Cleanup).
func RunT(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := Run(opts...)
	if err != nil {
		t.Fatalf("floodgate: start server: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// StartAddr listens on addr and serves in the background.
func (s *Server) StartAddr(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	dl := &detachableListener{Listener: ln, stop: s.stop}
	s.double.mu.Lock()
	s.double.listener = dl
	s.double.mu.Unlock()
	s.Serve(dl)
	return nil
}

// Host returns the host part of Addr.
func (s *Server) Host() string {
	host, _, _ := net.SplitHostPort(s.Addr())
	return host
}

// Port returns the port part of Addr.
func (s *Server) Port() string {
	_, port, _ := net.SplitHostPort(s.Addr())
	return port
}

// testDouble is the state of the test-double API, kept apart from the
// server's own.
type testDouble struct {
	err atomic.Pointer[string] // SetError's reply; nil: none

	mu       sync.Mutex
	pipes    *pipeListener       // serves Dial; started on first use
	listener *detachableListener // the TCP listener StartAddr opened
	resume   chan struct{}       // non-nil while paused
}

// detachableListener lets CloseListener stop new connections without
// closing the open ones: redcon closes every connection when its accept
// loop ends, so after CloseListener the loop is kept waiting for Close.
type detachableListener struct {
	net.Listener
	stop     <-chan struct{}
	detached atomic.Bool
}

func (l *detachableListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil && l.detached.Load() {
		<-l.stop
		return nil, net.ErrClosed
	}
	return c, err
}

// shiftedClock is the real clock plus an offset, so that FastForward and
// SetTime work on a server that otherwise behaves exactly like production.
type shiftedClock struct{ offset atomic.Int64 }

func (c *shiftedClock) Now() time.Time {
	return time.Now().Add(time.Duration(c.offset.Load()))
}

// Now returns the current time of the server's clock.
func (s *Server) Now() time.Time { return s.store.Clock().Now() }

// FastForward moves the server's clock forward by d, then deletes the keys
// whose time has come, as if that much time had passed. It costs
// O(log n) per key that expires and nothing per key that does not.
// It panics if the clock cannot be moved (a Server made with New and a
// clock of its own).
func (s *Server) FastForward(d time.Duration) {
	switch c := s.store.Clock().(type) {
	case *store.ManualClock:
		c.Add(d)
	case *shiftedClock:
		c.offset.Add(int64(d))
	default:
		panic(fmt.Sprintf("floodgate: FastForward: cannot move a %T; start the server with Run", c))
	}
	s.expireNow()
}

// SetTime sets the server's clock to t (backwards too), then deletes the
// keys whose time has come.
func (s *Server) SetTime(t time.Time) {
	switch c := s.store.Clock().(type) {
	case *store.ManualClock:
		c.Set(t)
	case *shiftedClock:
		c.offset.Store(int64(time.Until(t)))
	default:
		panic(fmt.Sprintf("floodgate: SetTime: cannot move a %T; start the server with Run", c))
	}
	s.expireNow()
}

// expireNow runs active expiry to completion: the store's expiry heap pops
// only the keys that have expired.
func (s *Server) expireNow() {
	s.Do(func() { s.expired += int64(s.store.ActiveExpire(0)) })
}

// SetError makes the server answer every command with the error msg (sent
// as it is, so include the code: "ERR boom", "LOADING ...") until
// SetError("") clears it. Connections stay open. Use it to test how code
// behaves when Redis fails (fail open, fail closed).
func (s *Server) SetError(msg string) {
	if msg == "" {
		s.double.err.Store(nil)
		return
	}
	msg = sanitizeError(msg)
	s.double.err.Store(&msg)
}

// Pause makes the server stop answering, as a frozen server would: it
// returns once no command is running, and until Resume every command waits
// (clients time out on their own deadlines). Expiry, FastForward and the
// inspection methods wait too. Close still works while paused.
func (s *Server) Pause() {
	s.double.mu.Lock()
	defer s.double.mu.Unlock()
	if s.double.resume != nil {
		return
	}
	select {
	case s.lock <- struct{}{}:
	case <-s.stop:
		return
	}
	resume := make(chan struct{})
	s.double.resume = resume
	// The lock is held on behalf of the test and released by Resume, or by
	// Close, which must be able to take it.
	go func() {
		select {
		case <-resume:
		case <-s.stop:
		}
		<-s.lock
	}()
}

// Resume undoes Pause.
func (s *Server) Resume() {
	s.double.mu.Lock()
	defer s.double.mu.Unlock()
	if s.double.resume != nil {
		close(s.double.resume)
		s.double.resume = nil
	}
}

// CloseListener stops accepting connections: new dials are refused, while
// connections already open keep working until they close or the server
// closes. Dial keeps working. Use CloseClients as well to cut everyone off.
func (s *Server) CloseListener() {
	s.double.mu.Lock()
	dl := s.double.listener
	s.double.mu.Unlock()
	if dl != nil && dl.detached.CompareAndSwap(false, true) {
		dl.Listener.Close()
	}
}

// CloseClients closes every open client connection (TCP and Dial), as a
// network failure or a server restart would; the server keeps its keys and
// keeps accepting connections.
func (s *Server) CloseClients() {
	s.clientsMu.Lock()
	defer s.clientsMu.Unlock()
	for c := range s.clients {
		if c.conn != nil {
			c.conn.NetConn().Close()
		}
	}
}

// CommandCount returns how many commands the server has run (commands
// refused by SetError are not counted; those rejected by generic checks
// such as arity or NOAUTH are not counted either).
func (s *Server) CommandCount() int {
	var n int64
	s.Do(func() { n = s.processed })
	return int(n)
}

// CurrentConnectionCount returns the number of open client connections.
func (s *Server) CurrentConnectionCount() int { return s.clientCount() }

// TotalConnectionCount returns how many client connections were ever
// accepted.
func (s *Server) TotalConnectionCount() int { return int(s.totalConns.Load()) }

// scriptCommands are the commands ScriptCalls counts.
var scriptCommands = []string{"eval", "evalsha", "eval_ro", "evalsha_ro"}

// ScriptCalls returns how many scripts the server has been asked to run
// (EVAL, EVALSHA, EVAL_RO and EVALSHA_RO calls, failed ones included).
func (s *Server) ScriptCalls() int {
	var n int64
	s.Do(func() {
		for _, name := range scriptCommands {
			if cmd := commandTable.byName[name]; cmd != nil {
				n += s.stats[cmd.id].calls
			}
		}
	})
	return int(n)
}

// ErrKeyNotFound is returned by the inspection methods for a missing key
// (or hash field, or sorted-set member).
var ErrKeyNotFound = errors.New("floodgate: key not found")

// ErrWrongType is returned by the inspection methods for a key of another
// type.
var ErrWrongType = store.ErrWrongType

// Database is a view of one database of a server, for seeding and
// inspecting keys without a client. Every method runs under the execution
// lock, as a command would, so it is safe while clients are connected.
type Database struct {
	srv   *Server
	index int
}

// DB returns a view of database i. It panics if i is out of range.
func (s *Server) DB(i int) *Database {
	if i < 0 || i >= s.store.Databases() {
		panic("floodgate: DB index " + strconv.Itoa(i) + " is out of range")
	}
	return &Database{srv: s, index: i}
}

// do runs fn on the database with the execution lock held.
func (d *Database) do(fn func(db *store.DB)) {
	d.srv.Do(func() { fn(d.srv.store.DB(d.index)) })
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
	var v V
	e := db.GetString(key)
	if e == nil {
		return v, ErrKeyNotFound
	}
	v, ok := e.Value.(V)
	if !ok {
		return v, ErrWrongType
	}
	return v, nil
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
	d.do(func(db *store.DB) {
		s, e := stringAt(db, key)
		switch {
		case e == ErrKeyNotFound:
			db.Set([]byte(key), store.NewInt(delta), 0)
			n = delta
		case e != nil:
			err = e
		default:
			if n, err = s.IncrBy(delta); err == nil {
				db.Modified([]byte(key))
			}
		}
	})
	return n, err
}

// TTL returns the time key has left to live (millisecond precision), or 0
// if it has no TTL or does not exist.
func (d *Database) TTL(key string) (ttl time.Duration) {
	d.do(func(db *store.DB) {
		if e := db.GetString(key); e != nil && e.ExpireAt() != 0 {
			ttl = db.TTL(e)
		}
	})
	return ttl
}

// SetTTL sets key's time to live, as PEXPIRE (a ttl under a millisecond
// deletes the key); a ttl <= 0 removes the TTL instead, as PERSIST.
func (d *Database) SetTTL(key string, ttl time.Duration) (err error) {
	d.do(func(db *store.DB) {
		e := db.GetString(key)
		switch {
		case e == nil:
			err = ErrKeyNotFound
		case ttl <= 0:
			db.SetExpire(e, 0)
		default:
			db.SetExpire(e, db.Store().Now()+ttl.Milliseconds())
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
		db.Each(func(e *store.Entry) { keys = append(keys, e.Key) })
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
			kind = e.Value.Kind().String()
		}
	})
	return kind
}

// The Server's own inspection methods act on database 0.

// Get returns the string value of key in database 0.
func (s *Server) Get(key string) (string, error) { return s.DB(0).Get(key) }

// Set sets key to value in database 0, as SET (replacing any TTL).
func (s *Server) Set(key, value string) { s.DB(0).Set(key, value) }

// Incr adds delta to the integer at key in database 0, as INCRBY.
func (s *Server) Incr(key string, delta int64) (int64, error) { return s.DB(0).Incr(key, delta) }

// TTL returns the time key in database 0 has left to live, or 0.
func (s *Server) TTL(key string) time.Duration { return s.DB(0).TTL(key) }

// SetTTL sets the time to live of key in database 0 (<= 0: none).
func (s *Server) SetTTL(key string, ttl time.Duration) error { return s.DB(0).SetTTL(key, ttl) }

// Exists reports whether key exists in database 0.
func (s *Server) Exists(key string) bool { return s.DB(0).Exists(key) }

// Del deletes key from database 0 and reports whether it existed.
func (s *Server) Del(key string) bool { return s.DB(0).Del(key) }

// Keys returns the keys of database 0, sorted.
func (s *Server) Keys() []string { return s.DB(0).Keys() }

// Type returns the type of key in database 0, as TYPE.
func (s *Server) Type(key string) string { return s.DB(0).Type(key) }

// FlushAll deletes every key of every database.
func (s *Server) FlushAll() { s.Do(s.store.FlushAll) }

// CheckGet fails t unless key holds the string want in database 0.
func (s *Server) CheckGet(t testing.TB, key, want string) {
	t.Helper()
	s.DB(0).CheckGet(t, key, want)
}

// CheckTTL fails t unless key in database 0 has exactly want left to live
// (0: no TTL).
func (s *Server) CheckTTL(t testing.TB, key string, want time.Duration) {
	t.Helper()
	s.DB(0).CheckTTL(t, key, want)
}

// CheckExists fails t unless key exists in database 0.
func (s *Server) CheckExists(t testing.TB, key string) {
	t.Helper()
	s.DB(0).CheckExists(t, key)
}

// CheckNotExists fails t if key exists in database 0.
func (s *Server) CheckNotExists(t testing.TB, key string) {
	t.Helper()
	s.DB(0).CheckNotExists(t, key)
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
	for i := 0; i < s.store.Databases(); i++ {
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
		sort.Slice(entries, func(i, j int) bool { return entries[i].Key < entries[j].Key })
		fmt.Fprintf(&b, "db %d\n", d.index)
		for _, e := range entries {
			summary, members := dumpValue(e.Value)
			fmt.Fprintf(&b, "  %s %s", strconv.Quote(e.Key), summary)
			if e.ExpireAt() != 0 {
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
		return string(AppendDouble(nil, f))
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
		z, e := zsetAt(db, key)
		switch {
		case e == ErrKeyNotFound:
			z = store.NewZSet()
			db.Set([]byte(key), z, 0)
		case e != nil:
			err = e
			return
		}
		added = z.Add([]byte(member), score)
		db.Modified([]byte(key))
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

// ZAdd sets member's score in the sorted set at key in database 0.
func (s *Server) ZAdd(key string, score float64, member string) (bool, error) {
	return s.DB(0).ZAdd(key, score, member)
}

// ZMembers returns the members of the sorted set at key in database 0.
func (s *Server) ZMembers(key string) ([]string, error) { return s.DB(0).ZMembers(key) }

// ZScore returns member's score in the sorted set at key in database 0.
func (s *Server) ZScore(key, member string) (float64, error) { return s.DB(0).ZScore(key, member) }

// CheckZMembers fails t unless the sorted set at key in database 0 holds
// exactly want, in ascending score order.
func (s *Server) CheckZMembers(t testing.TB, key string, want ...string) {
	t.Helper()
	s.DB(0).CheckZMembers(t, key, want...)
}

// HSet sets fields of the hash at key (created if needed), as HSET:
// HSet(key, "field1", "value1", "field2", "value2", ...).
func (d *Database) HSet(key string, fieldValues ...string) (err error) {
	if len(fieldValues) == 0 || len(fieldValues)%2 != 0 {
		return errors.New("floodgate: HSet: want field and value pairs")
	}
	d.do(func(db *store.DB) {
		h, e := valueAt[*store.Hash](db, key)
		switch {
		case e == ErrKeyNotFound:
			h = store.NewHash()
			db.Set([]byte(key), h, 0)
		case e != nil:
			err = e
			return
		}
		for i := 0; i < len(fieldValues); i += 2 {
			h.Set([]byte(fieldValues[i]), []byte(fieldValues[i+1]))
		}
		db.Modified([]byte(key))
	})
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

// HSet sets fields of the hash at key in database 0.
func (s *Server) HSet(key string, fieldValues ...string) error {
	return s.DB(0).HSet(key, fieldValues...)
}

// HGet returns a field of the hash at key in database 0.
func (s *Server) HGet(key, field string) (string, error) { return s.DB(0).HGet(key, field) }
