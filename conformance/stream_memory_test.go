package conformance

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// MEMORY USAGE of a stream answers Redis 7.0's objectComputeSize: the
// listpacks as jemalloc holds them (4 KB preallocated, shrunk to fit when
// the next node starts, reallocated as entries are flagged deleted), the
// node index's and PELs' rax node counts, and the groups and consumers.
// Every shape is asked with the default SAMPLES and with 0, 1 and 3.

var streamMemReset = "CONFIG SET stream-node-max-entries 100 stream-node-max-bytes 4096"

func streamMemAsk(key string) []string {
	return []string{
		"MEMORY USAGE " + key, "MEMORY USAGE " + key + " SAMPLES 0",
		"MEMORY USAGE " + key + " SAMPLES 1", "MEMORY USAGE " + key + " SAMPLES 3",
	}
}

func TestStreamMemoryUsage(t *testing.T) {
	var cases []tcase
	add := func(name string, lines ...string) {
		cases = append(cases, tcase{name, append(lines, streamMemAsk("s")...)})
	}
	add("one-entry", "XADD s 1-1 f v")
	add("empty-after-xdel", "XADD s 1-1 f v", "XDEL s 1-1")
	add("empty-by-xsetid", "XADD s 1-1 f v", "XTRIM s MAXLEN 0", "XSETID s 5-5")
	add("mkstream-group", "XGROUP CREATE s g $ MKSTREAM", "XGROUP CREATECONSUMER s g alice")
	add("long-key", "XADD "+strings.Repeat("k", 40)+" 1-1 f v", streamMemAsk(strings.Repeat("k", 40))[0],
		"XADD "+strings.Repeat("k", 300)+" 1-1 f v", streamMemAsk(strings.Repeat("k", 300))[1])
	add("big-value", "XADD s 1-1 f "+strings.Repeat("x", 5000), "XADD s 2-1 f "+strings.Repeat("y", 100))
	add("entries-1", "CONFIG SET stream-node-max-entries 1", "XADD s 1-1 a 1", "XADD s 2-1 a 2", "XADD s 3-1 a 3",
		"XADD s 256-1 a 4", "XADD s 65536-0 a 5", "XDEL s 2-1", streamMemReset)
	add("max-bytes-small", "CONFIG SET stream-node-max-bytes 100", "XADD s 1-1 field value", "XADD s 1-2 field value",
		"XADD s 1-3 field value", "XADD s 1-4 other 12345", streamMemReset)
	add("max-bytes-0", "CONFIG SET stream-node-max-bytes 0 stream-node-max-entries 0",
		"XADD s 1-1 f "+strings.Repeat("v", 3000), "XADD s 1-2 f "+strings.Repeat("v", 3000), streamMemReset)
	// 128 entries: the master's live count outgrows its one-byte
	// encoding, and XDEL shrinks it back, reallocating the listpack.
	var many []string
	many = append(many, "CONFIG SET stream-node-max-entries 200 stream-node-max-bytes 100000")
	for i := 1; i <= 130; i++ {
		many = append(many, fmt.Sprintf("XADD s %d-0 f %d", i, i*7))
	}
	many = append(many, "XDEL s 5-0 6-0 7-0", "XTRIM s MAXLEN = 100", streamMemReset)
	add("count-encodings", many...)
	add("groups", "XADD s 1-1 a 1", "XADD s 2-1 a 2 b 3", "XADD s 3-1 c 4",
		"XGROUP CREATE s g1 0", "XGROUP CREATE s g2 $",
		"XREADGROUP GROUP g1 alice COUNT 2 STREAMS s >", "XREADGROUP GROUP g1 bob STREAMS s >",
		"XCLAIM s g1 carol 0 1-1", "XACK s g1 2-1", "XGROUP CREATECONSUMER s g2 dave",
		"XREADGROUP GROUP g2 dave NOACK STREAMS s 0")
	// A restored stream's listpacks are allocated at their exact size.
	restore := []string{}
	for i := 1; i <= 150; i++ {
		restore = append(restore, fmt.Sprintf("XADD s %d-0 f %d", i, i))
	}
	restore = append(restore, "XGROUP CREATE s g 0", "XREADGROUP GROUP g c COUNT 7 STREAMS s >", "XDEL s 3-0",
		`EVAL "return redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1]))" 2 s t`)
	add("restore", append(restore, streamMemAsk("t")...)...)
	add("copy", "XADD s 1-1 f v", "XADD s 2-1 f w", "COPY s t", "DEL s", "RENAME t s")

	rng := rand.New(rand.NewSource(27))
	for i := range 30 {
		cases = append(cases, tcase{fmt.Sprintf("random-%d", i), streamMemRandom(rng)})
	}
	runCases(t, cases)
}

