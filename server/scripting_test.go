package server

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/luaengine"
	"github.com/redis/go-redis/v9"
)

const seed001Script = `local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end if c > tonumber(ARGV[1]) then return 0 end return 1`

func newScriptTestServer(t testing.TB, limit time.Duration) (*Server, func() *redis.Client) {
	t.Helper()
	srv := startServer(t, Config{LuaTimeLimit: limit})
	return srv, func() *redis.Client { return newRedisClient(t, srv) }
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestScriptRunsThroughCommandTable(t *testing.T) {
	_, dial := newScriptTestServer(t, 0)
	ctx := context.Background()
	c := dial()
	sha := mustLoad(t, c, `return redis.call('INCR', KEYS[1])`)
	for want := int64(1); want <= 3; want++ {
		n, err := c.EvalSha(ctx, sha, []string{"n"}, nil).Int64()
		if err != nil || n != want {
			t.Fatalf("EVALSHA INCR = %d, %v; want %d", n, err, want)
		}
	}
	if got, _ := c.Get(ctx, "n").Result(); got != "3" {
		t.Fatalf("GET n after scripts = %q, want 3", got)
	}

	tests := []struct {
		name, script string
		ro           bool
		want         string // error prefix
	}{
		{"unknown command", `return redis.call('nosuch')`, false, "ERR Unknown Redis command called from script script: "},
		{"unknown subcommand", `return redis.call('script', 'nosuch')`, false, "ERR Unknown Redis command called from script script: "},
		{"arity", `return redis.call('incr')`, false, "ERR Wrong number of args calling Redis command from script script: "},
		{"container arity", `return redis.call('script')`, false, "ERR Wrong number of args calling Redis command from script script: "},
		{"noscript", `return redis.call('eval', 'return 1', 0)`, false, "ERR This Redis command is not allowed from script script: "},
		{"noscript subcommand", `return redis.call('script', 'kill')`, false, "ERR This Redis command is not allowed from script script: "},
		{"write in EVAL_RO", `return redis.call('incr', 'x')`, true, "ERR Write commands are not allowed from read-only scripts. script: "},
		{"write under no-writes", "#!lua flags=no-writes\nreturn redis.call('incr', 'x')", false, "ERR Write commands are not allowed from read-only scripts. script: "},
		{"wrong type from handler", `redis.call('zadd', 'z', 1, 'm') return redis.call('incr', 'z')`, false, "WRONGTYPE Operation against a key holding the wrong kind of value script: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.ro {
				err = c.EvalRO(ctx, tt.script, nil).Err()
			} else {
				err = c.Eval(ctx, tt.script, nil).Err()
			}
			if !strings.HasPrefix(errText(err), tt.want) {
				t.Fatalf("got %q, want prefix %q", errText(err), tt.want)
			}
		})
	}
	if n, _ := c.Exists(ctx, "x").Result(); n != 0 {
		t.Fatal("a refused write changed the keyspace")
	}
}

