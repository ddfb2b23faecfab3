package conformance

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestList(t *testing.T) {
	var many strings.Builder
	many.WriteString("RPUSH big")
	for i := range 600 {
		fmt.Fprintf(&many, " element-%d", i)
	}
	long := strings.Repeat("x", 3000)
	runCases(t, []tcase{
		{"push-pop", []string{
			"LPUSH l a b c", "RPUSH l d e", "LRANGE l 0 -1", "LLEN l", "TYPE l", "OBJECT ENCODING l",
			"LPOP l", "RPOP l", "LPOP l 2", "RPOP l 5", "EXISTS l", "LPOP l", "RPOP l", "LPOP l 2", "RPOP l 0",
			"RPUSH l x", "LPOP l 0", "RPOP l 0", "LPOP l 1", "EXISTS l",
			`RPUSH b "" "bin\x00ary" 12 -5`, "LRANGE b 0 -1", "LPOP b", "RPOP b",
		}},
		{"pushx", []string{
			"LPUSHX l a", "RPUSHX l a b", "EXISTS l", "RPUSH l a", "LPUSHX l b c", "RPUSHX l d", "LRANGE l 0 -1",
		}},
		{"pop-count-errors", []string{
			"RPUSH l a b", "LPOP l -1", "LPOP l x", "RPOP l 1.5", "LPOP l 1 2", "RPOP l 1 2", "LPOP nokey -1", "LPOP nokey 3",
			"RPOP nokey", "LPOP l 9223372036854775807", "LPOP l 9223372036854775808",
		}},
		{"lindex-lset", []string{
			"RPUSH l a b c", "LINDEX l 0", "LINDEX l -1", "LINDEX l 3", "LINDEX l -4", "LINDEX l x", "LINDEX nokey x",
			"LINDEX nokey 0", "LINDEX l 9223372036854775807", "LINDEX l -9223372036854775808",
			"LSET l 1 B", "LSET l -1 C", "LRANGE l 0 -1", "LSET l 3 x", "LSET l -4 x", "LSET l x y", "LSET nokey 0 a",
			"LSET nokey x a", "LSET l 0 " + long, "LINDEX l 1", "LSET l 0 short", "LRANGE l 0 -1",
		}},
		{"lrange", []string{
			"RPUSH l 1 2 3 4 5", "LRANGE l 0 0", "LRANGE l -2 -1", "LRANGE l -100 100", "LRANGE l 3 1", "LRANGE l 5 10",
			"LRANGE l -1 -2", "LRANGE l x 1", "LRANGE l 1 y", "LRANGE nokey 0 -1", "LRANGE nokey x 1",
			"LRANGE l 0 9223372036854775807", "LRANGE l -9223372036854775808 1",
		}},
		{"ltrim", []string{
			"RPUSH l 1 2 3 4 5", "LTRIM l 1 -2", "LRANGE l 0 -1", "LTRIM l -100 100", "LRANGE l 0 -1",
			"LTRIM l 1 1", "LRANGE l 0 -1", "LTRIM l 5 10", "EXISTS l", "LTRIM nokey 0 1", "LTRIM l x 1",
			"RPUSH m a b c", "LTRIM m 2 1", "EXISTS m", "RPUSH m a b c", "LTRIM m 0 y", "LTRIM m -1 -1", "LRANGE m 0 -1",
		}},
		{"lrem", []string{
			"RPUSH l a b a c a b a", "LREM l 2 a", "LRANGE l 0 -1", "LREM l -1 a", "LRANGE l 0 -1", "LREM l 0 b",
			"LRANGE l 0 -1", "LREM l 0 zz", "LREM l 0 c", "EXISTS l", "LREM nokey 0 a", "LREM l x a",
			"RPUSH m a a", "LREM m -9223372036854775808 a", "EXISTS m", "RPUSH m a a", "LREM m 9223372036854775807 a",
		}},
		{"linsert", []string{
			"RPUSH l a b c", "LINSERT l BEFORE b x", "LINSERT l after c y", "LINSERT l before zz q", "LRANGE l 0 -1",
			"LINSERT l middle b q", "LINSERT nokey before a b", "EXISTS nokey", "LINSERT nokey middle a b",
			"LINSERT l AFTER a " + long, "LLEN l", "LINDEX l 1",
		}},
		{"lpos", []string{
			"RPUSH l a b c a b c a", "LPOS l a", "LPOS l c", "LPOS l z", "LPOS l a RANK 2", "LPOS l a RANK -1",
			"LPOS l a RANK -2", "LPOS l a RANK 9", "LPOS l a COUNT 0", "LPOS l a COUNT 2", "LPOS l a RANK -1 COUNT 2",
			"LPOS l a COUNT 0 MAXLEN 4", "LPOS l c MAXLEN 2", "LPOS l c MAXLEN 3", "LPOS l a RANK 2 COUNT 0 MAXLEN 5",
			"LPOS l a RANK 0", "LPOS l a RANK x", "LPOS l a COUNT -1", "LPOS l a COUNT x", "LPOS l a MAXLEN -1",
			"LPOS l a MAXLEN y", "LPOS l a RANK", "LPOS l a FOO 1", "LPOS l a count 1 count 2",
			"LPOS nokey a", "LPOS nokey a COUNT 1", "LPOS nokey a RANK 0", "LPOS l a RANK -9223372036854775808",
			"LPOS l a RANK 9223372036854775807", "LPOS l z COUNT 3",
		}},
		{"lmove", []string{
			"RPUSH s 1 2 3", "LMOVE s d LEFT RIGHT", "LMOVE s d RIGHT LEFT", "LRANGE s 0 -1", "LRANGE d 0 -1",
			"LMOVE s s LEFT RIGHT", "LRANGE s 0 -1", "LMOVE s d left left", "EXISTS s", "LMOVE s d LEFT LEFT",
			"LMOVE s d UP LEFT", "LMOVE s d LEFT DOWN", "RPOPLPUSH d d", "LRANGE d 0 -1", "RPOPLPUSH d e", "RPOPLPUSH nokey e",
			"SET str x", "RPOPLPUSH d str", "LRANGE d 0 -1", "RPOPLPUSH str d", "LMOVE nokey str LEFT LEFT",
			"RPUSH one a", "RPOPLPUSH one one", "LRANGE one 0 -1",
		}},
		{"lmpop", []string{
			"RPUSH a 1 2 3", "RPUSH b 4 5", "LMPOP 2 nokey a LEFT", "LMPOP 2 nokey a RIGHT COUNT 5", "EXISTS a",
			"LMPOP 2 a b LEFT COUNT 1", "LMPOP 1 nokey LEFT", "LMPOP 0 a LEFT", "LMPOP -1 a LEFT", "LMPOP x a LEFT",
			"LMPOP 2 a LEFT", "LMPOP 1 b MIDDLE", "LMPOP 1 b LEFT COUNT 0", "LMPOP 1 b LEFT COUNT -1", "LMPOP 1 b LEFT COUNT x",
			"LMPOP 1 b LEFT COUNT 1 COUNT 1", "LMPOP 1 b LEFT FOO", "LMPOP 1 b LEFT COUNT", "LMPOP 3 b LEFT", "LMPOP 5 b",
			"SET str x", "LMPOP 2 str b LEFT", "LMPOP 2 b str LEFT", "LMPOP 2 nokey str LEFT",
		}},
		{"big", []string{
			many.String(), "LLEN big", "LINDEX big 300", "LINDEX big -1", "LRANGE big 295 305", "LSET big 300 " + long,
			"LINDEX big 300", "LINSERT big BEFORE element-450 ins", "LPOS big ins", "LREM big 0 element-7",
			"LTRIM big 100 -100", "LLEN big", "LRANGE big 0 2", "LRANGE big -3 -1", "RPOP big 3", "LPOP big 3", "OBJECT ENCODING big",
		}},
		{"wrongtype", []string{
			"SET str x", "LPUSH str a", "RPUSH str a", "LPUSHX str a", "RPUSHX str a", "LPOP str", "RPOP str 2", "LLEN str",
			"LINDEX str 0", "LINDEX str x", "LSET str 0 a", "LSET str x a", "LRANGE str 0 1", "LRANGE str x 1", "LTRIM str 0 1",
			"LREM str 0 a", "LINSERT str BEFORE a b", "LINSERT str x a b", "LPOS str a", "LPOS str a RANK 0", "LMOVE str d LEFT LEFT",
			"RPUSH l a", "GET l", "SADD l a", "HSET l a b", "ZADD l 1 a", "INCR l",
		}},
		{"arity", []string{
			"LPUSH", "LPUSH l", "RPUSH l", "LPUSHX l", "RPUSHX l", "LPOP", "RPOP", "LLEN", "LLEN a b", "LINDEX l", "LSET l 0",
			"LRANGE l 0", "LTRIM l 0", "LREM l 0", "LINSERT l before a", "LPOS l", "LMOVE a b LEFT", "RPOPLPUSH a", "LMPOP 1 a",
		}},
		{"keys", []string{
			"RPUSH l a b", "RENAME l m", "LRANGE m 0 -1", "COPY m n", "RPUSH n c", "LRANGE m 0 -1", "LRANGE n 0 -1",
			"DEL n", "SET s x", "SCAN 0 TYPE list", "SCAN 0 TYPE string", "DEL m n", "EXISTS m n", "RPUSH e a", "EXPIRE e 100", "RPUSH e b", "TTL e", "LPOP e 2", "TTL e",
		}},
		{"multi", []string{
			"MULTI", "RPUSH l a b c", "LPOP l", "LRANGE l 0 -1", "LMOVE l l LEFT RIGHT", "LPOS l c", "LSET l 9 x", "EXEC",
		}},
		{"watch", []string{
			"RPUSH l a", "WATCH l", "@2 RPUSH l b", "MULTI", "LLEN l", "EXEC",
			"WATCH l", "@2 LPUSHX nokey b", "@2 LREM l 0 zz", "@2 LINSERT l BEFORE zz x", "MULTI", "LLEN l", "EXEC",
			"WATCH l", "@2 LPOP l", "MULTI", "LLEN l", "EXEC",
		}},
		{"script", []string{
			"EVAL \"redis.call('RPUSH', KEYS[1], 'a', 'b'); return redis.call('LRANGE', KEYS[1], 0, -1)\" 1 l",
			"EVAL \"return redis.call('LPOP', KEYS[1], 5)\" 1 l", "EVAL \"return redis.call('LPOP', KEYS[1])\" 1 l",
			"EVAL \"return redis.call('LPOP', KEYS[1], 5)\" 1 l", "EVAL \"return redis.call('LPOS', KEYS[1], 'x')\" 1 l",
			"EVAL \"return redis.pcall('LPOS', KEYS[1], 'x', 'RANK', 0)\" 1 l",
			"EVAL \"return redis.call('LMPOP', 1, KEYS[1], 'LEFT')\" 1 l",
		}},
	})
}

