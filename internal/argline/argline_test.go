package argline

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
)

// splitCases are sdssplitargs's rules; TestSplitAsRedis checks each one
// against redis-server, which splits inline requests with it.
var splitCases = []struct {
	line  string
	words []string // nil: ErrUnbalanced
}{
	{"", []string{}},
	{" \t\v\f ", []string{}},
	{"a b  c", []string{"a", "b", "c"}},
	{"  save   900 1  ", []string{"save", "900", "1"}},
	{`"a b" 'c d'`, []string{"a b", "c d"}},
	{`""  ''`, []string{"", ""}},
	{`"\x41\x4a\x4K\x4" "\n\r\t\b\a\z\"\\"`, []string{"AJx4Kx4", "\n\r\t\b\az\"\\"}},
	{`"\xZZ" "\x" "\xff\x00"`, []string{"xZZ", "x", "\xff\x00"}},
	{`'it\'s' '\n' 'a\\b' '"'`, []string{"it's", `\n`, `a\\b`, `"`}},
	{`"it's" "\'"`, []string{"it's", "'"}},
	{`a"b c"d`, nil},
	{`a"b c" d`, []string{"ab c", "d"}},
	{`a'b c' d`, []string{"ab c", "d"}},
	{`a"b`, nil},
	{`"abc`, nil},
	{`'abc`, nil},
	{`"a"b`, nil},
	{`'a'b`, nil},
	{`"a"'b'`, nil},
	{`"a\"`, nil},
	{`'a\'`, nil},
	{`"a\`, nil},
	{"\"a\"\v", []string{"a"}}, // any isspace ends a quoted word
	{"'a'\f b", []string{"a", "b"}},
	{"a\vb \fc\fd", []string{"a\vb", "c\fd"}}, // but \v and \f do not end a bare one
	{"a\tb", []string{"a", "b"}},
	{"\xe2\x82\xac \x01", []string{"\xe2\x82\xac", "\x01"}},
	// sdssplitargs reads a C string: a NUL ends the line. (Redis never
	// splits an inline request that holds one: see internal/resp/request.go.)
	{"a\x00b c", []string{"a"}},
	{"\"a\x00b\"", nil},
}

func TestSplit(t *testing.T) {
	for _, c := range splitCases {
		got, err := SplitString(c.line)
		if c.words == nil {
			if err != ErrUnbalanced {
				t.Errorf("SplitString(%q) = %q, %v; want ErrUnbalanced", c.line, got, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.words) {
			t.Errorf("SplitString(%q) = %q, %v; want %q", c.line, got, err, c.words)
		}
	}
}

// TestSplitAsRedis sends each case (with no NUL, CR or LF) to redis-server
// as the inline request "RPUSH k <line>" and reads back the list.
func TestSplitAsRedis(t *testing.T) {
	redis := redistest.Start(t)
	for _, c := range splitCases {
		if strings.ContainsAny(c.line, "\x00\r\n") || len(c.words) == 0 && c.words != nil {
			continue
		}
		conn := dial(t, redis.Addr)
		reader := bufio.NewReader(conn)
		fmt.Fprintf(conn, "RPUSH k %s\r\n", c.line)
		reply := readLine(t, reader)
		if c.words == nil {
			if reply != "-ERR Protocol error: unbalanced quotes in request" {
				t.Errorf("%q: redis-server answered %q, not unbalanced quotes", c.line, reply)
			}
			conn.Close()
			continue
		}
		if reply != ":"+strconv.Itoa(len(c.words)) {
			t.Errorf("%q: redis-server answered %q to RPUSH, want %d words", c.line, reply, len(c.words))
		}
		fmt.Fprintf(conn, "*4\r\n$6\r\nLRANGE\r\n$1\r\nk\r\n$1\r\n0\r\n$2\r\n-1\r\n*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n")
		var got []string
		if n, _ := strconv.Atoi(strings.TrimPrefix(readLine(t, reader), "*")); n > 0 {
			for range n {
				size, _ := strconv.Atoi(strings.TrimPrefix(readLine(t, reader), "$"))
				buf := make([]byte, size+2)
				if _, err := io.ReadFull(reader, buf); err != nil {
					t.Fatal(err)
				}
				got = append(got, string(buf[:size]))
			}
		}
		readLine(t, reader) // DEL's reply
		if !reflect.DeepEqual(got, c.words) {
			t.Errorf("%q: redis-server split it as %q, the table says %q", c.line, got, c.words)
		}
		conn.Close()
	}
}

// TestQuote: Split reads back what Quote writes, for every byte.
func TestQuote(t *testing.T) {
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	for _, s := range []string{"", "a b", `"\`, string(all)} {
		words, err := SplitString(Quote(s))
		if err != nil || len(words) != 1 || words[0] != s {
			t.Errorf("SplitString(Quote(%q)) = %q, %v", s, words, err)
		}
	}
	for _, c := range []struct{ in, quoted, ifNeeded string }{
		{"abc", `"abc"`, "abc"},
		{"", `""`, ""},
		{"it's", `"it's"`, "it's"},
		{"a b", `"a b"`, `"a b"`},
		{"a\"b\\c", `"a\"b\\c"`, `"a\"b\\c"`},
		{"\n\r\t\a\b\v\x00\x7f\xff", `"\n\r\t\a\b\x0b\x00\x7f\xff"`, `"\n\r\t\a\b\x0b\x00\x7f\xff"`},
	} {
		if got := Quote(c.in); got != c.quoted {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.quoted)
		}
		if got := QuoteIfNeeded(c.in); got != c.ifNeeded {
			t.Errorf("QuoteIfNeeded(%q) = %s, want %s", c.in, got, c.ifNeeded)
		}
	}
}

// TestQuoteAsRedis: MONITOR shows each argument as sdscatrepr writes it.
func TestQuoteAsRedis(t *testing.T) {
	redis := redistest.Start(t)
	monitor := dial(t, redis.Addr)
	monitorReader := bufio.NewReader(monitor)
	fmt.Fprintf(monitor, "MONITOR\r\n")
	if reply := readLine(t, monitorReader); reply != "+OK" {
		t.Fatalf("MONITOR: %q", reply)
	}
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	conn := dial(t, redis.Addr)
	fmt.Fprintf(conn, "*2\r\n$4\r\nECHO\r\n$%d\r\n%s\r\n", len(all), all)
	line := readLine(t, monitorReader)
	want := `"ECHO" ` + Quote(string(all))
	if !strings.HasSuffix(line, want) {
		t.Errorf("MONITOR showed %q, want it to end with %q", line, want)
	}
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(redistest.Patience))
	t.Cleanup(func() { conn.Close() })
	return conn
}

func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading a reply: %v", err)
	}
	return strings.TrimSuffix(line, "\r\n")
}

// FuzzSplit: Split never panics, and reads back any word Quote wrote.
func FuzzSplit(f *testing.F) {
	for _, c := range splitCases {
		f.Add(c.line)
	}
	f.Fuzz(func(t *testing.T, s string) {
		SplitString(s)
		words, err := SplitString(Quote(s))
		if err != nil || len(words) != 1 || words[0] != s {
			t.Fatalf("SplitString(Quote(%q)) = %q, %v", s, words, err)
		}
	})
}
