package luaengine

import (
	"strings"
	"testing"
	"time"
)

const seed001 = `local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end if c > tonumber(ARGV[1]) then return 0 end return 1`

// counterCaller answers INCR from one counter and everything else with 1,
// so the benchmark measures the engine, not a keyspace.
type counterCaller struct{ n int64 }

func (c *counterCaller) Call(args [][]byte, w ReplyWriter) {
	if len(args[0]) == 4 { // INCR
		c.n++
		w.Int(c.n)
		return
	}
	w.Int(1)
}

type discardWriter struct{ n int64 }

func (d *discardWriter) Status(string)              {}
func (d *discardWriter) Error(string)               {}
func (d *discardWriter) Int(n int64)                { d.n = n }
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

func BenchmarkEvalSHASeed001(b *testing.B) {
	e := New(Options{})
	defer e.Close()
	s, err := e.Load([]byte(seed001))
	if err != nil {
		b.Fatal(err)
	}
	keys := [][]byte{[]byte("rate:user:42")}
	args := [][]byte{[]byte("100"), []byte("60")}
	c := &counterCaller{}
	w := &discardWriter{}
	b.ReportAllocs()
	for b.Loop() {
		if c.n > 50 {
			c.n = 0 // keep both branches hot
		}
		e.Run(e.Lookup(s.SHA), keys, args, c, w)
	}
}

// BenchmarkRunFixedCost is what every call pays whatever the script does:
// KEYS and ARGV, the protected call, the reply.
func BenchmarkRunFixedCost(b *testing.B) {
	e := New(Options{})
	defer e.Close()
	s, err := e.Load([]byte("return 1"))
	if err != nil {
		b.Fatal(err)
	}
	keys := [][]byte{[]byte("rate:user:42")}
	args := [][]byte{[]byte("100"), []byte("60")}
	w := &discardWriter{}
	b.ReportAllocs()
	for b.Loop() {
		e.Run(s, keys, args, nil, w)
	}
}

// BenchmarkInterruptOverhead compares a pure-Lua loop with and without the
// interrupt context gopher-lua checks before every instruction.
func BenchmarkInterruptOverhead(b *testing.B) {
	for _, withCtx := range []bool{false, true} {
		name := "noctx"
		if withCtx {
			name = "ctx"
		}
		b.Run(name, func(b *testing.B) {
			e := New(Options{MemoryLimit: -1})
			defer e.Close()
			if !withCtx {
				e.L.RemoveContext()
			}
			s, _ := e.Load([]byte(`local x = 0 for i = 1, 1000 do x = x + i end return x`))
			w := &discardWriter{}
			b.ReportAllocs()
			for b.Loop() {
				e.Run(s, nil, nil, nil, w)
			}
		})
	}
}

func TestSeed000(t *testing.T) {
	e := New(Options{})
	f := newFakeRedis()
	body := "local c = redis.call('get', KEYS[1]) if c and tonumber(c) >= tonumber(ARGV[1]) then return 0 else c = redis.call('incr', KEYS[1]) if tonumber(c) == 1 then redis.call('expire', KEYS[1], ARGV[2]) end return 1 end"
	var got []string
	for i := 0; i < 7; i++ {
		got = append(got, run(t, e, f, body, []string{"ratelimit:ip:10.0.0.1"}, []string{"5", "60"}))
	}
	want := strings.Repeat(":1\r\n", 5) + strings.Repeat(":0\r\n", 2)
	if strings.Join(got, "") != want || f.ttl["ratelimit:ip:10.0.0.1"] != 60 || f.strings["ratelimit:ip:10.0.0.1"] != "5" {
		t.Errorf("got %q ttl %v value %q", got, f.ttl, f.strings)
	}
}

