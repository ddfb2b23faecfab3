package conformance

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestCommandMetadata compares, byte for byte and under RESP2 and RESP3,
// COMMAND INFO and COMMAND DOCS of every command and subcommand floodgate
// has that Redis has (all of floodgate's but CL.THROTTLE, GCRA and INCREX): the metadata
// both answer from Redis's command JSON. A container's own fields are
// compared whole; its subcommands are compared one by one (each is in the
// list), and here only for being among Redis's, since Redis lists them in
// its hash table's (random) order and floodgate implements a subset.
func TestCommandMetadata(t *testing.T) {
	known := map[string]bool{}
	for _, n := range commandList(t, redisAddr) {
		known[n] = true
	}
	var names []string
	for _, n := range commandList(t, floodgateAddr) {
		if known[n] {
			names = append(names, n)
		}
	}
	if len(names) < 250 {
		t.Fatalf("only %d commands in common", len(names))
	}
	for _, proto := range []string{"2", "3"} {
		ref := dialProto(t, redisAddr, proto)
		defer ref.close()
		for _, addr := range floodgates() {
			fg := dialProto(t, addr, proto)
			defer fg.close()
			for _, name := range names {
				for _, sub := range []string{"INFO", "DOCS"} {
					want, got := metaReply(t, ref, sub, name), metaReply(t, fg, sub, name)
					if msg := compareMeta(sub, want, got); msg != "" {
						t.Errorf("RESP%s %s: COMMAND %s %s: %s\n%s", proto, transportName(addr), sub, name, msg, replyDiff(want.bytes(), got.bytes()))
					}
				}
			}
		}
	}
	countsMu.Lock()
	counts["command info"] += 2 * len(names) * len(floodgates())
	counts["command docs"] += 2 * len(names) * len(floodgates())
	countsMu.Unlock()
}

// TestCommandGetKeysFromDocs compares COMMAND GETKEYS and GETKEYSANDFLAGS,
// under RESP2 and RESP3, for every command with key arguments, on
// invocations made from its COMMAND DOCS arguments: one with only the
// required arguments and one with every optional argument too (the first
// choice of each oneof, multiple arguments twice).
func TestCommandGetKeysFromDocs(t *testing.T) {
	known := map[string]bool{}
	for _, n := range commandList(t, redisAddr) {
		known[n] = true
	}
	var calls [][]string
	for _, name := range commandList(t, floodgateAddr) {
		if !known[name] {
			continue
		}
		args := docsArgs(t, name)
		if !hasKeyArg(args) {
			continue
		}
		base := strings.Split(name, "|")
		for _, full := range []bool{false, true} {
			var b invocation
			b.add(args, full)
			calls = append(calls, append(append([]string{}, base...), b.words...))
		}
	}
	if len(calls) < 200 {
		t.Fatalf("only %d invocations", len(calls))
	}
	t.Logf("%d invocations", len(calls))
	for _, proto := range []string{"2", "3"} {
		ref := dialProto(t, redisAddr, proto)
		defer ref.close()
		for _, addr := range floodgates() {
			fg := dialProto(t, addr, proto)
			defer fg.close()
			for _, call := range calls {
				for _, sub := range []string{"GETKEYS", "GETKEYSANDFLAGS"} {
					cmd := append([]string{"COMMAND", sub}, call...)
					want, werr := ref.do(cmd...)
					got, gerr := fg.do(cmd...)
					if werr != nil || gerr != nil {
						t.Fatalf("%v: %v %v", cmd, werr, gerr)
					}
					if !bytes.Equal(want, got) {
						t.Errorf("RESP%s %s: %s\n%s", proto, transportName(addr), strings.Join(cmd, " "), replyDiff(want, got))
					}
				}
			}
		}
	}
	countsMu.Lock()
	counts["command getkeys"] += 2 * len(calls) * len(floodgates())
	counts["command getkeysandflags"] += 2 * len(calls) * len(floodgates())
	countsMu.Unlock()
}

