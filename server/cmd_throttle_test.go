package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

var throttleT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// throttleServer starts a server on a manual clock at throttleT0 and a
// RESP2 client of it.
func throttleServer(t *testing.T) (*clockedServer, *redis.Client) {
	t.Helper()
	s := startClockedServer(t, throttleT0)
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return s, c
}

// reply renders a command's answer compactly: "[0 16 15 -1 2]", "ERR: ...",
// or the value.
func reply(t *testing.T, c *redis.Client, args ...any) string {
	t.Helper()
	v, err := c.Do(context.Background(), args...).Result()
	if err != nil {
		if err == redis.Nil {
			return "nil"
		}
		return "ERR: " + err.Error()
	}
	return fmt.Sprint(v)
}

// throttleStep is one CL.THROTTLE call at an offset from throttleT0.
type throttleStep struct {
	at   time.Duration
	args string // after the key
	want string
}

func runThrottleSteps(t *testing.T, key string, steps []throttleStep) {
	t.Helper()
	s, c := throttleServer(t)
	for i, st := range steps {
		s.SetTime(throttleT0.Add(st.at))
		args := []any{"CL.THROTTLE", key}
		for _, a := range strings.Fields(st.args) {
			args = append(args, a)
		}
		if got := reply(t, c, args...); got != st.want {
			t.Fatalf("step %d (at %v, %s): got %s, want %s", i, st.at, st.args, got, st.want)
		}
	}
}

// TestThrottleGolden: redis-cell's own vectors (its README, its e2e test and
// cell::tests::it_rate_limits, which drives a limit of 5 at 1/s through
// bursts, refills, a peek and large quantities), answered byte for byte.
func TestThrottleGolden(t *testing.T) {
	const ms = time.Millisecond
	cases := []struct {
		name  string
		steps []throttleStep
	}{
		{"readme", []throttleStep{
			{0, "15 30 60", "[0 16 15 -1 2]"},
			{0, "15 30 60 1", "[0 16 14 -1 4]"},
		}},
		{"e2e", []throttleStep{
			{0, "0 1 2 1", "[0 1 0 -1 2]"},
			{0, "0 1 2 1", "[1 1 0 2 2]"},
			{2 * time.Second, "0 1 2 1", "[0 1 0 -1 2]"},
		}},
		{"it_rate_limits", []throttleStep{
			// A request larger than the whole burst is never allowed.
			{0, "4 1 1 6", "[1 5 5 -1 0]"},
			{0, "4 1 1 1", "[0 5 4 -1 1]"},
			{0, "4 1 1 1", "[0 5 3 -1 2]"},
			{0, "4 1 1 1", "[0 5 2 -1 3]"},
			{0, "4 1 1 1", "[0 5 1 -1 4]"},
			{0, "4 1 1 1", "[0 5 0 -1 5]"},
			{0, "4 1 1 1", "[1 5 0 1 5]"},
			{3000 * ms, "4 1 1 1", "[0 5 2 -1 3]"},
			{3100 * ms, "4 1 1 1", "[0 5 1 -1 4]"}, // reset 3.9s rounds up
			{4000 * ms, "4 1 1 1", "[0 5 1 -1 4]"},
			{8000 * ms, "4 1 1 1", "[0 5 4 -1 1]"},
			{9500 * ms, "4 1 1 1", "[0 5 4 -1 1]"},
			{9500 * ms, "4 1 1 0", "[0 5 4 -1 1]"}, // quantity 0 peeks
			{9500 * ms, "4 1 1 2", "[0 5 2 -1 3]"},
			{9500 * ms, "4 1 1 5", "[1 5 2 3 3]"}, // fits the burst, in 3s
		}},
		{"quantity 0 on a fresh key", []throttleStep{
			{0, "15 30 60 0", "[0 16 16 -1 0]"},
			{0, "15 30 60", "[0 16 15 -1 2]"},
		}},
		{"quantity equal to the limit", []throttleStep{
			{0, "4 1 1 5", "[0 5 0 -1 5]"},
			{0, "4 1 1 1", "[1 5 0 1 5]"},
			{5 * time.Second, "4 1 1 5", "[0 5 0 -1 5]"},
		}},
		{"rounding keeps sub-millisecond remainders out", []throttleStep{
			// 3 per second: 333,333,333ns apart; 2 emissions ahead is
			// 666.666666ms, reported as 1 second.
			{0, "2 3 1 2", "[0 3 1 -1 1]"},
			{0, "2 3 1 2", "[1 3 1 1 1]"},
			// 0.33ms short of fitting: retry after rounds to 0, as in redis-cell.
			{333 * ms, "2 3 1 2", "[1 3 1 0 1]"},
			// 333.333333ms later one emission has passed, to the nanosecond.
			{333333333, "2 3 1 2", "[0 3 0 -1 1]"},
		}},
		{"large quantities saturate instead of overflowing", []throttleStep{
			{0, "5 1 1 9223372036854775807", "[1 6 6 -1 0]"},
			// The tolerance saturates at 2^63-1ns (292 years of emissions).
			{0, "9223372036854775807 1 1", "[0 9223372036854775807 9223372035 -1 1]"},
		}},
		{"huge periods", []throttleStep{
			{0, "0 1 9223372036854775807", "[0 1 0 -1 9223372037]"},
			// The TAT saturates at 2^63-1ns (in 2262).
			{0, "0 1 9223372036854775807", fmt.Sprintf("[1 1 0 %[1]d %[1]d]", cellSeconds(math.MaxInt64-throttleT0.UnixNano()))},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runThrottleSteps(t, "user123", tc.steps) })
	}
}

