package conformance

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
)

// The randomized differential tester: seeded random command sequences (see
// diffgen_test.go and difflua_test.go) go to real Redis and to floodgate
// side by side, and every raw reply is compared. A sequence is a segment of
// ops run on fresh connections after FLUSHALL and SCRIPT FLUSH, so a
// difference is replayed from a known state and shrunk (delta debugging
// over the segment's ops) to a short reproduction, printed in the case-file
// format of cases_test.go.
//
//	go test ./conformance -run TestDiffRandom -diff.ops 1000000 -diff.seed 7 -v
//	make fuzz-diff OPS=1000000 SEED=7
//
// -diff.against=redis compares two real redis-servers, which proves the
// generator sends nothing whose reply is nondeterministic.
var (
	diffOps     = flag.Int("diff.ops", 4000, "operations in TestDiffRandom")
	diffSeed    = flag.Int64("diff.seed", 1, "seed of TestDiffRandom (0: from the clock)")
	diffSegment = flag.Int("diff.segment", 150, "ops per segment (state is flushed between segments)")
	diffAgainst = flag.String("diff.against", "", `"redis" compares two redis-servers, an address compares Redis with that server`)
	diffShrinks = flag.Int("diff.shrinks", 2, "differences shrunk and printed per class")
	diffOnly    = flag.String("diff.only", "", "comma-separated families to generate (default: all)")
	diffReplay  = flag.String("diff.replay", "", "a file of printed reproduction lines to run as one segment instead")
)

// An op is one command on connection conn (1 or 2) with a comparison mode
// (a cases_test.go modifier: "", "sort", "approx", "type", or "scan").
type op struct {
	family string
	conn   int
	mode   string
	arg    string
	args   []string
	// skipIf, when set, is asked of the reference server before the op
	// runs: a true answer skips the op on both sides (lex ranges over
	// skiplists of mixed scores, whose answer depends on skiplist levels).
	skipIf func(ref *rawConn) bool
	// clearErrno: the op was generated after one that clears Redis's
	// errno (sortCmd).
	clearErrno bool
	// perSide, when set, builds the command each server gets from that
	// server's own state (a FUNCTION RESTORE of its FUNCTION DUMP); args
	// then only describe it.
	perSide func(c *rawConn) ([]string, error)
}

type diffResult struct {
	opIndex   int
	want, got []byte
}

// diffPair is one segment's connections: [0] reference Redis, [1] target.
type diffPair struct {
	conns map[int][2]*rawConn
	addrs [2]string
	proto int
	probe *rawConn // a connection of the reference's own, for skipIf
}

func (p *diffPair) get(n int) ([2]*rawConn, error) {
	if c, ok := p.conns[n]; ok {
		return c, nil
	}
	var pair [2]*rawConn
	for i, addr := range p.addrs {
		c, err := dialRaw(addr)
		if err != nil {
			return pair, err
		}
		if p.proto == 3 {
			if _, err := c.do("HELLO", "3"); err != nil {
				return pair, err
			}
		}
		pair[i] = c
	}
	p.conns[n] = pair
	return pair, nil
}

func (p *diffPair) close() {
	if p.probe != nil {
		p.probe.close()
	}
	for _, c := range p.conns {
		c[0].close()
		c[1].close()
	}
}

