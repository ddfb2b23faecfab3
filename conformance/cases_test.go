package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

var io_ReadFull = io.ReadFull

// A case is a short script of command lines sent, in order, to both servers
// on fresh connections after FLUSHALL. Each line is split like redis-cli
// splits its input ("double quotes" with \n \r \t \xHH \" \\ escapes,
// 'single quotes' literal). A line may start with modifiers:
//
//	@2           send on connection 2 (1 is the default; for WATCH and the like)
//	!sort        compare the top-level array ignoring order (KEYS, SMEMBERS)
//	!sortown     as !sort, floodgate's own commands (ownCommands) left out of
//	             its reply first (ACL CAT: Redis 7.0 has no INCREX or GCRA)
//	!approx=N    integer replies may differ by N (TTL, PTTL)
//	!type        compare only the reply's type and shape, not its content (TIME)
//	!distinct    as !type, and the top-level elements of each reply are
//	             pairwise distinct (random picks: SPOP, SRANDMEMBER with a count)
//	!known=why   a deliberate difference: run on both, compare nothing, say why
//	!send        send without reading the reply (a blocking command)
//	!recv        read the reply an earlier !send left on that connection and
//	             compare it; the rest of the line only names the command
//	!recvtype    as !recv, comparing as !type (a message naming a random key)
//	!blocked=N   wait until both servers report N blocked_clients
//	!id          remember the connection's CLIENT ID on each server: {id@N}
//	             in a later line stands for connection N's
//	!close       close the connection on both servers
//	!words       every line of the reply compared as a set of words (ACL
//	             LIST's single-command rules come in Redis's dict order)
//	!acllog      ACL LOG entries: every field compared but age-seconds (its
//	             type only) and client-info (its cmd= and user= only)
//
// A command line's comparisons are counted under its command name.
type tcase struct {
	name  string
	lines []string
}

// runCases runs each case as a subtest, twice: on connections speaking
// RESP2, and on connections that said HELLO 3 first, since clients such as
// go-redis and node-redis speak RESP3 whenever the server does.
func runCases(t *testing.T, cases []tcase) {
	t.Helper()
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) { runCase(t, tc, proto) })
			}
		})
	}
}

func runCase(t *testing.T, tc tcase, proto int) {
	// Each connection of the case is one to Redis, then one to each
	// floodgate: over TCP (the event loop) and over Dial (the goroutine
	// transport), each checked against Redis.
	runCaseOn(t, tc, proto, append([]string{redisAddr}, floodgates()...))
}

// runCaseOn is runCase against other servers: addrs[0] is Redis, the rest
// floodgates (a pair started with settings of its own).
func runCaseOn(t *testing.T, tc tcase, proto int, addrs []string) {
	conns := map[int][]*rawConn{}
	defer func() {
		for _, set := range conns {
			for _, c := range set {
				c.close()
			}
		}
	}()
	get := func(n int) []*rawConn {
		if set, ok := conns[n]; ok {
			return set
		}
		var set []*rawConn
		for _, addr := range addrs {
			c, err := dialRaw(addr)
			if err != nil {
				t.Fatalf("dial %s: %v", addr, err)
			}
			set = append(set, c)
		}
		conns[n] = set
		if proto == 3 {
			// HELLO's reply carries the connection id: compare its shape.
			want, errR := set[0].do("HELLO", "3")
			for i, c := range set[1:] {
				got, errF := c.do("HELLO", "3")
				if errR != nil || errF != nil || shape(want) != shape(got) {
					t.Fatalf("HELLO 3: redis %q %v, %s %q %v", want, errR, transportName(addrs[i+1]), got, errF)
				}
			}
		}
		return set
	}
	ids := map[string][]string{}
	for _, c := range get(1) {
		if reply, err := c.do("FLUSHALL"); err != nil || string(reply) != "+OK\r\n" {
			t.Fatalf("FLUSHALL: %q %v", reply, err)
		}
	}
	for _, line := range tc.lines {
		conn, mode, arg, rest := parseModifiers(line)
		set := get(conn)
		switch mode {
		case "blocked":
			waitBlocked(t, set, arg)
			continue
		case "bgsaved":
			waitInfo(t, set, "persistence", bgsaveField, "0")
			continue
		case "id":
			each := make([]string, len(set))
			for i, c := range set {
				reply, err := c.do("CLIENT", "ID")
				if err != nil || len(reply) < 4 {
					t.Fatalf("CLIENT ID: %q %v", reply, err)
				}
				each[i] = strings.TrimSpace(string(reply[1:]))
			}
			ids[fmt.Sprintf("{id@%d}", conn)] = each
			continue
		case "close":
			for _, c := range set {
				c.close()
			}
			delete(conns, conn)
			continue
		}
		args, err := splitArgs(rest)
		if err != nil || (len(args) == 0 && mode != "monitor") {
			t.Fatalf("bad case line %q: %v", line, err)
		}
		if mode == "send" {
			for i, c := range set {
				if err := c.send(withIDs(args, ids, i)...); err != nil {
					t.Fatalf("%s: %v", shortLine(line), err)
				}
			}
			continue
		}
		// do sends the line on connection i of the set, or for !recv reads
		// the reply an earlier !send left there.
		// !monitor reads like !recv, and compares a MONITOR line by its
		// shape (monitorShape).
		recv := mode == "recv" || mode == "recvtype" || mode == "monitor"
		switch mode {
		case "recv":
			mode = ""
		case "recvtype":
			mode = "type"
		}
		do := func(i int) ([]byte, error) {
			if recv {
				return set[i].read()
			}
			return set[i].do(withIDs(args, ids, i)...)
		}
		want, errR := do(0)
		if errR != nil {
			t.Fatalf("%s: redis: %v", shortLine(line), errR)
		}
		for i := range set[1:] {
			who := transportName(addrs[i+1])
			got, errF := do(i + 1)
			if errF != nil {
				t.Fatalf("%s: %s: %v (redis said %.200q)", shortLine(line), who, errF, want)
			}
			if mode == "known" {
				t.Logf("known difference (%s): %s over %s: %s", arg, shortLine(line), who, replyDiff(want, got))
				continue
			}
			if i == 0 && len(args) > 0 {
				countCommand(args)
			}
			if !sameReply(mode, arg, want, got) {
				t.Errorf("%s over %s\n%s", shortLine(line), who, replyDiff(want, got))
			}
		}
	}
}

