package luaengine

import (
	"math"
	"runtime"
	"strconv"
	"testing"

	"github.com/floodgate/floodgate/internal/number"
	lua "github.com/floodgate/floodgate/third_party/gopher-lua"
)

// The fast path of parseNumber must agree with the strtod-like parser on
// every string it accepts, and leave the rest to it.
func TestParseDecimalIntAgrees(t *testing.T) {
	inputs := []string{
		"0", "00", "7", "007", "100", "60", "60000", "1700000000000",
		"999999999999999", "1000000000000000", "9999999999999999", "12345678901234567890",
		"", " 1", "1 ", "+1", "-1", "-0", "1.5", "1e3", "0x10", "1_0", "١", "12a", "inf", "nan",
	}
	for i := 0; i < 2000; i++ {
		inputs = append(inputs, strconv.Itoa(i*7919))
	}
	for _, s := range inputs {
		fast, fastOK := parseDecimalInt(s)
		full, fullOK := number.ParseLua(s)
		if fastOK && (!fullOK || math.Float64bits(fast) != math.Float64bits(full)) {
			t.Errorf("%q: fast path %v, strtod %v %v", s, fast, full, fullOK)
		}
		got, gotOK := parseNumber(s)
		if gotOK != fullOK || (gotOK && math.Float64bits(got) != math.Float64bits(full)) {
			t.Errorf("%q: parseNumber %v %v, strtod %v %v", s, got, gotOK, full, fullOK)
		}
	}
}

func BenchmarkParseNumber(b *testing.B) {
	for _, s := range []string{"100", "60000", "1.5"} {
		b.Run(s, func(b *testing.B) {
			for b.Loop() {
				parseNumber(s)
			}
		})
	}
}

// Numbers boxed from a shared slab keep their own values, across slabs and
// after garbage collection.
func TestNumberBoxes(t *testing.T) {
	var nb numberBoxes
	vals := make([]lua.LValue, 3*numberSlab+5)
	for i := range vals {
		vals[i] = nb.int(int64(100000 + i))
	}
	runtime.GC()
	for i, v := range vals {
		if n, ok := v.(lua.LNumber); !ok || n != lua.LNumber(100000+i) {
			t.Fatalf("box %d holds %v", i, v)
		}
	}
	if v := nb.float(-0.5); v.(lua.LNumber) != -0.5 {
		t.Errorf("float box: %v", v)
	}
	if v := nb.float(7); v != smallInts[7] {
		t.Errorf("small integers should share the preset boxes")
	}
	if n := testing.AllocsPerRun(1000, func() { nb.int(123456) }); n > 0.05 {
		t.Errorf("%.2f allocations per box", n)
	}
}