func TestKillAndUnkillable(t *testing.T) {
	e := New(Options{})
	if err := e.Kill(); err != ErrNotBusy {
		t.Fatalf("idle kill: %v", err)
	}
	s, _ := e.Get([]byte("local i = 0 while true do i = i + 1 end"))
	done := make(chan string)
	go func() {
		w := &respWriter{}
		e.Run(s, nil, nil, nil, w)
		done <- string(w.b)
	}()
	for {
		if _, ok := e.Running(); ok {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := e.Kill(); err != nil {
		t.Fatal(err)
	}
	got := <-done
	want := "-ERR Script killed by user with SCRIPT KILL... script: " + s.SHA + ", on @user_script:1.\r\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// The engine serves again, and a script that caught the kill with
	// pcall is still stopped.
	if got := run(t, e, newFakeRedis(), "return 1", nil, nil); got != ":1\r\n" {
		t.Errorf("after kill: %q", got)
	}
	s2, _ := e.Get([]byte("while true do pcall(function() while true do end end) end"))
	go func() {
		w := &respWriter{}
		e.Run(s2, nil, nil, nil, w)
		done <- string(w.b)
	}()
	for {
		if _, ok := e.Running(); ok {
			break
		}
		time.Sleep(time.Millisecond)
	}
	e.MarkWritten()
	if err := e.Kill(); err != ErrUnkillable {
		t.Fatalf("written kill: %v", err)
	}
	e.interrupt.written.Store(false)
	if err := e.Kill(); err != nil {
		t.Fatal(err)
	}
	if got := <-done; !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL...") {
		t.Errorf("pcall kill: %q", got)
	}
}

func TestMemoryGuard(t *testing.T) {
	e := New(Options{MemoryLimit: 64 << 20, MaxStringSize: 1 << 20})
	f := newFakeRedis()
	if got := run(t, e, f, "return string.rep('x', 1e9)", nil, nil); !strings.Contains(got, "not enough memory") {
		t.Errorf("string.rep: %q", got)
	}
	if got := run(t, e, f, "local s = 'x' while true do s = s .. s end", nil, nil); !strings.Contains(got, "not enough memory") {
		t.Errorf("concat: %q", got)
	}
	if got := run(t, e, f, "local t = {} local i = 0 while true do i = i + 1 t[i] = string.rep('y', 1000) .. i end", nil, nil); got != "-ERR not enough memory script: "+SHA1Hex([]byte("local t = {} local i = 0 while true do i = i + 1 t[i] = string.rep('y', 1000) .. i end"))+", on @user_script:1.\r\n" {
		t.Errorf("table growth: %q", got)
	}
	if got := run(t, e, f, "return 1", nil, nil); got != ":1\r\n" {
		t.Errorf("after memory stop: %q", got)
	}
}

func TestKeysArgvDoNotLeak(t *testing.T) {
	e := New(Options{})
	f := newFakeRedis()
	run(t, e, f, "KEYS.extra = 1 table.insert(ARGV, 'z') return 1", []string{"a", "b", "c"}, []string{"x"})
	got := run(t, e, f, "return {#KEYS, #ARGV, tostring(KEYS.extra), tostring(ARGV[2])}", []string{"k"}, nil)
	if want := "*4\r\n:1\r\n:0\r\n$3\r\nnil\r\n$3\r\nnil\r\n"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	// What redis-server 7.0.15 answers to the second script of each pair.
	for _, tt := range []struct {
		name, first, second string
		keys, args          []string
	}{
		{"field on empty KEYS", "KEYS.extra = 1 return 1", "return tostring(KEYS.extra)", nil, nil},
		{"metatable on ARGV", "setmetatable(ARGV, {__index=function() return 'meta' end}) return 1", "return tostring(ARGV[5])", nil, []string{"a"}},
		{"metatable on empty KEYS", "setmetatable(KEYS, {__index=function() return 'meta' end}) return 1", "return tostring(KEYS[1])", nil, nil},
	} {
		run(t, e, f, tt.first, tt.keys, tt.args)
		if got := run(t, e, f, tt.second, tt.keys, tt.args); got != "$3\r\nnil\r\n" {
			t.Errorf("%s: got %q want nil", tt.name, got)
		}
	}
}

// BenchmarkOperators is a script of the operators Lua 5.1 computes
// differently from gopher-lua's upstream VM (.., %, ^), as key names and
// window arithmetic use them.
func BenchmarkOperators(b *testing.B) {
	e := New(Options{MemoryLimit: -1})
	defer e.Close()
	s, err := e.Load([]byte(`local n = 0 for i = 1, 100 do local k = 'rate:' .. i .. ':' .. ARGV[1] n = n + #k + i % 7 + (i / 10) ^ 2 end return n`))
	if err != nil {
		b.Fatal(err)
	}
	args := [][]byte{[]byte("60")}
	w := &discardWriter{}
	b.ReportAllocs()
	for b.Loop() {
		e.Run(s, nil, args, nil, w)
	}
}