func countCommand(args []string) {
	name := strings.ToLower(args[0])
	if len(args) > 1 {
		switch name {
		case "config", "client", "command", "script", "object", "debug", "function":
			name += " " + strings.ToLower(args[1])
		}
	}
	countsMu.Lock()
	counts[name]++
	countsMu.Unlock()
}

func parseModifiers(line string) (conn int, mode, arg, rest string) {
	conn = 1
	for {
		line = strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(line, "@"):
			end := wordEnd(line)
			conn, _ = strconv.Atoi(line[1:end])
			line = line[end:]
		case strings.HasPrefix(line, "!"):
			end := wordEnd(line)
			mode = line[1:end]
			if i := strings.IndexByte(mode, '='); i >= 0 {
				mode, arg = mode[:i], mode[i+1:]
			}
			line = line[end:]
		default:
			return conn, mode, arg, line
		}
	}
}

// sameReply compares two raw replies under a modifier.
func sameReply(mode, arg string, want, got []byte) bool {
	switch mode {
	case "":
		return bytes.Equal(want, got)
	case "sort":
		return bytes.Equal(sortedArray(want), sortedArray(got))
	case "deepsort":
		return bytes.Equal(deepSorted(want), deepSorted(got))
	case "sortown":
		return bytes.Equal(sortedArray(want), sortedArray(withoutOwnCommands(got)))
	case "approx":
		tol, _ := strconv.ParseInt(arg, 10, 64)
		if len(want) == 0 || len(got) == 0 || want[0] != ':' || got[0] != ':' {
			return bytes.Equal(want, got)
		}
		a, _ := strconv.ParseInt(strings.TrimSpace(string(want[1:])), 10, 64)
		b, _ := strconv.ParseInt(strings.TrimSpace(string(got[1:])), 10, 64)
		d := a - b
		return d >= -tol && d <= tol
	case "type":
		return shape(want) == shape(got)
	case "distinct":
		return shape(want) == shape(got) && distinctElements(want) && distinctElements(got)
	case "art":
		return bytes.Equal(artShape(want), artShape(got))
	case "monitor":
		return monitorShape(want) == monitorShape(got)
	case "words":
		return bytes.Equal(sortedWords(want), sortedWords(got))
	case "acllog":
		return bytes.Equal(aclLogShape(want), aclLogShape(got))
	case "debugobject":
		return bytes.Equal(debugObjectShape(want), debugObjectShape(got))
	case "doctor":
		return bytes.Equal(doctorShape(want), doctorShape(got))
	}
	panic("unknown modifier " + mode)
}