func mustLoad(t testing.TB, c *redis.Client, script string) string {
	t.Helper()
	sha, err := c.ScriptLoad(context.Background(), script).Result()
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// SELECT inside a script moves only the script (Redis 7.0), and the script
// starts in the caller's database.
func TestScriptSelectStaysInside(t *testing.T) {
	_, dial := newScriptTestServer(t, 0)
	ctx := context.Background()
	c := redis.NewClient(patient(&redis.Options{Addr: dial().Options().Addr, DB: 2, Protocol: 2, DisableIdentity: true}))
	defer c.Close()
	got, err := c.Eval(ctx, `local before = redis.call('INCR', 'k') redis.call('SELECT', 5) return {before, redis.call('INCR', 'k')}`, nil).Slice()
	if err != nil || len(got) != 2 || got[0] != int64(1) || got[1] != int64(1) {
		t.Fatalf("EVAL = %v, %v; want [1 1]", got, err)
	}
	if n, _ := c.Incr(ctx, "k").Result(); n != 2 {
		t.Fatalf("caller's INCR after the script = %d, want 2 (still in db 2)", n)
	}
	other := redis.NewClient(patient(&redis.Options{Addr: c.Options().Addr, DB: 5, Protocol: 2, DisableIdentity: true}))
	defer other.Close()
	if v, _ := other.Get(ctx, "k").Result(); v != "1" {
		t.Fatalf("db 5 k = %q, want 1", v)
	}
}

// A script that runs past the time limit makes other clients see BUSY;
// SCRIPT KILL works without the lock and everyone is served again.
func TestScriptBusyAndKill(t *testing.T) {
	_, dial := newScriptTestServer(t, 30*time.Millisecond)
	ctx := context.Background()
	runner, other := dial(), dial()
	if err := other.ScriptKill(ctx).Err(); errText(err) != "NOTBUSY No scripts in execution right now." {
		t.Fatalf("SCRIPT KILL while idle: %v", err)
	}
	const loop = `local n = 0 while true do n = n + 1 end`
	done := make(chan error, 1)
	go func() { done <- runner.Eval(ctx, loop, nil).Err() }()
	waitFor(t, "BUSY", func() bool {
		return errText(other.Ping(ctx).Err()) == errBusy
	})
	if err := other.Get(ctx, "k").Err(); errText(err) != errBusy {
		t.Fatalf("GET while busy: %v", err)
	}
	if err := other.ScriptKill(ctx).Err(); err != nil {
		t.Fatalf("SCRIPT KILL: %v", err)
	}
	err := <-done
	want := "ERR Script killed by user with SCRIPT KILL... script: " + luaengine.SHA1Hex([]byte(loop)) + ", on @user_script:1."
	if errText(err) != want {
		t.Fatalf("killed script's reply = %q, want %q", errText(err), want)
	}
	if err := other.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after the kill: %v", err)
	}
	if err := runner.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING on the killed script's connection: %v", err)
	}
	if err := other.ScriptKill(ctx).Err(); errText(err) != "NOTBUSY No scripts in execution right now." {
		t.Fatalf("SCRIPT KILL after the kill: %v", err)
	}
}

// The watch sleeps while no script runs, and a script that then runs past
// the limit still wakes it and makes others see BUSY: first with the
// engine not yet created (the watch starts with it), then after scripts
// have run.
func TestScriptWatchSleepsWhenIdle(t *testing.T) {
	srv, dial := newScriptTestServer(t, 30*time.Millisecond)
	ctx := context.Background()
	runner, other := dial(), dial()
	const loop = `local n = 0 while true do n = n + 1 end`
	for round := range 2 {
		waitFor(t, "the watch asleep", func() bool {
			var engine bool
			srv.Do(func() { engine = srv.scripting.current() != nil })
			return (round == 0 && !engine) || srv.scripting.watchAsleep.Load()
		})
		done := make(chan error, 1)
		go func() { done <- runner.Eval(ctx, loop, nil).Err() }()
		waitFor(t, "BUSY", func() bool { return errText(other.Ping(ctx).Err()) == errBusy })
		if err := other.ScriptKill(ctx).Err(); err != nil {
			t.Fatalf("round %d: SCRIPT KILL: %v", round, err)
		}
		if err := <-done; !strings.Contains(errText(err), "Script killed by user") {
			t.Fatalf("round %d: killed script's reply = %v", round, err)
		}
	}
}