// A moving-window limiter kept in a list, as Python's limits library keeps
// it (the access pattern of its acquire and window scripts, written here
// anew): look at the entry `limit - amount` places back, push `amount`
// timestamps, trim to the limit, and count the entries still in the window.
const (
	movingWindowAcquire = `local n = tonumber(ARGV[4])
local limit = tonumber(ARGV[2])
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[3])
local last = redis.call('lindex', KEYS[1], limit - n)
if last and tonumber(last) >= now - window then return false end
local stamps = {}
for i = 1, n do stamps[i] = now end
redis.call('lpush', KEYS[1], unpack(stamps))
redis.call('ltrim', KEYS[1], 0, limit)
redis.call('expire', KEYS[1], window)
return true`
	movingWindowCount = `local since = tonumber(ARGV[1])
local stamps = redis.call('lrange', KEYS[1], 0, tonumber(ARGV[2]))
local inside, oldest = 0, nil
for _, s in ipairs(stamps) do
  local t = tonumber(s)
  if t < since then break end
  inside = inside + 1
  if oldest == nil or t < oldest then oldest = t end
end
return {oldest, inside}`
)

func TestListMovingWindow(t *testing.T) {
	acquire := func(now float64, limit, amount int) string {
		return fmt.Sprintf("EVAL %q 1 mw %v %d 60 %d", movingWindowAcquire, now, limit, amount)
	}
	count := func(since float64, limit int) string {
		return fmt.Sprintf("EVAL %q 1 mw %v %d", movingWindowCount, since, limit)
	}
	lines := []string{}
	for i := range 6 {
		lines = append(lines, acquire(1700000000.25+float64(i), 4, 1))
	}
	lines = append(lines, count(1699999990, 4), "LRANGE mw 0 -1", "!approx=1 TTL mw",
		acquire(1700000100.5, 4, 3), acquire(1700000100.75, 4, 2), count(1700000050, 4), "LLEN mw",
		acquire(1700000200, 2, 5), "LRANGE mw 0 -1")
	runCases(t, []tcase{{"limits-moving-window", lines}})
}