// streamMemRandom builds one stream by a random mix of the commands that
// shape it, asking its memory usage along the way.
func streamMemRandom(rng *rand.Rand) []string {
	lines := []string{fmt.Sprintf("CONFIG SET stream-node-max-entries %d stream-node-max-bytes %d",
		[]int{0, 1, 2, 5, 10, 100, 100, 1000}[rng.Intn(8)], []int{0, 50, 300, 1000, 4096, 4096, 8000, 20000}[rng.Intn(8)])}
	var ms, seq uint64 = uint64(rng.Intn(1000)), 0
	var ids []string
	id := func() string { return ids[rng.Intn(len(ids))] }
	fields := []string{"f", "temperature", "1", "name"}
	value := func() string {
		switch rng.Intn(4) {
		case 0:
			return strconv.Itoa(rng.Intn(100000) - 50000)
		case 1:
			return strings.Repeat("v", rng.Intn(300))
		}
		return strings.Repeat("x", rng.Intn(20))
	}
	groups := []string{"g1", "g2", "g3"}
	consumers := []string{"a", "bob", "consumer-with-a-long-name"}
	n := 50 + rng.Intn(250)
	for range n {
		switch r := rng.Intn(100); {
		case r < 70 || len(ids) == 0:
			switch rng.Intn(10) {
			case 0:
				ms += uint64(rng.Intn(1 << 20))
				seq = 0
			case 1, 2:
				seq += uint64(1 + rng.Intn(300))
			default:
				ms += uint64(rng.Intn(3))
				seq = uint64(rng.Intn(2))
			}
			next := fmt.Sprintf("%d-%d", ms, seq)
			seq++
			ids = append(ids, next)
			line := "XADD s"
			switch rng.Intn(12) {
			case 0:
				line += fmt.Sprintf(" MAXLEN ~ %d", rng.Intn(300))
			case 1:
				line += fmt.Sprintf(" MAXLEN = %d", rng.Intn(300))
			case 2:
				line += " MINID ~ " + id()
			case 3:
				line += " MINID " + id()
			}
			line += " " + next
			nf := 1 + rng.Intn(3)
			same := rng.Intn(3) > 0
			for j := range nf {
				f := fields[j]
				if !same {
					f = fields[rng.Intn(len(fields))]
				}
				line += " " + f + " " + value()
			}
			lines = append(lines, line)
		case r < 75:
			lines = append(lines, "XDEL s "+id()+" "+id())
		case r < 78:
			if rng.Intn(2) == 0 {
				lines = append(lines, fmt.Sprintf("XTRIM s MAXLEN %s %d", []string{"~", "="}[rng.Intn(2)], rng.Intn(200)))
			} else {
				lines = append(lines, "XTRIM s MINID "+[]string{"~ ", "= "}[rng.Intn(2)]+id())
			}
		case r < 81:
			lines = append(lines, "XGROUP CREATE s "+groups[rng.Intn(3)]+" "+[]string{"0", "$", id()}[rng.Intn(3)])
		case r < 88:
			lines = append(lines, fmt.Sprintf("XREADGROUP GROUP %s %s COUNT %d STREAMS s >",
				groups[rng.Intn(3)], consumers[rng.Intn(3)], 1+rng.Intn(20)))
		case r < 92:
			lines = append(lines, "XACK s "+groups[rng.Intn(3)]+" "+id()+" "+id()+" "+id())
		case r < 94:
			lines = append(lines, "XCLAIM s "+groups[rng.Intn(3)]+" "+consumers[rng.Intn(3)]+" 0 "+id()+" "+id())
		case r < 95:
			lines = append(lines, "XGROUP DELCONSUMER s "+groups[rng.Intn(3)]+" "+consumers[rng.Intn(3)])
		case r < 96:
			lines = append(lines, "XSETID s "+fmt.Sprintf("%d-%d", ms+1, 0))
			ms++
			seq = 1
		case r < 97:
			lines = append(lines, "XREADGROUP GROUP "+groups[rng.Intn(3)]+" "+consumers[rng.Intn(3)]+" STREAMS s 0")
		default:
			lines = append(lines, streamMemAsk("s")[rng.Intn(4)])
		}
	}
	return append(append(lines, streamMemAsk("s")...), streamMemReset)
}
