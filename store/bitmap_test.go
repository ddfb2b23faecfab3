package store

import "testing"

func TestBitfieldAdd(t *testing.T) {
	cases := []struct {
		name         string
		f            Bitfield
		value, incr  int64
		ow           Overflow
		want         int64
		wantOverflow bool
	}{
		{"u8 fits", Bitfield{Bits: 8}, 200, 55, OverflowWrap, 255, false},
		{"u8 wraps up", Bitfield{Bits: 8}, 200, 56, OverflowWrap, 0, true},
		{"u8 saturates up", Bitfield{Bits: 8}, 200, 100, OverflowSat, 255, true},
		{"u8 saturates down", Bitfield{Bits: 8}, 5, -6, OverflowSat, 0, true},
		{"u8 wraps down", Bitfield{Bits: 8}, 5, -6, OverflowWrap, 255, true},
		{"u63 max", Bitfield{Bits: 63}, 1<<63 - 1, 1, OverflowWrap, 0, true},
		{"i8 wraps", Bitfield{Bits: 8, Signed: true}, 127, 1, OverflowWrap, -128, true},
		{"i8 saturates", Bitfield{Bits: 8, Signed: true}, -128, -1, OverflowSat, -128, true},
		{"i64 wraps", Bitfield{Bits: 64, Signed: true}, 1<<63 - 1, 1, OverflowWrap, -1 << 63, true},
		{"i64 fits", Bitfield{Bits: 64, Signed: true}, -1, -1 << 62, OverflowFail, -1<<62 - 1, false},
		{"i1", Bitfield{Bits: 1, Signed: true}, 0, -1, OverflowFail, -1, false},
	}
	for _, tc := range cases {
		got, overflow := tc.f.Add(tc.value, tc.incr, tc.ow)
		if got != tc.want || overflow != tc.wantOverflow {
			t.Errorf("%s: Add(%d, %d) = %d, %v; want %d, %v", tc.name, tc.value, tc.incr, got, overflow, tc.want, tc.wantOverflow)
		}
	}
}

func TestBitfieldGetSet(t *testing.T) {
	b := make([]byte, 3)
	f := Bitfield{Offset: 5, Bits: 12, Signed: true}
	f.Set(b, uint64(0xfff&-300))
	if got := f.Get(b); got != -300 {
		t.Fatalf("Get = %d, want -300 (bytes %x)", got, b)
	}
	if got := (Bitfield{Offset: 5, Bits: 12}).Get(b); got != 4096-300 {
		t.Fatalf("unsigned Get = %d", got)
	}
	if b[0]&0xf8 != 0 || b[2]&0x07 != 0 {
		t.Fatalf("Set wrote outside its field: %x", b)
	}
}

// FuzzBitRange checks BITCOUNT's and BITPOS's range arithmetic on any
// indexes: no panic, and counts agree with a bit-by-bit reference.
func FuzzBitRange(f *testing.F) {
	f.Add([]byte("foobar"), int64(1), int64(-2), true)
	f.Add([]byte{0xff, 0xf0}, int64(-9223372036854775808), int64(9223372036854775807), false)
	f.Fuzz(func(t *testing.T, b []byte, start, end int64, isBit bool) {
		from, to, first, last, ok := BitRange(len(b), start, end, isBit)
		if !ok {
			return
		}
		got := BitCount(b, from, to, first, last)
		lo, hi := int64(from)*8, int64(to)*8+7
		if isBit {
			lo += int64(bitsOnes(first))
			hi -= int64(bitsOnes(last))
		}
		var want int64
		for i := lo; i <= hi; i++ {
			if GetBit(b, uint64(i)) {
				want++
			}
		}
		if got != want {
			t.Fatalf("BitCount(%x, %d, %d, %v) = %d, want %d", b, start, end, isBit, got, want)
		}
		for _, bit := range []bool{false, true} {
			pos := BitPos(b, from, to, first, last, bit, true)
			if pos != -1 && (pos < lo || pos > hi || GetBit(b, uint64(pos)) != bit) {
				t.Fatalf("BitPos(%x, %v) = %d outside [%d, %d] or wrong bit", b, bit, pos, lo, hi)
			}
		}
	})
}

func bitsOnes(m byte) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}