// TestListRandom sends the same seeded random sequence of list commands
// to both servers: values of every size class (1-byte and 2-byte length
// prefixes, values larger than a chunk), lists long enough to span many
// chunks, and every command that edits the middle of a list.
func TestListRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 7))
	value := func() string {
		switch rng.IntN(12) {
		case 0:
			return strings.Repeat("v", 100+rng.IntN(100))
		case 1:
			return strings.Repeat("w", 2000+rng.IntN(2000))
		case 2, 3, 4:
			return fmt.Sprint(rng.IntN(4)) // repeats, for LREM, LPOS, LINSERT
		}
		return fmt.Sprintf("e%d", rng.IntN(100000))
	}
	values := func(n int) string {
		vs := make([]string, n)
		for i := range vs {
			vs[i] = value()
		}
		return strings.Join(vs, " ")
	}
	idx := func() int { return rng.IntN(400) - 200 }
	keys := []string{"a", "b"}
	var lines []string
	for range 800 {
		k, k2 := keys[rng.IntN(2)], keys[rng.IntN(2)]
		var line string
		switch rng.IntN(16) {
		case 0, 1:
			line = "RPUSH " + k + " " + values(1+rng.IntN(40))
		case 2, 3:
			line = "LPUSH " + k + " " + values(1+rng.IntN(40))
		case 4:
			line = fmt.Sprintf("LPOP %s %d", k, rng.IntN(5))
		case 5:
			line = fmt.Sprintf("RPOP %s %d", k, rng.IntN(5))
		case 6:
			line = fmt.Sprintf("LINDEX %s %d", k, idx())
		case 7:
			line = fmt.Sprintf("LSET %s %d %s", k, idx(), value())
		case 8:
			line = fmt.Sprintf("LRANGE %s %d %d", k, idx(), idx())
		case 9:
			if rng.IntN(4) == 0 {
				line = fmt.Sprintf("LTRIM %s %d %d", k, idx(), idx())
			} else {
				line = "LLEN " + k
			}
		case 10:
			line = fmt.Sprintf("LREM %s %d %d", k, rng.IntN(5)-2, rng.IntN(4))
		case 11:
			line = fmt.Sprintf("LINSERT %s %s %d %s", k, []string{"BEFORE", "AFTER"}[rng.IntN(2)], rng.IntN(4), value())
		case 12:
			line = fmt.Sprintf("LPOS %s %d RANK %d COUNT %d MAXLEN %d", k, rng.IntN(4), rng.IntN(7)-3|1, rng.IntN(3), rng.IntN(3)*50)
		case 13:
			line = fmt.Sprintf("LMOVE %s %s %s %s", k, k2, []string{"LEFT", "RIGHT"}[rng.IntN(2)], []string{"LEFT", "RIGHT"}[rng.IntN(2)])
		case 14:
			line = fmt.Sprintf("LMPOP 2 %s %s %s COUNT %d", k, k2, []string{"LEFT", "RIGHT"}[rng.IntN(2)], 1+rng.IntN(3))
		case 15:
			line = "LRANGE " + k + " 0 -1"
		}
		lines = append(lines, line)
	}
	lines = append(lines, "LRANGE a 0 -1", "LRANGE b 0 -1")
	runCases(t, []tcase{{"random", lines}})
}
