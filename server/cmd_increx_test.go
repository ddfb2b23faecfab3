package server

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// increxStep is one command at an offset from throttleT0 (unix ms
// 1767225600000) and its reply as reply() renders it.
type increxStep struct {
	at   time.Duration
	cmd  string
	want string
}

func runIncrExSteps(t *testing.T, steps []increxStep) {
	t.Helper()
	s, c := throttleServer(t)
	runIncrExStepsOn(t, s, c, steps)
}

func runIncrExStepsOn(t *testing.T, s *clockedServer, c *redis.Client, steps []increxStep) {
	t.Helper()
	for i, st := range steps {
		s.SetTime(throttleT0.Add(st.at))
		var args []any
		for _, a := range strings.Fields(st.cmd) {
			args = append(args, a)
		}
		if got := reply(t, c, args...); got != st.want {
			t.Fatalf("step %d (at %v, %s): got %s, want %s", i, st.at, st.cmd, got, st.want)
		}
	}
}

// TestIncrExGolden: INCREX's documented behaviour (redis.io/commands/increx,
// Redis 8.8; NX|XX from Valkey 9.2), one vector per option and error, on
// the manual clock. Where the documentation is silent the vector follows
// docs/increx.md.
func TestIncrExGolden(t *testing.T) {
	const (
		maxI = "9223372036854775807"
		minI = "-9223372036854775808"
	)
	cases := []struct {
		name  string
		steps []increxStep
	}{
		{"default increments by one from 0", []increxStep{
			{0, "INCREX k", "[1 1]"},
			{0, "INCREX k", "[2 1]"},
			{0, "GET k", "2"},
			{0, "TTL k", "-1"},
		}},
		{"byint negative", []increxStep{
			{0, "INCREX k BYINT -5", "[-5 -5]"},
			{0, "INCREX k BYINT 3", "[-2 3]"},
		}},
		{"ubound skips and leaves key and ttl", []increxStep{
			{0, "SET k 9 EX 100", "OK"},
			{0, "INCREX k BYINT 5 UBOUND 10 EX 5", "[9 0]"},
			{0, "TTL k", "100"},
			{0, "INCREX k UBOUND 10 EX 5", "[10 1]"},
			{0, "TTL k", "5"},
			{0, "INCREX k UBOUND 10", "[10 0]"},
		}},
		{"skip on a missing key creates nothing", []increxStep{
			{0, "INCREX k BYINT 5 UBOUND 3 EX 10", "[0 0]"},
			{0, "EXISTS k", "0"},
		}},
		{"saturate clamps to the bound", []increxStep{
			{0, "SET k 9", "OK"},
			{0, "INCREX k BYINT 5 UBOUND 10 SATURATE", "[10 1]"},
			{0, "INCREX k BYINT -50 LBOUND -3 SATURATE", "[-3 -13]"},
			{0, "INCREX k BYINT -1 LBOUND -3 SATURATE", "[-3 0]"},
		}},
		{"saturate keeps a value already beyond the bound", []increxStep{
			{0, "SET k 200", "OK"},
			{0, "INCREX k BYINT 100 UBOUND 50 SATURATE", "[200 0]"},
			{0, "INCREX k BYINT -100 UBOUND 50", "[200 0]"},
			{0, "INCREX k BYINT -160 UBOUND 50", "[40 -160]"},
		}},
		{"int64 limits: overflow skips", []increxStep{
			{0, "SET k " + maxI, "OK"},
			{0, "INCREX k", "[" + maxI + " 0]"},
			{0, "GET k", maxI},
			{0, "SET k " + minI, "OK"},
			{0, "INCREX k BYINT -1", "[" + minI + " 0]"},
		}},
		{"int64 limits: saturate at the type limits", []increxStep{
			{0, "SET k 9223372036854775800", "OK"},
			{0, "INCREX k BYINT 100 SATURATE", "[" + maxI + " 7]"},
			{0, "SET k -9223372036854775800", "OK"},
			{0, "INCREX k BYINT -100 SATURATE", "[" + minI + " -8]"},
			{0, "INCREX k BYINT " + maxI + " LBOUND " + minI + " UBOUND " + maxI, "[-1 " + maxI + "]"},
		}},
		{"bounds at the int64 limits accepted", []increxStep{
			{0, "INCREX k LBOUND " + minI + " UBOUND " + maxI, "[1 1]"},
		}},
		{"byfloat", []increxStep{
			{0, "INCREX k BYFLOAT 1.5", "[1.5 1.5]"},
			{0, "INCREX k BYFLOAT 0.1", "[1.6 0.1]"},
			{0, "SET k 3", "OK"},
			{0, "INCREX k BYFLOAT -0.5", "[2.5 -0.5]"},
			{0, "INCREX k BYFLOAT 10 UBOUND 5", "[2.5 0]"},
			{0, "INCREX k BYFLOAT 10 UBOUND 5.25 SATURATE", "[5.25 2.75]"},
			{0, "INCREX k BYFLOAT -10 LBOUND -1e2 SATURATE", "[-4.75 -10]"},
			{0, "OBJECT ENCODING k", "embstr"},
		}},
		{"byfloat NaN or infinity refused", []increxStep{
			{0, "SET k 1.18973149535723176502e+4932", "OK"},
			{0, "INCREX k BYFLOAT 1.18973149535723176502e+4932", "ERR: ERR increment would produce NaN or Infinity"},
		}},
		{"byint on a float is refused", []increxStep{
			{0, "SET k 1.5", "OK"},
			{0, "INCREX k", "ERR: ERR value is not an integer or out of range"},
			{0, "INCREX k BYINT 1", "ERR: ERR value is not an integer or out of range"},
			{0, "SET k abc", "OK"},
			{0, "INCREX k BYFLOAT 1", "ERR: ERR value is not a valid float"},
		}},
		{"wrong type", []increxStep{
			{0, "LPUSH k a", "1"},
			{0, "INCREX k", "ERR: WRONGTYPE Operation against a key holding the wrong kind of value"},
		}},
		{"ex px exat pxat set the ttl", []increxStep{
			{0, "INCREX k EX 10", "[1 1]"},
			{0, "PTTL k", "10000"},
			{0, "INCREX k PX 2500", "[2 1]"},
			{0, "PTTL k", "2500"},
			{0, "INCREX k EXAT 1767225700", "[3 1]"},
			{0, "TTL k", "100"},
			{0, "INCREX k PXAT 1767225600500", "[4 1]"},
			{0, "PTTL k", "500"},
			{time.Second, "EXISTS k", "0"},
		}},
		// "INCREX key EX|PX n" skips the option parser: its case folding
		// and the tokens it must not take for EX or PX.
		{"the lone ex or px in any case", []increxStep{
			{0, "INCREX k ex 10", "[1 1]"},
			{0, "PTTL k", "10000"},
			{0, "INCREX k pX 2500", "[2 1]"},
			{0, "PTTL k", "2500"},
			{0, "INCREX k Ex 0", "ERR: ERR invalid expire time in 'increx' command"},
			{0, "INCREX k EY 10", "ERR: ERR syntax error"},
			{0, "INCREX k XX 10", "ERR: ERR syntax error"},
			{0, "INCREX k NX 10", "ERR: ERR syntax error"},
			{0, "INCREX k ENX 10", "ERR: ERR syntax error"},
			{0, "INCREX k XX", "[3 1]"},
			{0, "PTTL k", "2500"},
		}},
		{"no expiry option keeps the ttl", []increxStep{
			{0, "INCREX k EX 10", "[1 1]"},
			{4 * time.Second, "INCREX k", "[2 1]"},
			{4 * time.Second, "TTL k", "6"},
		}},
		{"exat in the past deletes the key", []increxStep{
			{0, "INCREX k EXAT 1", "[1 1]"},
			{0, "EXISTS k", "0"},
		}},
		{"enx sets the ttl only on a key without one", []increxStep{
			{0, "INCREX k EX 10 ENX", "[1 1]"},
			{3 * time.Second, "INCREX k EX 10 ENX", "[2 1]"},
			{3 * time.Second, "TTL k", "7"},
			{11 * time.Second, "EXISTS k", "0"},
			{11 * time.Second, "SET k 5", "OK"},
			{11 * time.Second, "INCREX k ENX PX 1500", "[6 1]"},
			{11 * time.Second, "PTTL k", "1500"},
		}},
		{"a kept deadline equal to now is still live", []increxStep{
			{0, "SET k 1 PX 1000", "OK"},
			{time.Second, "INCREX k EX 10 ENX", "[2 1]"},
			{time.Second, "INCREX k", "[3 1]"},
			{time.Second, "GET k", "3"},
			{time.Second + time.Millisecond, "EXISTS k", "0"},
		}},
		{"persist removes the ttl", []increxStep{
			{0, "SET k 1 EX 10", "OK"},
			{0, "INCREX k PERSIST", "[2 1]"},
			{0, "TTL k", "-1"},
			{0, "INCREX k PERSIST", "[3 1]"},
		}},
		{"nx and xx", []increxStep{
			{0, "INCREX k XX", "nil"},
			{0, "EXISTS k", "0"},
			{0, "INCREX k NX EX 10", "[1 1]"},
			{0, "INCREX k NX", "nil"},
			{0, "INCREX k XX", "[2 1]"},
			{0, "TTL k", "10"},
		}},
		{"fixed window rate limit", []increxStep{
			{0, "INCREX rl UBOUND 2 EX 1 ENX", "[1 1]"},
			{100 * time.Millisecond, "INCREX rl UBOUND 2 EX 1 ENX", "[2 1]"},
			{200 * time.Millisecond, "INCREX rl UBOUND 2 EX 1 ENX", "[2 0]"},
			{999 * time.Millisecond, "INCREX rl UBOUND 2 EX 1 ENX", "[2 0]"},
			{1001 * time.Millisecond, "INCREX rl UBOUND 2 EX 1 ENX", "[1 1]"},
		}},
		{"syntax errors", []increxStep{
			{0, "INCREX k BYINT 1 BYFLOAT 1", "ERR: ERR syntax error"},
			{0, "INCREX k BYFLOAT 1 BYINT 1", "ERR: ERR syntax error"},
			{0, "INCREX k BYINT", "ERR: ERR syntax error"},
			{0, "INCREX k LBOUND", "ERR: ERR syntax error"},
			{0, "INCREX k UBOUND", "ERR: ERR syntax error"},
			{0, "INCREX k EX", "ERR: ERR syntax error"},
			{0, "INCREX k EX 1 PX 1", "ERR: ERR syntax error"},
			{0, "INCREX k EX 1 PERSIST", "ERR: ERR syntax error"},
			{0, "INCREX k PERSIST EX 1", "ERR: ERR syntax error"},
			{0, "INCREX k PERSIST ENX", "ERR: ERR syntax error"},
			{0, "INCREX k ENX PERSIST", "ERR: ERR syntax error"},
			{0, "INCREX k NX XX", "ERR: ERR syntax error"},
			{0, "INCREX k FOO", "ERR: ERR syntax error"},
			{0, "INCREX k BYINT x FOO", "ERR: ERR syntax error"},
			{0, "EXISTS k", "0"},
		}},
		{"the same option twice takes the last", []increxStep{
			{0, "INCREX k BYINT 1 BYINT 5 EX 1 EX 20", "[5 5]"},
			{0, "TTL k", "20"},
		}},
		{"value errors", []increxStep{
			{0, "INCREX k BYINT x", "ERR: ERR value is not an integer or out of range"},
			{0, "INCREX k BYINT 1.5", "ERR: ERR value is not an integer or out of range"},
			{0, "INCREX k BYINT 9223372036854775808", "ERR: ERR value is not an integer or out of range"},
			{0, "INCREX k LBOUND 1.5", "ERR: ERR value is not an integer or out of range"},
			{0, "INCREX k UBOUND x", "ERR: ERR value is not an integer or out of range"},
			{0, "INCREX k BYFLOAT x", "ERR: ERR value is not a valid float"},
			{0, "INCREX k BYFLOAT 1 UBOUND x", "ERR: ERR value is not a valid float"},
			{0, "INCREX k LBOUND 5 UBOUND 4", "ERR: ERR LBOUND must be less than or equal to UBOUND"},
			{0, "INCREX k BYFLOAT 1 LBOUND 5 UBOUND 4.5", "ERR: ERR LBOUND must be less than or equal to UBOUND"},
			{0, "INCREX k ENX", "ERR: ERR ENX flag requires an expiration"},
			{0, "INCREX k EX 0", "ERR: ERR invalid expire time in 'increx' command"},
			{0, "INCREX k PX -1", "ERR: ERR invalid expire time in 'increx' command"},
			{0, "INCREX k EX 9223372036854775", "ERR: ERR invalid expire time in 'increx' command"},
			{0, "INCREX k EX x", "ERR: ERR value is not an integer or out of range"},
			{0, "EXISTS k", "0"},
		}},
		{"arity", []increxStep{
			{0, "INCREX", "ERR: ERR wrong number of arguments for 'increx' command"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runIncrExSteps(t, tc.steps) })
	}
}

// TestGCRAGolden: GCRA as Redis documented it for 8.8, on the manual clock,
// and its key shared with CL.THROTTLE. Where the documentation is silent
// (the reply's rounding, the range errors) the vector follows
// docs/increx.md#gcra.
func TestGCRAGolden(t *testing.T) {
	cases := []struct {
		name  string
		steps []increxStep
	}{
		{"redis-cell's readme", []increxStep{
			{0, "GCRA k 15 30 60", "[0 16 15 -1 2]"},
			{0, "GCRA k 15 30 60 TOKENS 1", "[0 16 14 -1 4]"},
		}},
		{"a float period", []increxStep{
			{0, "GCRA k 0 1 1.5", "[0 1 0 -1 2]"},
			{0, "GCRA k 0 1 1.5", "[1 1 0 2 2]"},
			{1499 * time.Millisecond, "GCRA k 0 1 1.5", "[1 1 0 1 1]"},
			{1500 * time.Millisecond, "GCRA k 0 1 1.5", "[0 1 0 -1 2]"},
		}},
		{"tokens larger than the burst", []increxStep{
			{0, "GCRA k 5 1 60 TOKENS 10", "[1 6 6 -1 0]"},
			{0, "EXISTS k", "0"},
			{0, "GCRA k 5 1 60 TOKENS 6", "[0 6 0 -1 360]"},
			{0, "GCRA k 5 1 60 TOKENS 7", "[1 6 0 -1 360]"},
		}},
		{"tokens 0 peeks", []increxStep{
			{0, "GCRA k 15 30 60 TOKENS 0", "[0 16 16 -1 0]"},
			{0, "GCRA k 15 30 60", "[0 16 15 -1 2]"},
			{0, "GCRA k 15 30 60 TOKENS 0", "[0 16 15 -1 2]"},
		}},
		{"the key is CL.THROTTLE's", []increxStep{
			{0, "GCRA k 15 30 60", "[0 16 15 -1 2]"},
			{0, "CL.THROTTLE k 15 30 60", "[0 16 14 -1 4]"},
			{0, "GET k", "1767225604000000000"},
			{0, "PTTL k", "4000"},
			{0, "GCRA k 15 30 60", "[0 16 13 -1 6]"},
		}},
		{"the interval in whole microseconds", []increxStep{
			{0, "GCRA k 0 7 1", "[0 1 0 -1 1]"},
			{0, "GET k", "1767225600142857000"},
			{0, "CL.THROTTLE c 0 7 1", "[0 1 0 -1 1]"},
			{0, "GET c", "1767225600142857142"},
		}},
		{"errors", []increxStep{
			{0, "GCRA k", "ERR: ERR wrong number of arguments for 'gcra' command"},
			{0, "GCRA k 1 1", "ERR: ERR wrong number of arguments for 'gcra' command"},
			{0, "GCRA k 1 1 1 TOKENS", "ERR: ERR syntax error"},
			{0, "GCRA k 1 1 1 FOO 1", "ERR: ERR syntax error"},
			{0, "GCRA k 1 1 1 TOKENS 1 2", "ERR: ERR syntax error"},
			{0, "GCRA k x 1 1", "ERR: ERR value is not an integer or out of range"},
			{0, "GCRA k 1 x 1", "ERR: ERR value is not an integer or out of range"},
			{0, "GCRA k 1 1 x", "ERR: ERR value is not a valid float"},
			{0, "GCRA k 1 1 1 TOKENS x", "ERR: ERR value is not an integer or out of range"},
			{0, "GCRA k -1 1 1", "ERR: ERR max_burst must be greater than or equal to 0"},
			{0, "GCRA k 1 0 1", "ERR: ERR tokens_per_period must be greater than or equal to 1"},
			{0, "GCRA k 1 1 0.5", "ERR: ERR period must be greater than or equal to 1.0"},
			{0, "GCRA k 1 1 nan", "ERR: ERR value is not a valid float"},
			{0, "GCRA k 1 1 1 TOKENS -1", "ERR: ERR TOKENS must be greater than or equal to 0"},
			{0, "GCRA k 1 2000000 1", "ERR: ERR GCRA limiting uses microsecond accuracy. Combination of period, tokens_per_period and tokens would cause an overflow"},
			{0, "GCRA k 9223372036854775807 1 1", "ERR: ERR GCRA limiting uses microsecond accuracy. Combination of period, tokens_per_period and tokens would cause an overflow"},
			{0, "EXISTS k", "0"},
			{0, "LPUSH l a", "1"},
			{0, "GCRA l 1 1 1", "ERR: WRONGTYPE Operation against a key holding the wrong kind of value"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runIncrExSteps(t, tc.steps) })
	}
}