// TestThrottleFastRates covers what redis-cell gets wrong at high rates
// (its issues #11 and #50): floodgate keeps the state and counts exactly.
func TestThrottleFastRates(t *testing.T) {
	parallel(t)
	t.Run("6000 per second keeps its state", func(t *testing.T) {
		s, c := throttleServer(t)
		// redis-cell 0.5.0 answers remaining 6024 (it divides in whole
		// microseconds) and gives the first request's key a 0ms TTL.
		for i := 6000; i >= 0; i-- {
			want := fmt.Sprintf("[0 6001 %d -1 %d]", i, cellSeconds(int64(6001-i)*166666))
			if got := reply(t, c, "CL.THROTTLE", "a", "6000", "6000", "1"); got != want {
				t.Fatalf("request %d: got %s, want %s", 6001-i, got, want)
			}
		}
		// 1.000162666s ahead: the 0.16ms past the second is dropped.
		if got := reply(t, c, "CL.THROTTLE", "a", "6000", "6000", "1"); got != "[1 6001 0 0 1]" {
			t.Fatalf("over the burst: got %s", got)
		}
		if got := reply(t, c, "PTTL", "a"); got != "1001" {
			t.Fatalf("PTTL %s, want 1001: the key lives until its TAT has passed", got)
		}
		// One emission interval later, exactly one more fits.
		s.FastForward(166666 * time.Nanosecond)
		if got := reply(t, c, "CL.THROTTLE", "a", "6000", "6000", "1"); got != "[0 6001 0 -1 1]" {
			t.Fatalf("after one interval: got %s", got)
		}
		if got := reply(t, c, "CL.THROTTLE", "a", "6000", "6000", "1"); !strings.HasPrefix(got, "[1 ") {
			t.Fatalf("second after one interval: got %s", got)
		}
	})
	t.Run("1000 per minute stores a key", func(t *testing.T) {
		_, c := throttleServer(t)
		for i, want := range []string{"[0 1001 1000 -1 1]", "[0 1001 999 -1 1]", "[0 1001 998 -1 1]"} {
			if got := reply(t, c, "CL.THROTTLE", "user123", "1000", "1000", "60"); got != want {
				t.Fatalf("request %d: got %s, want %s", i, got, want)
			}
		}
		if got := reply(t, c, "PTTL", "user123"); got != "180" {
			t.Fatalf("PTTL %s, want 180", got)
		}
	})
	t.Run("8000 per second", func(t *testing.T) {
		s, c := throttleServer(t)
		for i, want := range []string{"[0 2 1 -1 0]", "[0 2 0 -1 0]", "[1 2 0 0 0]"} {
			if got := reply(t, c, "CL.THROTTLE", "user123", "1", "8000", "1", "1"); got != want {
				t.Fatalf("request %d: got %s, want %s", i, got, want)
			}
		}
		s.FastForward(125 * time.Microsecond)
		if got := reply(t, c, "CL.THROTTLE", "user123", "1", "8000", "1", "1"); got != "[0 2 0 -1 0]" {
			t.Fatalf("after 125µs: got %s", got)
		}
	})
}