// artShape is a LOLWUT drawing with every pixel cell (a braille character,
// or a space in one of the four terminal colours) made the same: what is
// left, the size and the caption, does not depend on the random numbers.
func artShape(raw []byte) []byte {
	s := string(raw)
	if i := strings.Index(s, "\r\n"); i >= 0 && (s[0] == '$' || s[0] == '=') {
		s = s[:1] + s[i:] // the length depends on the colours drawn
	}
	for _, cell := range []string{"0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m"} {
		s = strings.ReplaceAll(s, "\033["+cell+" \033[0m", "#")
	}
	return []byte(strings.Map(func(r rune) rune {
		if r >= 0x2800 && r <= 0x28ff {
			return '#'
		}
		return r
	}, s))
}

// sortedArray returns a top-level array or RESP3 set with its elements
// sorted, or a RESP3 map with its key/value pairs sorted.
func sortedArray(raw []byte) []byte {
	if len(raw) == 0 || (raw[0] != '*' && raw[0] != '~' && raw[0] != '%') {
		return raw
	}
	rd := &rawConn{rd: bufio.NewReader(bytes.NewReader(raw))}
	line, _ := rd.rd.ReadBytes('\n')
	n, _ := strconv.Atoi(strings.TrimSpace(string(line[1:])))
	per := 1
	if raw[0] == '%' {
		per = 2
	}
	elems := make([]string, 0, n)
	for i := 0; i < n; i++ {
		var b bytes.Buffer
		for j := 0; j < per; j++ {
			if err := rd.readIntoNoDeadline(&b); err != nil {
				return raw
			}
		}
		elems = append(elems, b.String())
	}
	sort.Strings(elems)
	return []byte(string(line) + strings.Join(elems, ""))
}

// deepSorted sorts, at every depth, each array or set whose elements are
// all aggregates (FUNCTION LIST's libraries and each library's functions,
// which Redis lists in its dicts' seeded order), and leaves arrays that
// mix scalars with aggregates (a library's name/value fields) in order.
func deepSorted(raw []byte) []byte {
	rd := bufio.NewReader(bytes.NewReader(raw))
	var walk func() (string, bool, error)
	walk = func() (string, bool, error) {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			return "", false, err
		}
		n, _ := strconv.Atoi(strings.TrimSpace(string(line[1:])))
		switch line[0] {
		case '$', '=', '!':
			if n >= 0 {
				body := make([]byte, n+2)
				if _, err := io.ReadFull(rd, body); err != nil {
					return "", false, err
				}
				return string(line) + string(body), false, nil
			}
			return string(line), false, nil
		case '*', '~', '%', '>':
			count := n
			if line[0] == '%' {
				count *= 2
			}
			elems := make([]string, 0, max(count, 0))
			allAgg := line[0] != '%'
			for i := 0; i < count; i++ {
				e, agg, err := walk()
				if err != nil {
					return "", false, err
				}
				allAgg = allAgg && agg
				elems = append(elems, e)
			}
			if allAgg {
				sort.Strings(elems)
			}
			return string(line) + strings.Join(elems, ""), true, nil
		}
		return string(line), false, nil
	}
	out, _, err := walk()
	if err != nil {
		return raw
	}
	return []byte(out)
}

// ownCommands are the commands floodgate has and Redis 7.0 lacks; a reply
// that lists commands (ACL CAT) names them on floodgate only.
var ownCommands = map[string]bool{"cl.throttle": true, "gcra": true, "increx": true}

// withoutOwnCommands drops ownCommands from a flat array of bulk strings,
// for !sortown: the list Redis 7.0 would answer.
func withoutOwnCommands(raw []byte) []byte {
	if len(raw) == 0 || raw[0] != '*' {
		return raw
	}
	rd := &rawConn{rd: bufio.NewReader(bytes.NewReader(raw))}
	line, _ := rd.rd.ReadBytes('\n')
	n, _ := strconv.Atoi(strings.TrimSpace(string(line[1:])))
	var kept []string
	for i := 0; i < n; i++ {
		var b bytes.Buffer
		if err := rd.readIntoNoDeadline(&b); err != nil {
			return raw
		}
		elem := b.String()
		if _, v, ok := strings.Cut(elem, "\r\n"); ok && ownCommands[strings.TrimSuffix(v, "\r\n")] {
			continue
		}
		kept = append(kept, elem)
	}
	return []byte(fmt.Sprintf("*%d\r\n%s", len(kept), strings.Join(kept, "")))
}