func dialProto(t *testing.T, addr, proto string) *rawConn {
	t.Helper()
	c, err := dialRaw(addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.do("HELLO", proto); err != nil {
		t.Fatal(err)
	}
	return c
}

func metaReply(t *testing.T, c *rawConn, sub, name string) *respNode {
	t.Helper()
	raw, err := c.do("COMMAND", sub, name)
	if err != nil {
		t.Fatalf("COMMAND %s %s: %v", sub, name, err)
	}
	n, rest, err := parseNode(raw)
	if err != nil || len(rest) > 0 {
		t.Fatalf("COMMAND %s %s: %q: %v", sub, name, raw, err)
	}
	return n
}

// compareMeta compares a COMMAND INFO or DOCS reply for one name; it
// returns "" when they agree.
func compareMeta(sub string, want, got *respNode) string {
	// INFO answers [entry], DOCS {name: entry}.
	entries := ifInt(sub == "INFO", 1, 2)
	if len(want.kids) != entries || len(got.kids) != entries {
		if bytes.Equal(want.bytes(), got.bytes()) {
			return ""
		}
		return "different replies"
	}
	w, g := want.kids[len(want.kids)-1], got.kids[len(got.kids)-1]
	if !bytes.Equal(want.head, got.head) || (sub == "DOCS" && !bytes.Equal(want.kids[0].bytes(), got.kids[0].bytes())) {
		return "different replies"
	}
	var wsubs, gsubs *respNode
	switch sub {
	case "INFO":
		if len(w.kids) != 10 || len(g.kids) != 10 {
			break
		}
		wsubs, gsubs = w.kids[9], g.kids[9]
		if len(wsubs.kids) == 0 || len(gsubs.kids) == 0 {
			wsubs, gsubs = nil, nil
		}
	case "DOCS":
		wi, gi := fieldIndex(w, "subcommands"), fieldIndex(g, "subcommands")
		if wi >= 0 && gi >= 0 && wi == gi {
			wsubs, gsubs = w.kids[wi+1], g.kids[gi+1]
		}
	}
	if wsubs == nil {
		if !bytes.Equal(w.bytes(), g.bytes()) {
			return "different entries"
		}
		return ""
	}
	// A container: everything but the subcommands byte for byte, and each
	// subcommand floodgate lists among Redis's.
	if !bytes.Equal(without(w, wsubs), without(g, gsubs)) {
		return "different container fields"
	}
	have := map[string]bool{}
	for _, e := range groupEntries(sub, wsubs) {
		have[e] = true
	}
	for _, e := range groupEntries(sub, gsubs) {
		if !have[e] {
			return "a subcommand entry Redis does not list: " + strconv.Quote(e)
		}
	}
	return ""
}

func ifInt(c bool, a, b int) int {
	if c {
		return a
	}
	return b
}

// groupEntries splits a subcommand list into entries: an array's elements,
// or a map's name and value pairs.
func groupEntries(sub string, list *respNode) []string {
	var out []string
	step := ifInt(sub == "DOCS", 2, 1)
	for i := 0; i+step <= len(list.kids); i += step {
		var b bytes.Buffer
		for _, k := range list.kids[i : i+step] {
			b.Write(k.bytes())
		}
		out = append(out, b.String())
	}
	return out
}

// without serializes n with one child replaced by its header alone.
func without(n, skip *respNode) []byte {
	var b bytes.Buffer
	b.Write(n.head)
	for _, k := range n.kids {
		if k == skip {
			b.WriteString("<subcommands>")
			continue
		}
		b.Write(k.bytes())
	}
	return b.Bytes()
}

// fieldIndex finds a map (or RESP2 flat list) key's position.
func fieldIndex(n *respNode, key string) int {
	for i := 0; i+1 < len(n.kids); i += 2 {
		if n.kids[i].str() == key {
			return i
		}
	}
	return -1
}

// respNode is a parsed reply: its header line (and a bulk's payload), and
// its elements.
type respNode struct {
	head []byte
	kids []*respNode
}

func (n *respNode) bytes() []byte {
	var b bytes.Buffer
	n.write(&b)
	return b.Bytes()
}

func (n *respNode) write(b *bytes.Buffer) {
	b.Write(n.head)
	for _, k := range n.kids {
		k.write(b)
	}
}

// str returns a bulk or simple string's text.
func (n *respNode) str() string {
	line, rest, _ := strings.Cut(string(n.head), "\r\n")
	switch line[0] {
	case '+':
		return line[1:]
	case '$':
		return strings.TrimSuffix(rest, "\r\n")
	}
	return ""
}

func parseNode(raw []byte) (*respNode, []byte, error) {
	i := bytes.Index(raw, []byte("\r\n"))
	if i < 1 {
		return nil, nil, fmt.Errorf("no reply line")
	}
	n := &respNode{head: raw[:i+2]}
	rest := raw[i+2:]
	count, _ := strconv.Atoi(string(raw[1:i]))
	switch raw[0] {
	case '$', '=', '!':
		if count >= 0 {
			if len(rest) < count+2 {
				return nil, nil, fmt.Errorf("short bulk")
			}
			n.head = raw[:i+2+count+2]
			rest = rest[count+2:]
		}
	case '*', '~', '>', '%', '|':
		if raw[0] == '%' || raw[0] == '|' {
			count *= 2
		}
		for j := 0; j < count; j++ {
			k, r, err := parseNode(rest)
			if err != nil {
				return nil, nil, err
			}
			n.kids = append(n.kids, k)
			rest = r
		}
	}
	return n, rest, nil
}

// docArg is a COMMAND DOCS argument, as much of it as an invocation needs.
type docArg struct {
	typ, token      string
	optional, multi bool
	args            []docArg
}

// docsArgs reads a command's arguments from floodgate's COMMAND DOCS.
func docsArgs(t *testing.T, name string) []docArg {
	t.Helper()
	top := queryOnce(t, floodgateAddr, "COMMAND", "DOCS", name).([]any)
	if len(top) != 2 {
		t.Fatalf("COMMAND DOCS %s: %v", name, top)
	}
	return parseDocArgs(field(top[1].([]any), "arguments"))
}

func field(kv []any, key string) any {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == key {
			return kv[i+1]
		}
	}
	return nil
}