// TestThrottleKey: the key holds the TAT in unix nanoseconds as a decimal
// string and expires when the TAT has passed, like any key.
func TestThrottleKey(t *testing.T) {
	s, c := throttleServer(t)
	reply(t, c, "CL.THROTTLE", "k", "15", "30", "60")
	tat := throttleT0.Add(2 * time.Second).UnixNano()
	for _, check := range []struct {
		args []any
		want string
	}{
		{[]any{"GET", "k"}, strconv.FormatInt(tat, 10)},
		{[]any{"TYPE", "k"}, "string"},
		{[]any{"TTL", "k"}, "2"},
		{[]any{"PTTL", "k"}, "2000"},
		{[]any{"EXISTS", "k"}, "1"},
		{[]any{"SCAN", "0"}, "[0 [k]]"},
	} {
		if got := reply(t, c, check.args...); got != check.want {
			t.Errorf("%v: got %s, want %s", check.args, got, check.want)
		}
	}
	s.FastForward(2 * time.Second)
	if got := reply(t, c, "EXISTS", "k"); got != "1" {
		t.Fatalf("at the TAT: EXISTS %s, want 1", got)
	}
	s.FastForward(time.Millisecond)
	if got := reply(t, c, "EXISTS", "k"); got != "0" {
		t.Fatalf("after the TAT: EXISTS %s, want 0", got)
	}
	// A limited request changes nothing; DEL resets the limiter.
	reply(t, c, "CL.THROTTLE", "k", "0", "1", "60")
	before := reply(t, c, "GET", "k")
	reply(t, c, "CL.THROTTLE", "k", "0", "1", "60")
	if got := reply(t, c, "GET", "k"); got != before {
		t.Fatalf("a limited request moved the TAT: %s -> %s", before, got)
	}
	reply(t, c, "DEL", "k")
	if got := reply(t, c, "CL.THROTTLE", "k", "0", "1", "60"); got != "[0 1 0 -1 60]" {
		t.Fatalf("after DEL: %s", got)
	}
	// A TAT written by hand (redis-cell's format) is honoured.
	reply(t, c, "SET", "m", strconv.FormatInt(s.Now().Add(time.Minute).UnixNano(), 10))
	if got := reply(t, c, "CL.THROTTLE", "m", "0", "1", "60"); got != "[1 1 0 60 60]" {
		t.Fatalf("hand-written TAT: %s", got)
	}
	reply(t, c, "SET", "m", "+"+strconv.FormatInt(s.Now().Add(-time.Minute).UnixNano(), 10))
	if got := reply(t, c, "CL.THROTTLE", "m", "0", "1", "60"); got != "[0 1 0 -1 60]" {
		t.Fatalf("TAT in the past: %s", got)
	}
}

func TestThrottleErrors(t *testing.T) {
	_, c := throttleServer(t)
	reply(t, c, "HSET", "h", "f", "v")
	reply(t, c, "SET", "word", "abc")
	reply(t, c, "SET", "empty", "")
	reply(t, c, "SET", "big", "99999999999999999999")
	reply(t, c, "SET", "negative", "-5")
	arity := "ERR: ERR wrong number of arguments for 'cl.throttle' command"
	for _, tc := range []struct {
		args string
		want string
	}{
		{"cl.throttle", arity},
		{"cl.throttle k 1 2", arity},
		{"cl.throttle k 1 2 3 4 5", arity},
		{"cl.throttle k x 30 60", "ERR: Cell error: Store error: Couldn't parse as integer: x"},
		{"cl.throttle k 15 30.0 60", "ERR: Cell error: Store error: Couldn't parse as integer: 30.0"},
		{"cl.throttle k 15 30 60 1e3", "ERR: Cell error: Store error: Couldn't parse as integer: 1e3"},
		{"cl.throttle k 15 30 9223372036854775808", "ERR: Cell error: Store error: Couldn't parse as integer: 9223372036854775808"},
		{"cl.throttle k x y 60", "ERR: Cell error: Store error: Couldn't parse as integer: x"},
		{"cl.throttle k 15 30 60 -", "ERR: Cell error: Store error: Couldn't parse as integer: -"},
		{"cl.throttle k 15 0 60", "ERR: Cell error: Store error: Zero rates are not supported"},
		{"cl.throttle k 15 30 0", "ERR: Cell error: Store error: Zero rates are not supported"},
		{"cl.throttle k 15 2000000000 1", "ERR: Cell error: Store error: Zero rates are not supported"},
		{"cl.throttle k -1 30 60", "ERR: Cell error: Store error: Negative max_burst is not supported"},
		{"cl.throttle k 1 -30 60", "ERR: Cell error: Store error: Negative count per period is not supported"},
		{"cl.throttle k 1 30 -60", "ERR: Cell error: Store error: Negative period is not supported"},
		{"cl.throttle k 1 30 60 -1", "ERR: Cell error: Store error: Negative quantity is not supported"},
		{"cl.throttle h 1 30 60", "ERR: WRONGTYPE Operation against a key holding the wrong kind of value"},
		{"cl.throttle word 1 30 60", "ERR: Cell error: invalid digit found in string"},
		{"cl.throttle empty 1 30 60", "ERR: Cell error: cannot parse integer from empty string"},
		{"cl.throttle big 1 30 60", "ERR: Cell error: number too large to fit in target type"},
		{"cl.throttle negative 1 30 60", "ERR: Cell error: invalid digit found in string"},
		// Rust's integer parser takes a sign and leading zeros.
		{"cl.throttle k +15 030 60 +1", "[0 16 15 -1 2]"},
		{"CL.THROTTLE fresh -0 1 1 -0", "[0 1 1 -1 0]"},
	} {
		var args []any
		for _, a := range strings.Fields(tc.args) {
			args = append(args, a)
		}
		if got := reply(t, c, args...); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.args, got, tc.want)
		}
	}
	if got := reply(t, c, "CL.THROTTLE", "k", "1\r\n2", "1", "1"); got != "ERR: Cell error: Store error: Couldn't parse as integer: 1  2" {
		t.Errorf("newline in argument: %q", got)
	}
}