// distinctElements reports whether a top-level array's (or RESP3 set's)
// elements are pairwise distinct.
func distinctElements(raw []byte) bool {
	sorted := sortedArray(raw)
	rd := &rawConn{rd: bufio.NewReader(bytes.NewReader(sorted))}
	if _, err := rd.rd.ReadBytes('\n'); err != nil {
		return false
	}
	var prev []byte
	for i := 0; ; i++ {
		var b bytes.Buffer
		if err := rd.readIntoNoDeadline(&b); err != nil {
			return true
		}
		if i > 0 && bytes.Equal(prev, b.Bytes()) {
			return false
		}
		prev = b.Bytes()
	}
}

func (r *rawConn) readIntoNoDeadline(out *bytes.Buffer) error { return r.readInto(out) }

// shape describes a reply's types and array lengths, not its content.
func shape(raw []byte) string {
	rd := &rawConn{rd: bufio.NewReader(bytes.NewReader(raw))}
	var b strings.Builder
	var walk func() error
	walk = func() error {
		line, err := rd.rd.ReadBytes('\n')
		if err != nil {
			return err
		}
		b.WriteByte(line[0])
		n, _ := strconv.Atoi(strings.TrimSpace(string(line[1:])))
		switch line[0] {
		case '$', '=':
			if n >= 0 {
				io.ReadFull(rd.rd, make([]byte, n+2))
			}
		case '*', '~', '%':
			fmt.Fprintf(&b, "%d[", n)
			if line[0] == '%' {
				n *= 2
			}
			for i := 0; i < n; i++ {
				if err := walk(); err != nil {
					return err
				}
			}
			b.WriteByte(']')
		}
		return nil
	}
	walk()
	return b.String()
}

// splitArgs splits a line as redis-cli does.
func splitArgs(line string) ([]string, error) {
	var args []string
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			return args, nil
		}
		var cur strings.Builder
		switch line[i] {
		case '"':
			i++
			for {
				if i >= len(line) {
					return nil, fmt.Errorf("unbalanced quotes")
				}
				ch := line[i]
				if ch == '"' {
					i++
					break
				}
				if ch == '\\' && i+1 < len(line) {
					i++
					switch line[i] {
					case 'n':
						cur.WriteByte('\n')
					case 'r':
						cur.WriteByte('\r')
					case 't':
						cur.WriteByte('\t')
					case 'x':
						v, err := strconv.ParseUint(line[i+1:i+3], 16, 8)
						if err != nil {
							return nil, err
						}
						cur.WriteByte(byte(v))
						i += 2
					default:
						cur.WriteByte(line[i])
					}
					i++
					continue
				}
				cur.WriteByte(ch)
				i++
			}
		case '\'':
			i++
			end := strings.IndexByte(line[i:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unbalanced quotes")
			}
			cur.WriteString(line[i : i+end])
			i += end + 1
		default:
			for i < len(line) && line[i] != ' ' && line[i] != '\t' {
				cur.WriteByte(line[i])
				i++
			}
		}
		args = append(args, cur.String())
	}
}

// withIDs returns args for server i of a connection set, with {id@N}
// replaced by that server's CLIENT ID of connection N.
func withIDs(args []string, ids map[string][]string, i int) []string {
	out := make([]string, len(args))
	for j, a := range args {
		for ref, each := range ids {
			a = strings.ReplaceAll(a, ref, each[i])
		}
		out[j] = a
	}
	return out
}

var (
	blockedClientsField = regexp.MustCompile(`blocked_clients:(\d+)`)
	bgsaveField         = regexp.MustCompile(`rdb_bgsave_in_progress:(\d+)`)
)

// waitBlocked polls INFO clients on every server until each reports want
// blocked clients: a command sent with !send has reached the server and
// blocked there before the next line runs.
func waitBlocked(t *testing.T, set []*rawConn, want string) {
	t.Helper()
	waitInfo(t, set, "clients", blockedClientsField, want)
}

// waitInfo waits until field (a regexp whose group is the value) of INFO
// section reads want on every server of set ("!bgsaved": no BGSAVE runs).
func waitInfo(t *testing.T, set []*rawConn, section string, field *regexp.Regexp, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for i, c := range set {
		for {
			reply, err := c.do("INFO", section)
			if err != nil {
				t.Fatalf("INFO %s: %v", section, err)
			}
			if m := field.FindSubmatch(reply); m != nil && string(m[1]) == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("server %d: %s never reached %s: %q", i, field, want, reply)
			}
			time.Sleep(time.Millisecond) // polling, bounded by the deadline
		}
	}
}

// wordEnd returns where the first space-separated word of line ends.
func wordEnd(line string) int {
	if end := strings.IndexByte(line, ' '); end >= 0 {
		return end
	}
	return len(line)
}