// runSegment runs ops from a flushed state and returns the first
// difference, or nil.
func runSegment(addrs [2]string, proto int, ops []op) (*diffResult, error) {
	p := &diffPair{conns: map[int][2]*rawConn{}, addrs: addrs, proto: proto}
	defer p.close()
	first, err := p.get(1)
	if err != nil {
		return nil, err
	}
	for _, c := range first {
		for _, cmd := range [][]string{{"FLUSHALL"}, {"SCRIPT", "FLUSH"}, {"FUNCTION", "FLUSH"}, streamNodeSettings} {
			if r, err := c.do(cmd...); err != nil || string(r) != "+OK\r\n" {
				return nil, fmt.Errorf("%v: %q %v", cmd, r, err)
			}
		}
	}
	for i, o := range ops {
		pair, err := p.get(o.conn)
		if err != nil {
			return nil, err
		}
		if o.skipIf != nil {
			if p.probe == nil {
				if p.probe, err = dialRaw(p.addrs[0]); err != nil {
					return nil, err
				}
			}
			if o.skipIf(p.probe) {
				continue
			}
		}
		sent := [2][]string{o.args, o.args}
		if o.perSide != nil {
			for j, c := range pair {
				if sent[j], err = o.perSide(c); err != nil {
					return nil, err
				}
			}
		}
		// Send to both before reading either: the servers work in parallel.
		if err := pair[0].send(sent[0]...); err != nil {
			return nil, err
		}
		if err := pair[1].send(sent[1]...); err != nil {
			return nil, err
		}
		want, errR := pair[0].read()
		got, errF := pair[1].read()
		if errR != nil {
			return nil, fmt.Errorf("reference %s: %v", quoteLine(o.args), errR)
		}
		if errF != nil {
			return &diffResult{i, want, []byte("(connection error: " + errF.Error() + ")")}, nil
		}
		if !sameDiffReply(o, want, got) {
			return &diffResult{i, want, got}, nil
		}
	}
	return nil, nil
}

func sameDiffReply(o op, want, got []byte) bool {
	if o.mode == "fnexists" {
		return bytes.Equal(want, got) || sameCollision(want, got)
	}
	if o.mode != "scan" {
		return sameReply(o.mode, o.arg, want, got)
	}
	// A SCAN reply: the cursor walks a hash table whose order depends on
	// the process's hash seed, so only a complete walk in one call (cursor
	// 0 on both sides) compares its elements, unordered.
	if bytes.Equal(want, got) {
		return true
	}
	wc, we, ok1 := splitScan(want)
	gc, ge, ok2 := splitScan(got)
	if !ok1 || !ok2 {
		return false
	}
	if o.arg != "0" {
		// A walk from elsewhere: which elements it returns depends on the
		// layout of the hash table.
		return true
	}
	if wc == "0" && gc == "0" {
		return bytes.Equal(sortedArray(we), sortedArray(ge))
	}
	return wc != "0" && gc != "0"
}

// splitScan splits a raw SCAN reply into its cursor and its element array.
func splitScan(raw []byte) (cursor string, elems []byte, ok bool) {
	if !bytes.HasPrefix(raw, []byte("*2\r\n$")) {
		return "", nil, false
	}
	rest := raw[4:]
	nl := bytes.IndexByte(rest, '\n')
	n, err := strconv.Atoi(string(rest[1 : nl-1]))
	if err != nil || nl+1+n+2 > len(rest) {
		return "", nil, false
	}
	return string(rest[nl+1 : nl+1+n]), rest[nl+1+n+2:], true
}

// shrink delta-debugs ops (ddmin) to a short sequence that still differs.
func shrink(addrs [2]string, proto int, ops []op, budget int) []op {
	differs := func(cand []op) bool {
		if budget <= 0 {
			return false
		}
		budget--
		d, err := runSegment(addrs, proto, cand)
		return err == nil && d != nil
	}
	n := 2
	for len(ops) >= 2 {
		chunk := (len(ops) + n - 1) / n
		reduced := false
		for start := 0; start < len(ops); start += chunk {
			end := min(start+chunk, len(ops))
			comp := append(append([]op{}, ops[:start]...), ops[end:]...)
			if len(comp) > 0 && differs(comp) {
				ops, n, reduced = comp, max(n-1, 2), true
				break
			}
		}
		if !reduced {
			if n >= len(ops) {
				break
			}
			n = min(2*n, len(ops))
		}
	}
	return ops
}