// TestThrottleScriptsAndMulti: the same handler from redis.call and EXEC;
// everything in one script or transaction sees one instant.
func TestThrottleScriptsAndMulti(t *testing.T) {
	_, c := throttleServer(t)
	ctx := context.Background()
	if got := reply(t, c, "EVAL", "return redis.call('CL.THROTTLE', KEYS[1], 15, 30, 60)", 1, "s"); got != "[0 16 15 -1 2]" {
		t.Fatalf("from a script: %s", got)
	}
	if got := reply(t, c, "EVAL", "return redis.pcall('CL.THROTTLE', KEYS[1], 'x', 30, 60)", 1, "s"); !strings.HasPrefix(got, "ERR: Cell error: Store error: Couldn't parse as integer: x") {
		t.Fatalf("error from a script: %s", got)
	}
	if got := reply(t, c, "EVAL", "return redis.call('CL.THROTTLE', KEYS[1], 1, 30)", 1, "s"); !strings.HasPrefix(got, "ERR: ERR Wrong number of args calling Redis command from script") {
		t.Fatalf("arity from a script: %s", got)
	}
	if got := reply(t, c, "EVAL", "#!lua flags=no-writes\nreturn redis.call('CL.THROTTLE', KEYS[1], 1, 30, 60)", 1, "s"); !strings.Contains(got, "Write commands are not allowed from read-only scripts") {
		t.Fatalf("from a read-only script: %s", got)
	}
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Do(ctx, "CL.THROTTLE", "m", 0, 1, 60)
		p.Do(ctx, "CL.THROTTLE", "m", 0, 1, 60)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(cmds[0].(*redis.Cmd).Val(), cmds[1].(*redis.Cmd).Val()); got != "[0 1 0 -1 60] [1 1 0 60 60]" {
		t.Fatalf("in MULTI: %s", got)
	}
}

// TestThrottleTransactions: too few arguments abort a transaction as any
// arity error does; a decision touches a WATCHed key, a limited one does not.
func TestThrottleTransactions(t *testing.T) {
	s, c := throttleServer(t)
	ctx := context.Background()
	other := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { other.Close() })
	conn := c.Conn()
	t.Cleanup(func() { conn.Close() })
	do := func(args ...any) string {
		v, err := conn.Do(ctx, args...).Result()
		if err != nil {
			return "ERR: " + err.Error()
		}
		return fmt.Sprint(v)
	}
	do("MULTI")
	if got := do("CL.THROTTLE", "k", 1, 2); got != "ERR: ERR wrong number of arguments for 'cl.throttle' command" {
		t.Fatalf("queued with 4 arguments: %s", got)
	}
	if got := do("EXEC"); !strings.HasPrefix(got, "ERR: EXECABORT") {
		t.Fatalf("EXEC: %s", got)
	}
	for _, tc := range []struct {
		other string
		want  string
	}{
		{"[0 1 0 -1 60]", "nil"},  // allowed: the TAT moved
		{"[1 1 0 60 60]", "[OK]"}, // limited: nothing changed
	} {
		do("WATCH", "w")
		if got := fmt.Sprint(other.Do(ctx, "CL.THROTTLE", "w", 0, 1, 60).Val()); got != tc.other {
			t.Fatalf("other client: %s, want %s", got, tc.other)
		}
		do("MULTI")
		do("SET", "x", "1")
		got, err := conn.Do(ctx, "EXEC").Result()
		if (err == redis.Nil && tc.want != "nil") || (err == nil && fmt.Sprint(got) != tc.want) {
			t.Fatalf("EXEC after %s: %v %v, want %s", tc.other, got, err, tc.want)
		}
	}
	// Keys are binary-safe.
	key := "rate:\x00\xff:k"
	if got := reply(t, c, "CL.THROTTLE", key, 0, 1, 60); got != "[0 1 0 -1 60]" {
		t.Fatalf("binary key: %s", got)
	}
	if got := reply(t, c, "EXISTS", key); got != "1" {
		t.Fatalf("binary key EXISTS: %s", got)
	}
}

