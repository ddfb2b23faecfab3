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
