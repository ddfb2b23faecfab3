package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var io_ReadFull = io.ReadFull

// A case is a short script of command lines sent, in order, to both servers
// on fresh connections after FLUSHALL. Each line is split like redis-cli
// splits its input ("double quotes" with \n \r \t \xHH \" \\ escapes,
// 'single quotes' literal). A line may start with modifiers:
//
//	@2           send on connection 2 (1 is the default; for WATCH and the like)
//	!sort        compare the top-level array ignoring order (KEYS, SMEMBERS)
//	!approx=N    integer replies may differ by N (TTL, PTTL)
//	!type        compare only the reply's type and shape, not its content (TIME)
//	!known=why   a deliberate difference: run on both, compare nothing, say why
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
	conns := map[int][2]*rawConn{}
	defer func() {
		for _, pair := range conns {
			pair[0].close()
			pair[1].close()
		}
	}()
	get := func(n int) [2]*rawConn {
		if pair, ok := conns[n]; ok {
			return pair
		}
		r, err := dialRaw(redisAddr)
		if err != nil {
			t.Fatalf("dial redis: %v", err)
		}
		f, err := dialRaw(floodgateAddr)
		if err != nil {
			t.Fatalf("dial floodgate: %v", err)
		}
		pair := [2]*rawConn{r, f}
		conns[n] = pair
		if proto == 3 {
			// HELLO's reply carries the connection id: compare its shape.
			want, errR := r.do("HELLO", "3")
			got, errF := f.do("HELLO", "3")
			if errR != nil || errF != nil || shape(want) != shape(got) {
				t.Fatalf("HELLO 3: redis %q %v, floodgate %q %v", want, errR, got, errF)
			}
		}
		return pair
	}
	first := get(1)
	for _, c := range first {
		if reply, err := c.do("FLUSHALL"); err != nil || string(reply) != "+OK\r\n" {
			t.Fatalf("FLUSHALL: %q %v", reply, err)
		}
	}
	for _, line := range tc.lines {
		conn, mode, arg, rest := parseModifiers(line)
		args, err := splitArgs(rest)
		if err != nil || len(args) == 0 {
			t.Fatalf("bad case line %q: %v", line, err)
		}
		pair := get(conn)
		want, errR := pair[0].do(args...)
		got, errF := pair[1].do(args...)
		if errR != nil {
			t.Fatalf("%s: redis: %v", shortLine(line), errR)
		}
		if errF != nil {
			t.Fatalf("%s: floodgate: %v (redis said %.200q)", shortLine(line), errF, want)
		}
		if mode == "known" {
			t.Logf("known difference (%s): %s: %s", arg, shortLine(line), replyDiff(want, got))
			continue
		}
		countCommand(args)
		if !sameReply(mode, arg, want, got) {
			t.Errorf("%s\n%s", shortLine(line), replyDiff(want, got))
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
			end := strings.IndexByte(line, ' ')
			conn, _ = strconv.Atoi(line[1:end])
			line = line[end+1:]
		case strings.HasPrefix(line, "!"):
			end := strings.IndexByte(line, ' ')
			mode = line[1:end]
			if i := strings.IndexByte(mode, '='); i >= 0 {
				mode, arg = mode[:i], mode[i+1:]
			}
			line = line[end+1:]
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
	}
	panic("unknown modifier " + mode)
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