// A script that wrote cannot be killed; once it ends on its own, BUSY ends.
func TestScriptUnkillableAfterWrite(t *testing.T) {
	_, dial := newScriptTestServer(t, 30*time.Millisecond)
	ctx := context.Background()
	runner, other := dial(), dial()
	// Runs until SCRIPT KILL has been refused (INFO commandstats counts
	// it: an event, not a time budget), then until TIME has moved, which
	// shows TIME is not frozen.
	const writeThenSpin = `redis.call('INCR', KEYS[1])
local t0 = redis.call('TIME')
while not string.find(redis.call('INFO', 'commandstats'), 'cmdstat_script|kill:calls=1,', 1, true) do end
while true do
  local t = redis.call('TIME')
  if t[1] ~= t0[1] or t[2] ~= t0[2] then break end
end
return redis.call('GET', KEYS[1])`
	done := make(chan error, 1)
	go func() { done <- runner.Eval(ctx, writeThenSpin, []string{"w"}).Err() }()
	waitFor(t, "BUSY", func() bool { return errText(other.Ping(ctx).Err()) == errBusy })
	err := other.ScriptKill(ctx).Err()
	if !strings.HasPrefix(errText(err), "UNKILLABLE Sorry the script already executed write commands") {
		t.Fatalf("SCRIPT KILL after a write: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("script: %v", err)
	}
	waitFor(t, "PONG after the script ended", func() bool { return other.Ping(ctx).Err() == nil })
	if v, _ := other.Get(ctx, "w").Result(); v != "1" {
		t.Fatalf("w = %q, want 1", v)
	}
}

// A script shorter than the limit never makes anyone BUSY, even when the
// watch ticks during it.
func TestScriptUnderLimitNeverBusy(t *testing.T) {
	srv, dial := newScriptTestServer(t, time.Hour)
	c := dial()
	ctx := context.Background()
	for i := 0; i < 200; i++ {
		if err := c.Eval(ctx, `return 1`, nil).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if srv.scripting.busy.Load() {
		t.Fatal("busy set for short scripts")
	}
}

// The watch and the script's end race; BUSY must never outlive a script.
func TestMarkBusyAfterScriptEnded(t *testing.T) {
	srv := New(Config{Addr: "127.0.0.1:0"})
	defer srv.Close()
	srv.markBusy(true, time.Now().UnixNano()) // no script is running
	if srv.scripting.busy.Load() {
		t.Fatal("busy set for a script that is not running")
	}
}

func TestEvalQueuedInMulti(t *testing.T) {
	initCommandTable()
	if commandTable.lookup([]byte("multi")) == nil {
		t.Skip("MULTI not implemented yet")
	}
	_, dial := newScriptTestServer(t, 0)
	ctx := context.Background()
	c := dial()
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Eval(ctx, `return redis.call('INCR', KEYS[1])`, []string{"m"})
		p.Eval(ctx, `return redis.call('INCR', KEYS[1])`, []string{"m"})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := cmds[1].(*redis.Cmd).Int64(); n != 2 {
		t.Fatalf("second EVAL in EXEC = %d, want 2", n)
	}
}

func TestScriptCommandInfo(t *testing.T) {
	initCommandTable()
	for _, tt := range []struct {
		name  string
		arity int
		flags string
	}{
		{"eval", -3, "noscript stale skip_monitor no_mandatory_keys movablekeys"},
		{"evalsha_ro", -3, "readonly noscript stale skip_monitor no_mandatory_keys movablekeys"},
		{"script", -2, ""},
	} {
		cmd := commandTable.lookup([]byte(tt.name))
		if cmd == nil || cmd.Arity != tt.arity || strings.Join(cmd.Flags.Names(), " ") != tt.flags {
			t.Errorf("%s: %+v", tt.name, cmd)
		}
	}
	kill := commandTable.lookup([]byte("script")).subcommand([]byte("KILL"))
	if kill == nil || !kill.Flags.Has(FlagAllowBusy|FlagNoScript) {
		t.Fatalf("script|kill flags: %v", kill)
	}
}

// discardWriter is a Writer that keeps nothing, for measuring the server's
// own path.
type discardWriter struct{ errors int }

func (d *discardWriter) Status(string)              {}
func (d *discardWriter) Error(string)               { d.errors++ }
func (d *discardWriter) Int(int64)                  {}
func (d *discardWriter) Bulk([]byte)                {}
func (d *discardWriter) BulkString(string)          {}
func (d *discardWriter) Null()                      {}
func (d *discardWriter) NullArray()                 {}
func (d *discardWriter) Array(int)                  {}
func (d *discardWriter) Double(float64)             {}
func (d *discardWriter) Map(int)                    {}
func (d *discardWriter) Set(int)                    {}
func (d *discardWriter) Verbatim(string)            {}
func (d *discardWriter) Proto() int                 { return 2 }
func (d *discardWriter) Bool(bool)                  {}
func (d *discardWriter) BigNumber(string)           {}
func (d *discardWriter) VerbatimFormat(_, _ string) {}

// evalSHADirect runs EVALSHA of the seed-001 limiter the way a connection
// does (execute under the lock), without the network.
func evalSHADirect(tb testing.TB) (run func(), w *discardWriter) {
	srv := New(Config{Addr: "127.0.0.1:0"})
	tb.Cleanup(func() { srv.Close() })
	script, err := srv.scripting.engine().Load([]byte(seed001Script))
	if err != nil {
		tb.Fatal(err)
	}
	w = &discardWriter{}
	c := &Client{srv: srv, db: srv.store.DB(0), authed: true, w: w}
	args := [][]byte{[]byte("EVALSHA"), []byte(script.SHA), []byte("1"), []byte("rate:user:42"), []byte("100"), []byte("60")}
	return func() {
		srv.lock <- struct{}{}
		srv.execute(c, args)
		<-srv.lock
	}, w
}

// The server's side of EVALSHA (dispatch, engine, redis.call through the
// command table, INCR, EXPIRE) allocates nothing once warm.
func TestEvalSHAServerPathAllocs(t *testing.T) {
	run, w := evalSHADirect(t)
	for i := 0; i < 200; i++ {
		run()
	}
	if w.errors != 0 {
		t.Fatalf("EVALSHA answered %d errors", w.errors)
	}
	if n := testing.AllocsPerRun(1000, run); n > 0 {
		t.Fatalf("EVALSHA allocates %.1f times per call on the server path", n)
	}
}

// BenchmarkEvalSHAServerPath is EVALSHA without the network.
func BenchmarkEvalSHAServerPath(b *testing.B) {
	run, _ := evalSHADirect(b)
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
}

// BenchmarkEvalSHA pipelines EVALSHA of the seed-001 limiter through
// go-redis to an in-process server, 16 per round trip, over 1000 keys.
// Allocations include the client's.
func BenchmarkEvalSHA(b *testing.B) {
	_, dial := newScriptTestServer(b, 0)
	c := dial()
	ctx := context.Background()
	sha := mustLoad(b, c, seed001Script)
	keys := make([][]string, 1000)
	for i := range keys {
		keys[i] = []string{"rate:user:" + strconv.Itoa(i)}
	}
	const depth = 16
	cmds := make([]*redis.Cmd, depth)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		p := c.Pipeline()
		for i := range cmds {
			cmds[i] = p.EvalSha(ctx, sha, keys[(n+i)%len(keys)], 100, 60)
		}
		n += depth
		if _, err := p.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/evalsha")
}

// The engine's memory check runs on the server's watch (ExternalWatch): a
// script that keeps allocating is stopped.
func TestScriptMemoryWatchedByServer(t *testing.T) {
	srv := New(Config{Addr: "127.0.0.1:0"})
	srv.scripting.options.MemoryLimit = 32 << 20
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := redis.NewClient(patient(&redis.Options{Addr: srv.Addr(), Protocol: 2, DisableIdentity: true}))
	defer c.Close()
	const grow = `local t = {} local i = 0 while true do i = i + 1 t[i] = string.rep('y', 1000) .. i end`
	err := c.Eval(context.Background(), grow, nil).Err()
	if want := "ERR not enough memory script: " + luaengine.SHA1Hex([]byte(grow)) + ", on @user_script:1."; errText(err) != want {
		t.Fatalf("got %q, want %q", errText(err), want)
	}
}

// A script that breaks gopher-lua's state (its registry overflows while an
// error is being handled: 200 levels of 7,000 values pass its 1M-slot
// ceiling, where Redis answers 7200) gets an error reply; the server goes
// on with a fresh Lua state that still has the loaded scripts, and nobody
// sees BUSY.
func TestScriptBreakingTheStateIsRecovered(t *testing.T) {
	parallel(t)
	_, dial := newScriptTestServer(t, 50*time.Millisecond)
	ctx := context.Background()
	c := dial()
	sha, err := c.ScriptLoad(ctx, "return 'still loaded'").Result()
	if err != nil {
		t.Fatal(err)
	}
	const breaker = `local t = {} for i = 1, 7000 do t[i] = i end
local function f(n, ...) if n == 0 then return select('#', ...) end return 1 + f(n - 1, unpack(t)) end
return f(200)`
	err = c.Eval(ctx, breaker, nil).Err()
	if !strings.HasPrefix(errText(err), "ERR user_script:") || !strings.Contains(errText(err), "script: "+luaengine.SHA1Hex([]byte(breaker))) {
		t.Fatalf("breaking script: %v", err)
	}
	if v, err := c.EvalSha(ctx, sha, nil).Result(); err != nil || v != "still loaded" {
		t.Fatalf("EVALSHA of a loaded script after the rebuild = %v, %v", v, err)
	}
	if v, err := c.Eval(ctx, "return redis.call('INCR', KEYS[1])", []string{"n"}).Int(); err != nil || v != 1 {
		t.Fatalf("EVAL after the rebuild = %v, %v", v, err)
	}
	if err := dial().Ping(ctx).Err(); err != nil {
		t.Fatalf("PING from another client: %v", err)
	}
}