func parseDocArgs(v any) []docArg {
	list, _ := v.([]any)
	var out []docArg
	for _, e := range list {
		kv := e.([]any)
		a := docArg{typ: field(kv, "type").(string)}
		a.token, _ = field(kv, "token").(string)
		flags, _ := field(kv, "flags").([]any)
		for _, f := range flags {
			a.optional = a.optional || f == "optional"
			a.multi = a.multi || f == "multiple"
		}
		a.args = parseDocArgs(field(kv, "arguments"))
		out = append(out, a)
	}
	return out
}

func hasKeyArg(args []docArg) bool {
	for _, a := range args {
		if a.typ == "key" || hasKeyArg(a.args) {
			return true
		}
	}
	return false
}

// invocation builds a command's arguments from its docs.
type invocation struct {
	words []string
	keys  int
}

func (b *invocation) add(args []docArg, full bool) {
	for _, a := range args {
		if a.optional && !full {
			continue
		}
		times := 1
		if a.multi && full {
			times = 2
		}
		for i := 0; i < times; i++ {
			b.one(a, full)
		}
	}
}

func (b *invocation) one(a docArg, full bool) {
	if a.token != "" {
		b.words = append(b.words, a.token)
	}
	switch a.typ {
	case "key":
		b.keys++
		b.words = append(b.words, "k"+strconv.Itoa(b.keys))
	case "integer":
		b.words = append(b.words, "1")
	case "double":
		b.words = append(b.words, "1.5")
	case "unix-time":
		b.words = append(b.words, "100")
	case "pattern":
		b.words = append(b.words, "p*")
	case "string":
		b.words = append(b.words, "s")
	case "oneof":
		b.add(a.args[:1], full)
	case "block":
		b.add(a.args, full)
	}
}
