package lua

import "testing"

// TestLua51RefillArray checks the refill of an array-only table: values,
// what old passes, the border, and an array outgrown by a burst given back.
func TestLua51RefillArray(t *testing.T) {
	tb := newLTable(0, 0)
	fill := func(n int, s LString) {
		tb.Lua51RefillArray(n, func(i int, old LValue) LValue {
			if i < 2 && old != LNil && old.(LString) != "a" && old.(LString) != "b" {
				t.Fatalf("old at %d is %v", i, old)
			}
			return s
		})
	}
	fill(10000, "a")
	if got := tb.Len(); got != 10000 {
		t.Fatalf("Len after 10000: %d", got)
	}
	fill(3, "b")
	if got := tb.Len(); got != 3 || tb.RawGetInt(3) != LString("b") || tb.RawGetInt(4) != LNil {
		t.Fatalf("after 3: Len %d, [3] %v, [4] %v", got, tb.RawGetInt(3), tb.RawGetInt(4))
	}
	if c := cap(tb.array); c > 64 {
		t.Fatalf("the burst's array is kept: cap %d", c)
	}
	fill(5, "c")
	if got := tb.Len(); got != 5 || tb.RawGetInt(5) != LString("c") {
		t.Fatalf("after 5: Len %d, [5] %v", got, tb.RawGetInt(5))
	}
}
