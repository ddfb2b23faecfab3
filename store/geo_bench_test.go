package store

import (
	"fmt"
	"testing"
)

// BenchmarkGeoDistance compares the C library's trigonometry (what
// GeoDistance uses with cgo) with the double-double fallback.
func BenchmarkGeoDistance(b *testing.B) {
	b.Run("GeoDistance", func(b *testing.B) {
		for i := range b.N {
			GeoDistance(13.361389, 38.115556, 15.087269+float64(i&63)*1e-3, 37.502669)
		}
	})
	b.Run("double-double", func(b *testing.B) {
		for i := range b.N {
			ddSin(float64(i&63) * 1e-2)
			ddCos(float64(i&63) * 1e-2)
			ddAsin(float64(i&63) * 1e-2)
		}
	})
}

func BenchmarkHLL(b *testing.B) {
	elems := make([][]byte, 1<<16)
	for i := range elems {
		elems[i] = []byte(fmt.Sprint("element:", i))
	}
	b.Run("add-sparse", func(b *testing.B) {
		var h *HLLValue
		for i := range b.N {
			if i%1000 == 0 { // stay sparse: a fresh HLL every 1,000 adds
				h, _ = NewHLL().HLL()
			}
			h.Add(elems[i&(1<<16-1):][:1], HLLSparseMaxBytes)
		}
	})
	b.Run("add-dense", func(b *testing.B) {
		h, _ := NewHLL().HLL()
		h.ToDense()
		for i := range b.N {
			h.Add(elems[i&(1<<16-1):][:1], HLLSparseMaxBytes)
		}
	})
	b.Run("count-dense", func(b *testing.B) {
		h, _ := NewHLL().HLL()
		h.Add(elems, HLLSparseMaxBytes)
		for range b.N {
			h.InvalidateCache()
			h.Count()
		}
	})
}
