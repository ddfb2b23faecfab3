package luaengine

import (
	"slices"
	"strings"
	"testing"

	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// resp3Writer is respWriter with RESP3's script-only types.
type resp3Writer struct{ respWriter }

func (w *resp3Writer) Bool(v bool) {
	if v {
		w.b = append(w.b, "#t\r\n"...)
	} else {
		w.b = append(w.b, "#f\r\n"...)
	}
}
func (w *resp3Writer) BigNumber(s string) { w.b = append(append(append(w.b, '('), s...), "\r\n"...) }
func (w *resp3Writer) VerbatimFormat(format, s string) {
	w.b = append(append(append(append(w.b, '='), format...), ':'), s...)
}

// A script's booleans follow its redis.setresp, and its RESP3-only tables
// reach a writer that renders them; one that does not (a RESP2 connection
// in Redis's terms) gets the RESP2 renderings redis-server 7.0.15 sends.
func TestReplyRESP3Types(t *testing.T) {
	e := New(Options{})
	defer e.Close()
	cases := []struct{ body, resp2, resp3 string }{
		{`return true`, ":1\r\n", ":1\r\n"},
		{`return false`, "$-1\r\n", "$-1\r\n"},
		{`redis.setresp(3) return {true, false}`, "*2\r\n:1\r\n:0\r\n", "*2\r\n#t\r\n#f\r\n"},
		{`return {big_number='12\r\n3'}`, "$5\r\n12  3\r\n", "(12  3\r\n"},
		{`return {big_number=5}`, "*0\r\n", "*0\r\n"},
		{`return {verbatim_string={format='markdown', string='hi'}}`, "$2\r\nhi\r\n", "=mar:hi"},
		{`return {verbatim_string={format='m\0x', string='hi'}}`, "$2\r\nhi\r\n", "=m  :hi"},
		{`return {verbatim_string={format='txt'}}`, "*0\r\n", "*0\r\n"},
	}
	for _, tc := range cases {
		s, err := e.Get([]byte(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		w2, w3 := &respWriter{}, &resp3Writer{}
		e.Run(s, nil, nil, newFakeRedis(), w2)
		e.Run(s, nil, nil, newFakeRedis(), w3)
		if string(w2.b) != tc.resp2 || string(w3.b) != tc.resp3 {
			t.Errorf("%s: got %q and %q, want %q and %q", tc.body, w2.b, w3.b, tc.resp2, tc.resp3)
		}
	}
}

// A map or set reply lists a table's keys in the same order every time.
func TestReplyMapOrderStable(t *testing.T) {
	e := New(Options{})
	defer e.Close()
	for _, body := range []string{
		`return {map={a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8}}`,
		`return {set={a=true,b=true,c=true,d=true,e=true,f=true,g=true,h=true}}`,
	} {
		s, err := e.Get([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		var first string
		for i := range 50 {
			w := &respWriter{}
			e.Run(s, nil, nil, newFakeRedis(), w)
			if i == 0 {
				first = string(w.b)
			} else if string(w.b) != first {
				t.Fatalf("%s run %d: %q, first run %q", body, i, w.b, first)
			}
		}
	}
}

// A table filled key by key is listed in Lua 5.1's node order, as
// redis-server 7.0.15 answered `local t = {} for _, k in ipairs(ARGV) do
// t[k] = 1 end return {map=t}` with these keys: collisions, growth and keys
// longer than 32 bytes (Redis's Lua hashes every byte).
func TestReplyLua51Order(t *testing.T) {
	x, y := strings.Repeat("x", 33), strings.Repeat("y", 40)
	keys := []string{"ab", "ba", "abc", x, y, "k1", "k2", "k3", "k4", "k5", "k6"}
	want := []string{"k1", "k3", "abc", "ab", "ba", "k2", x, "k6", y, "k4", "k5"}
	tb := lua.NewState().NewTable()
	for _, k := range keys {
		tb.RawSetString(k, lua.LNumber(1))
	}
	var got []string
	ks, _ := tablePairs(tb)
	for _, k := range ks {
		got = append(got, string(k.(lua.LString)))
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// Nested replies stop where Redis 7.0.15's did (measured: 7,994 arrays
// below the result, 2,664 map values or set members), with the error in
// place of the value that did not fit.
func TestReplyNestingLimit(t *testing.T) {
	const stackErr = "-ERR reached lua stack limit\r\n"
	e := New(Options{})
	defer e.Close()
	nest := func(store string, depth int) string {
		return run(t, e, newFakeRedis(), "local t = {} local cur = t for i = 1, tonumber(ARGV[1]) do local n = {} "+store+" cur = n end return t", nil, []string{itoa(depth)})
	}
	for _, tt := range []struct {
		name, store  string
		fits         int // the deepest nesting answered whole
		header, leaf string
		last         string // the innermost level one deeper
	}{
		{"array", "cur[1] = n", 7994, "*1\r\n", "*0\r\n", "*1\r\n" + stackErr},
		// The key needs one slot more than the value: both are refused.
		{"map value", "cur.map = {k = n}", 2664, "*2\r\n$1\r\nk\r\n", "*0\r\n", "*2\r\n" + stackErr + stackErr},
		{"set", "cur.set = {[n] = true}", 2664, "*1\r\n", "*0\r\n", "*1\r\n" + stackErr},
	} {
		whole := strings.Repeat(tt.header, tt.fits) + tt.leaf
		if got := nest(tt.store, tt.fits); got != whole {
			t.Errorf("%s at %d: not answered whole (%d bytes, want %d)", tt.name, tt.fits, len(got), len(whole))
		}
		cut := strings.Repeat(tt.header, tt.fits) + tt.last
		if got := nest(tt.store, tt.fits+1); got != cut {
			t.Errorf("%s at %d: got %d bytes ending %q, want the stack error below %d levels", tt.name, tt.fits+1, len(got), got[max(0, len(got)-40):], tt.fits+1)
		}
	}
	// A table holding itself ends in the error instead of recursing.
	if got, want := run(t, e, newFakeRedis(), "local t = {} t[1] = t return t", nil, nil), strings.Repeat("*1\r\n", 7995)+stackErr; got != want {
		t.Errorf("self-referencing table: %d bytes, want %d", len(got), len(want))
	}
}
