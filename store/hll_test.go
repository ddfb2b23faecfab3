package store

import (
	"fmt"
	"testing"
)

// TestHLLSparseDenseAgree feeds a sparse and a dense HLL the same elements
// and checks that they count alike, through the sparse HLL's promotion.
func TestHLLSparseDenseAgree(t *testing.T) {
	sparse, _ := NewHLL().HLL()
	dense, _ := NewHLL().HLL()
	if _, err := dense.ToDense(); err != nil {
		t.Fatal(err)
	}
	for i := range 5000 {
		e := [][]byte{[]byte(fmt.Sprint("e", i))}
		if _, err := sparse.Add(e, HLLSparseMaxBytes); err != nil {
			t.Fatal(err)
		}
		if _, err := dense.Add(e, HLLSparseMaxBytes); err != nil {
			t.Fatal(err)
		}
		if i%250 != 0 {
			continue
		}
		a, _, errA := sparse.Count()
		b, _, errB := dense.Count()
		if errA != nil || errB != nil || a != b {
			t.Fatalf("after %d: sparse %d %v, dense %d %v", i+1, a, errA, b, errB)
		}
	}
	if sparse.Sparse() {
		t.Fatal("5000 elements should have promoted the sparse HLL")
	}
}

func TestHLLNotHLL(t *testing.T) {
	for _, v := range []*String{NewInt(5), NewString([]byte("HYLL")), NewString([]byte("HYLL\x02" + string(make([]byte, 11))))} {
		if _, err := v.HLL(); err != ErrNotHLL {
			t.Errorf("%q: %v, want ErrNotHLL", v.Bytes(), err)
		}
	}
}

// FuzzHLLCorrupt feeds arbitrary bytes after a valid header to every HLL
// operation: a corrupted HLL must give an error, never a panic.
func FuzzHLLCorrupt(f *testing.F) {
	f.Add(byte(1), []byte{0x7f, 0xff}, []byte("a"))
	f.Add(byte(1), []byte{0x7f, 0xfe, 0x80, 0x80}, []byte("b"))
	f.Add(byte(1), []byte{0x40, 0x00, 0xff, 0x3f}, []byte("c"))
	f.Add(byte(0), make([]byte, 12288), []byte("d"))
	f.Fuzz(func(t *testing.T, enc byte, body, elem []byte) {
		b := append([]byte("HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80"), body...)
		b[4] = enc
		for _, op := range []func(h *HLLValue){
			func(h *HLLValue) { h.Add([][]byte{elem, body}, 40) },
			func(h *HLLValue) { h.Count() },
			func(h *HLLValue) { h.MergeInto(make([]uint8, hllRegisters)) },
			func(h *HLLValue) { h.ToDense() },
			func(h *HLLValue) { h.SparseOpcodes(func(byte, int, int) {}) },
			func(h *HLLValue) {
				regs := make([]uint8, hllRegisters)
				regs[len(elem)%hllRegisters] = uint8(len(body) % 64)
				h.SetRegisters(regs, len(elem)%2 == 0, 60)
			},
		} {
			h, err := NewRawString(append([]byte(nil), b...)).HLL()
			if err != nil {
				return
			}
			op(h)
		}
	})
}