// quoteLine writes args as a case-file line (double quotes and \xHH where
// needed), so a reproduction pastes straight into a tcase.
func quoteLine(args []string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		plain := a != ""
		for j := 0; j < len(a); j++ {
			if c := a[j]; c <= ' ' || c >= 0x7f || c == '"' || c == '\'' || c == '\\' {
				plain = false
				break
			}
		}
		if plain {
			parts[i] = a
			continue
		}
		var b strings.Builder
		b.WriteByte('"')
		for j := 0; j < len(a); j++ {
			switch c := a[j]; {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < ' ' || c >= 0x7f:
				fmt.Fprintf(&b, `\x%02x`, c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
		parts[i] = b.String()
	}
	return strings.Join(parts, " ")
}

func opLine(o op) string {
	prefix := ""
	if o.conn != 1 {
		prefix = fmt.Sprintf("@%d ", o.conn)
	}
	if o.mode != "" && o.mode != "scan" {
		prefix += "!" + o.mode
		if o.arg != "" {
			prefix += "=" + o.arg
		}
		prefix += " "
	}
	return prefix + quoteLine(o.args)
}

// knownDifference names a difference docs/differential.md explains, or
// returns "". With floodgate built with cgo there is none left (gopher-lua's
// shared zero, its folding with Go's math.Pow and Go's libm were fixed); a
// build without cgo computes the Lua math library with Go's math:
//
//   - libm-last-digits: Go's sin, tan, exp, pow... are not glibc's and can
//     differ in the last bits, which %.17g, integer replies of large values
//     or tan near pi/2 show.
func knownDifference(o op, want, got []byte) string {
	if o.family != "lua-expr" || libmTrig {
		return ""
	}
	w, g := string(want), string(got)
	if strings.Contains(o.args[1], "^") || strings.Contains(o.args[1], "math.") {
		if roundNumbers(w) == roundNumbers(g) {
			return "libm-last-digits"
		}
	}
	return ""
}

var (
	bulkLength = regexp.MustCompile(`\$\d+\r\n`)
	numeral    = regexp.MustCompile(`-?\d+(\.\d+)?(e[-+]?\d+)?`)
)

// roundNumbers is a reply with its bulk lengths dropped and every number
// rounded to 11 significant digits.
func roundNumbers(s string) string {
	s = bulkLength.ReplaceAllString(s, "$$")
	return numeral.ReplaceAllStringFunc(s, func(n string) string {
		f, err := strconv.ParseFloat(n, 64)
		if err != nil {
			return n
		}
		return strconv.FormatFloat(f, 'g', 11, 64)
	})
}

// diffClass names a difference for counting: the command (and, for
// scripts, nothing finer: the shrunk reproduction says the rest).
func diffClass(o op, d *diffResult) string {
	class := o.family + ":" + strings.ToUpper(o.args[0])
	if o.family == "lua-expr" || o.family == "scripting" {
		class += " " + replyGist(d.want) + " / " + replyGist(d.got)
	}
	return class
}

// replyGist is a reply's first line without digits, the script's SHA and
// the text after a Lua error's function name: enough to tell classes apart.
func replyGist(raw []byte) string {
	line, _, _ := strings.Cut(string(raw), "\r\n")
	if i := strings.Index(line, " script: "); i >= 0 {
		line = line[:i]
	}
	line = strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, line)
	if len(line) > 60 {
		line = line[:60]
	}
	return strconv.Quote(line)
}

func TestDiffRandom(t *testing.T) {
	seed := *diffSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	addrs := [2]string{redisAddr, floodgateAddr}
	switch *diffAgainst {
	case "":
	case "redis":
		addrs[1] = redistest.Start(t).Addr
	default:
		addrs[1] = *diffAgainst
	}
	if *diffReplay != "" {
		replay(t, addrs)
		return
	}
	rng := rand.New(rand.NewSource(seed))
	g := newGen(rng)
	if *diffOnly != "" {
		g.only = map[string]bool{}
		for _, f := range strings.Split(*diffOnly, ",") {
			g.only[f] = true
		}
	}
	perFamily := map[string]int{}
	luaExprs := 0
	classes := map[string]int{}
	known := map[string]int{}
	var classOrder []string
	done, segments, compared := 0, 0, 0
	for done < *diffOps {
		n := min(*diffSegment, *diffOps-done)
		proto := 2 + rng.Intn(2)
		ops := g.segment(n)
		d, err := runSegment(addrs, proto, ops)
		if err != nil {
			// The reference failed (a crash is a Redis bug to know of):
			// the segment, to replay with -diff.replay.
			var b strings.Builder
			for _, o := range ops {
				fmt.Fprintf(&b, "    %s\n", opLine(o))
			}
			t.Fatalf("seed %d segment %d: %v; the segment, RESP%d:\n%s", seed, segments, err, proto, b.String())
		}
		done += len(ops)
		segments++
		// A segment ends at its first difference: the ops after it were
		// generated but not compared, and are not counted.
		ran := ops
		if d != nil {
			ran = ops[:d.opIndex+1]
		}
		compared += len(ran)
		for _, o := range ran {
			perFamily[o.family]++
			if o.family == "lua-expr" {
				luaExprs++
			}
		}
		if d == nil {
			continue
		}
		if why := knownDifference(ops[d.opIndex], d.want, d.got); why != "" {
			known[why]++
			continue
		}
		class := diffClass(ops[d.opIndex], d)
		classes[class]++
		if classes[class] == 1 {
			classOrder = append(classOrder, class)
		}
		if classes[class] > *diffShrinks {
			continue
		}
		repro := shrink(addrs, proto, ops[:d.opIndex+1], 400)
		rd, _ := runSegment(addrs, proto, repro)
		var b strings.Builder
		fmt.Fprintf(&b, "difference (%s) seed %d segment %d op %d, RESP%d; shrunk from %d ops to %d:\n", class, seed, segments-1, d.opIndex, proto, d.opIndex+1, len(repro))
		for _, o := range repro {
			fmt.Fprintf(&b, "    %s\n", opLine(o))
		}
		if rd != nil {
			d = rd
		}
		fmt.Fprintf(&b, "  redis:  %q\n  target: %q", d.want, d.got)
		t.Error(b.String())
	}
	fams := make([]string, 0, len(perFamily))
	for f := range perFamily {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	var b strings.Builder
	fmt.Fprintf(&b, "diff: seed %d, %d ops generated, %d compared, in %d segments against %s; %d Lua expressions compared; compared per family:", seed, done, compared, segments, addrs[1], luaExprs)
	for _, f := range fams {
		fmt.Fprintf(&b, " %s=%d", f, perFamily[f])
	}
	if len(known) > 0 {
		b.WriteString("\ndiff: known differences (docs/differential.md), segments ending in one:")
		for _, k := range slices.Sorted(maps.Keys(known)) {
			fmt.Fprintf(&b, " %s=%d", k, known[k])
		}
	}
	if len(classOrder) > 0 {
		b.WriteString("\ndiff: segments ending in a difference, per class:")
		for _, c := range classOrder {
			fmt.Fprintf(&b, " %s=%d", c, classes[c])
		}
	}
	fmt.Fprintln(os.Stdout, b.String())
}

// replay runs a reproduction printed by TestDiffRandom (one op a line, in
// the case-file format) on RESP2 and RESP3 and reports the first
// difference.
func replay(t *testing.T, addrs [2]string) {
	data, err := os.ReadFile(*diffReplay)
	if err != nil {
		t.Fatal(err)
	}
	var ops []op
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		conn, mode, arg, rest := parseModifiers(line)
		args, err := splitArgs(rest)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		ops = append(ops, op{family: "replay", conn: conn, mode: mode, arg: arg, args: args})
	}
	for _, proto := range []int{2, 3} {
		d, err := runSegment(addrs, proto, ops)
		if err != nil {
			t.Fatal(err)
		}
		if d != nil {
			t.Errorf("RESP%d op %d %s\n  redis:  %q\n  target: %q", proto, d.opIndex, opLine(ops[d.opIndex]), d.want, d.got)
		}
	}
}