func TestThrottleCommandInfo(t *testing.T) {
	_, c := throttleServer(t)
	got := reply(t, c, "COMMAND", "INFO", "cl.throttle")
	if want := "[[cl.throttle -5 [write denyoom fast] 1 1 1 [@write @fast]"; !strings.HasPrefix(got, want) {
		t.Fatalf("COMMAND INFO: %s, want prefix %s", got, want)
	}
	if got := reply(t, c, "COMMAND", "GETKEYS", "CL.THROTTLE", "user123", "15", "30", "60"); got != "[user123]" {
		t.Fatalf("COMMAND GETKEYS: %s", got)
	}
}

func TestThrottleUnits(t *testing.T) {
	for _, tc := range []struct{ ns, want int64 }{
		{-1, -1}, {0, 0}, {999_999, 0}, {1_000_000, 1}, {1e9, 1}, {1e9 + 999_999, 1},
		{1e9 + 1e6, 2}, {2e9, 2}, {math.MaxInt64, 9223372037},
	} {
		if got := cellSeconds(tc.ns); got != tc.want {
			t.Errorf("cellSeconds(%d) = %d, want %d", tc.ns, got, tc.want)
		}
	}
	for _, tc := range []struct{ count, period, want int64 }{
		{30, 60, 2e9}, {3, 1, 333333333}, {6000, 1, 166666}, {1e9, 1, 1}, {1e9 + 1, 1, 0},
		{0, 1, 0}, {1, 0, 0}, {1, math.MaxInt64, math.MaxInt64}, {math.MaxInt64, math.MaxInt64, 1e9},
	} {
		if got := emissionInterval(tc.count, tc.period); got != tc.want {
			t.Errorf("emissionInterval(%d, %d) = %d, want %d", tc.count, tc.period, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"+7", 7, true}, {"-7", -7, true}, {"007", 7, true},
		{"9223372036854775807", math.MaxInt64, true}, {"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false},
		{"99999999999999999999999", 0, false}, {"", 0, false}, {"+", 0, false}, {" 1", 0, false},
		{"1 ", 0, false}, {"0x10", 0, false}, {"+-1", 0, false},
	} {
		got, ok := parseRustInt([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseRustInt(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestThrottleAllocations: a decision on an existing key allocates nothing.
func TestThrottleAllocations(t *testing.T) {
	s := startClockedServer(t, throttleT0)
	c := &Client{srv: s.Server, db: s.store.DB(0), w: &discardWriter{}}
	args := [][]byte{[]byte("CL.THROTTLE"), []byte("rate:api:user42"), []byte("15"), []byte("30"), []byte("60")}
	s.Do(func() {
		cmdThrottle(c, args)
		if n := testing.AllocsPerRun(100, func() { cmdThrottle(c, args) }); n != 0 {
			t.Errorf("%v allocations per decision, want 0", n)
		}
	})
}

// TestThrottleWire: the reply and an error, byte for byte, on RESP2 and
// after HELLO 3 (an array of integers either way; errors are "-Cell error").
func TestThrottleWire(t *testing.T) {
	s := startClockedServer(t, throttleT0)
	for _, hello := range []string{"", "HELLO 3\r\n"} {
		conn, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		r := bufio.NewReader(conn)
		// Whatever HELLO answers, PING's reply follows it.
		conn.Write([]byte(hello + "PING\r\n"))
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if line == "+PONG\r\n" {
				break
			}
		}
		key := "wire" + strconv.Itoa(len(hello))
		conn.Write([]byte("CL.THROTTLE " + key + " 15 30 60\r\nCL.THROTTLE " + key + " 15 x 60\r\n"))
		want := "*5\r\n:0\r\n:16\r\n:15\r\n:-1\r\n:2\r\n-Cell error: Store error: Couldn't parse as integer: x\r\n"
		buf := make([]byte, len(want))
		if _, err := io.ReadFull(r, buf); err != nil || string(buf) != want {
			t.Fatalf("hello %q: got %q (%v), want %q", hello, buf, err, want)
		}
	}
}
