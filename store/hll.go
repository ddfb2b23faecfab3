package store

import (
	"errors"
	"math"
	"math/bits"
)

// HyperLogLog values are strings holding Redis 7.0's exact layout, so that
// GET returns Redis's bytes, a SET of Redis-made bytes works here, and
// PFCOUNT answers Redis's estimate:
//
//	"HYLL" | encoding (0 dense, 1 sparse) | 3 unused bytes | cached
//	cardinality, 8 bytes little endian, top bit set when stale | registers
//
// Dense: 16384 6-bit registers packed LSB first (12,288 bytes). Sparse: a
// run-length code of opcodes, ZERO (00xxxxxx, 1..64 zero registers), XZERO
// (01xxxxxx yyyyyyyy, 1..16384 zero registers) and VAL (1vvvvvxx, 1..4
// registers of value 1..32).

// HLL errors, with Redis's text.
var (
	ErrNotHLL     = errors.New("WRONGTYPE Key is not a valid HyperLogLog string value.")
	ErrInvalidHLL = errors.New("INVALIDOBJ Corrupted HLL object detected")
)

const (
	hllP          = 14
	hllQ          = 64 - hllP
	hllRegisters  = 1 << hllP
	hllBits       = 6
	hllRegMax     = 1<<hllBits - 1
	hllHdrSize    = 16
	hllDenseSize  = hllHdrSize + (hllRegisters*hllBits+7)/8
	hllDense      = 0
	hllSparse     = 1
	hllSeed       = 0xadc83b19
	hllAlphaInf   = 0.721347520444481703680 // 0.5/ln(2)
	sparseValMax  = 32
	sparseValLen  = 4
	sparseZeroMax = 64
	sparseXZMax   = 16384
)

// HLLSparseMaxBytes is Redis's default hll-sparse-max-bytes: a sparse HLL
// that would grow past it is converted to dense.
const HLLSparseMaxBytes = 3000

// NewHLL returns an empty HyperLogLog string, sparse, as PFADD creates it.
func NewHLL() *String {
	b := make([]byte, hllHdrSize, hllHdrSize+2)
	copy(b, "HYLL")
	b[4] = hllSparse
	b = append(b, 0x40|byte((sparseXZMax-1)>>8), byte((sparseXZMax-1)&0xff))
	return NewRawString(b)
}

// HLL returns the HyperLogLog held by s, or ErrNotHLL when s does not look
// like one (Redis's isHLLObjectOrReply: an int-encoded string, a short
// one, a bad magic or encoding, or a dense one of the wrong length).
func (s *String) HLL() (*HLLValue, error) {
	b := s.b
	if s.isInt() || len(b) < hllHdrSize || string(b[:4]) != "HYLL" || b[4] > hllSparse ||
		(b[4] == hllDense && len(b) != hllDenseSize) {
		return nil, ErrNotHLL
	}
	return &HLLValue{s: s}, nil
}

// HLLValue is a validated HyperLogLog string. Its methods change the
// String in place (which becomes raw-encoded, as Redis unshares it).
type HLLValue struct{ s *String }

// Unshare makes the string raw-encoded, as Redis's dbUnshareStringValue
// does to every HLL that PFADD, single-key PFCOUNT, PFMERGE's destination
// and PFDEBUG look at, whether or not they then change it (OBJECT
// ENCODING shows it).
func (h *HLLValue) Unshare() { h.s.mutable() }

// Sparse reports whether the sparse encoding is in use.
func (h *HLLValue) Sparse() bool { return h.s.b[4] == hllSparse }

// InvalidateCache marks the cached cardinality stale.
func (h *HLLValue) InvalidateCache() { h.s.b[15] |= 0x80 }

// Add adds elements and reports whether any register changed; sparseMax is
// hll-sparse-max-bytes. A corrupted sparse code answers ErrInvalidHLL
// (registers set before it was found stay set, as in Redis).
func (h *HLLValue) Add(elements [][]byte, sparseMax int) (bool, error) {
	h.s.mutable()
	updated := false
	var err error
	for _, e := range elements {
		index, count := patLen(e)
		var changed bool
		changed, err = h.set(index, count, sparseMax)
		updated = updated || changed
		if err != nil {
			break
		}
	}
	if updated {
		h.InvalidateCache()
	}
	return updated, err
}

// set raises register index to count.
func (h *HLLValue) set(index int, count uint8, sparseMax int) (bool, error) {
	if h.Sparse() {
		return h.sparseSet(index, count, sparseMax)
	}
	return denseSet(h.s.b[hllHdrSize:], index, count), nil
}

// Count returns the estimated cardinality, from the cache when it is valid;
// otherwise it computes it and stores it in the cache, reporting
// recomputed (the value changed, as Redis signals).
func (h *HLLValue) Count() (card uint64, recomputed bool, err error) {
	h.s.mutable()
	b := h.s.b
	if b[15]&0x80 == 0 {
		for i := 7; i >= 0; i-- {
			card = card<<8 | uint64(b[8+i])
		}
		return card, false, nil
	}
	var histo [64]int
	if h.Sparse() {
		if !sparseHisto(b[hllHdrSize:], &histo) {
			return 0, false, ErrInvalidHLL
		}
	} else {
		denseHisto(b[hllHdrSize:], &histo)
	}
	card = estimate(&histo)
	for i := range 8 {
		b[8+i] = byte(card >> (8 * i))
	}
	return card, true, nil
}

// MergeInto raises each of the 16384 registers in max to this HLL's value.
func (h *HLLValue) MergeInto(max []uint8) error {
	regs := h.s.b[hllHdrSize:]
	if !h.Sparse() {
		for i := range hllRegisters {
			if v := denseGet(regs, i); v > max[i] {
				max[i] = v
			}
		}
		return nil
	}
	ok := walkRegisters(regs, func(first int, v uint8, run int) {
		for i := first; i < first+run && v > 0; i++ {
			if v > max[i] {
				max[i] = v
			}
		}
	})
	if !ok {
		return ErrInvalidHLL
	}
	return nil
}

// SetRegisters raises the registers to max (PFMERGE's destination), dense
// when dense is asked for, and invalidates the cache.
func (h *HLLValue) SetRegisters(max []uint8, dense bool, sparseMax int) error {
	h.s.mutable()
	if dense && h.Sparse() {
		if err := h.toDense(); err != nil {
			return err
		}
	}
	for i, v := range max {
		if v != 0 {
			// Redis ignores this result too: a corrupted sparse
			// destination was already refused by MergeInto.
			_, _ = h.set(i, v, sparseMax)
		}
	}
	h.InvalidateCache()
	return nil
}

// CountRegisters estimates the cardinality of raw registers (PFCOUNT of
// several keys).
func CountRegisters(regs []uint8) uint64 {
	var histo [64]int
	for _, v := range regs {
		histo[v]++
	}
	return estimate(&histo)
}

// ToDense converts a sparse HLL to dense and reports whether it did.
func (h *HLLValue) ToDense() (bool, error) {
	h.s.mutable()
	if !h.Sparse() {
		return false, nil
	}
	return true, h.toDense()
}

// Registers returns the 16384 register values, converting a sparse HLL to
// dense first (PFDEBUG GETREG).
func (h *HLLValue) Registers() ([]uint8, error) {
	if _, err := h.ToDense(); err != nil {
		return nil, err
	}
	regs := make([]uint8, hllRegisters)
	for i := range regs {
		regs[i] = denseGet(h.s.b[hllHdrSize:], i)
	}
	return regs, nil
}

// SparseOpcodes calls fn for each opcode of a sparse HLL: kind 'z'
// (ZERO), 'Z' (XZERO) or 'v' (VAL), the register value (VAL only) and the
// run length (PFDEBUG DECODE).
func (h *HLLValue) SparseOpcodes(fn func(kind byte, value, run int)) {
	walkSparse(h.s.b[hllHdrSize:], func(kind byte, value uint8, run int) bool {
		fn(kind, int(value), run)
		return true
	})
}

// walkSparse decodes a sparse code, calling fn for each opcode until it
// returns false. An XZERO cut short reads the missing byte as 0, as Redis
// reads the string's terminator.
func walkSparse(sparse []byte, fn func(kind byte, value uint8, run int) bool) {
	for p := 0; p < len(sparse); {
		op := sparse[p]
		var ok bool
		switch {
		case op&0xc0 == 0:
			ok = fn('z', 0, int(op&0x3f)+1)
			p++
		case op&0xc0 == 0x40:
			var low byte
			if p+1 < len(sparse) {
				low = sparse[p+1]
			}
			ok = fn('Z', 0, int(op&0x3f)<<8|int(low)+1)
			p += 2
		default:
			ok = fn('v', op>>2&0x1f+1, int(op&3)+1)
			p++
		}
		if !ok {
			return
		}
	}
}

// walkRegisters calls fn for each run of equal registers of a sparse code
// and reports whether the code covers exactly the 16384 registers. Like
// Redis 7.0.15 as Debian ships it (with the CVE-2025-32023 fix), a VAL
// run past the last register makes the code invalid.
func walkRegisters(sparse []byte, fn func(first int, value uint8, run int)) bool {
	idx, ok := 0, true
	walkSparse(sparse, func(kind byte, value uint8, run int) bool {
		if kind == 'v' && idx+run > hllRegisters {
			ok = false
			return false
		}
		fn(idx, value, run)
		idx += run
		return true
	})
	return ok && idx == hllRegisters
}

// murmurHash64A is the 64-bit MurmurHash2 Redis uses for HLL, reading
// 8-byte blocks little endian whatever the machine.
func murmurHash64A(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ uint64(len(key))*m
	n := len(key) &^ 7
	for i := 0; i < n; i += 8 {
		k := uint64(key[i]) | uint64(key[i+1])<<8 | uint64(key[i+2])<<16 | uint64(key[i+3])<<24 |
			uint64(key[i+4])<<32 | uint64(key[i+5])<<40 | uint64(key[i+6])<<48 | uint64(key[i+7])<<56
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	if tail := key[n:]; len(tail) > 0 {
		for i := len(tail) - 1; i >= 0; i-- {
			h ^= uint64(tail[i]) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// patLen returns the register an element hashes to and the length of the
// run of zeros (plus one) in the rest of its hash (Redis's hllPatLen).
func patLen(e []byte) (int, uint8) {
	hash := murmurHash64A(e, hllSeed)
	index := int(hash & (hllRegisters - 1))
	hash >>= hllP
	hash |= 1 << hllQ // the run ends by bit Q at the latest
	return index, uint8(bits.TrailingZeros64(hash) + 1)
}

func denseGet(regs []byte, i int) uint8 {
	byteIdx, fb := i*hllBits/8, uint(i*hllBits&7)
	v := uint(regs[byteIdx]) >> fb
	if byteIdx+1 < len(regs) {
		v |= uint(regs[byteIdx+1]) << (8 - fb)
	}
	return uint8(v & hllRegMax)
}

func denseSetRaw(regs []byte, i int, v uint8) {
	byteIdx, fb := i*hllBits/8, uint(i*hllBits&7)
	regs[byteIdx] &^= byte(hllRegMax << fb)
	regs[byteIdx] |= byte(uint(v) << fb)
	if byteIdx+1 < len(regs) {
		regs[byteIdx+1] &^= byte(hllRegMax >> (8 - fb))
		regs[byteIdx+1] |= byte(uint(v) >> (8 - fb))
	}
}

func denseSet(regs []byte, i int, count uint8) bool {
	if count > denseGet(regs, i) {
		denseSetRaw(regs, i, count)
		return true
	}
	return false
}

// toDense rewrites a sparse HLL as dense (Redis's hllSparseToDense): the
// header (magic and cached cardinality) is kept.
func (h *HLLValue) toDense() error {
	old := h.s.b
	dense := make([]byte, hllDenseSize)
	copy(dense, old[:hllHdrSize])
	dense[4] = hllDense
	regs := dense[hllHdrSize:]
	ok := walkRegisters(old[hllHdrSize:], func(first int, v uint8, run int) {
		for i := first; i < first+run && v > 0; i++ {
			denseSetRaw(regs, i, v)
		}
	})
	if !ok {
		return ErrInvalidHLL
	}
	h.s.b = dense
	return nil
}

// sparseSet is Redis's hllSparseSet: it finds the opcode covering index,
// splits it around the new value, merges equal neighbouring VAL opcodes,
// and converts to dense when the value is over 32 or the string would
// grow past sparseMax.
func (h *HLLValue) sparseSet(index int, count uint8, sparseMax int) (bool, error) {
	if count > sparseValMax {
		return h.promote(index, count)
	}
	b := h.s.b
	sparse := b[hllHdrSize:]
	end := len(sparse)
	first, span, p, prev := 0, 0, 0, -1
	xzeroLen := func(p int) int {
		var low byte
		if p+1 < end {
			low = sparse[p+1]
		}
		return int(sparse[p]&0x3f)<<8 | int(low) + 1
	}
	for p < end {
		oplen := 1
		switch op := sparse[p]; {
		case op&0xc0 == 0:
			span = int(op&0x3f) + 1
		case op&0x80 != 0:
			span = int(op&3) + 1
		default:
			span = xzeroLen(p)
			oplen = 2
		}
		if index <= first+span-1 {
			break
		}
		prev = p
		p += oplen
		first += span
	}
	if span == 0 || p >= end {
		return false, ErrInvalidHLL
	}
	op := sparse[p]
	isZero, isXZero, isVal := op&0xc0 == 0, op&0xc0 == 0x40, op&0x80 != 0
	var runlen int
	switch {
	case isZero:
		runlen = int(op&0x3f) + 1
	case isXZero:
		runlen = xzeroLen(p)
	default:
		runlen = int(op&3) + 1
	}
	valOp := func(v uint8, n int) byte { return 0x80 | (v-1)<<2 | byte(n-1) }
	updatedInPlace := false
	if isVal {
		if (op>>2)&0x1f+1 >= count {
			return false, nil
		}
		if runlen == 1 {
			sparse[p] = valOp(count, 1)
			updatedInPlace = true
		}
	}
	if !updatedInPlace && isZero && runlen == 1 {
		sparse[p] = valOp(count, 1)
		updatedInPlace = true
	}
	if !updatedInPlace {
		var seqBuf [5]byte // at most XZERO, VAL, XZERO
		seq := seqBuf[:0]
		last := first + span - 1
		zeros := func(n int) {
			if n > sparseZeroMax {
				seq = append(seq, 0x40|byte((n-1)>>8), byte((n-1)&0xff))
			} else {
				seq = append(seq, byte(n-1))
			}
		}
		if isZero || isXZero {
			if index != first {
				zeros(index - first)
			}
			seq = append(seq, valOp(count, 1))
			if index != last {
				zeros(last - index)
			}
		} else {
			cur := (op>>2)&0x1f + 1
			if index != first {
				seq = append(seq, valOp(cur, index-first))
			}
			seq = append(seq, valOp(count, 1))
			if index != last {
				seq = append(seq, valOp(cur, last-index))
			}
		}
		oldlen := 1
		if isXZero {
			oldlen = 2
		}
		delta := len(seq) - oldlen
		if delta > 0 && len(b)+delta > sparseMax {
			return h.promote(index, count)
		}
		// Splice seq in place of the opcode, moving the tail as
		// Redis's memmove does; append grows the buffer geometrically.
		at, tail := hllHdrSize+p, hllHdrSize+p+oldlen
		switch {
		case tail > len(b):
			// An XZERO cut short at the end: Redis read its missing
			// byte as the terminator, and its length arithmetic keeps
			// all of seq but the last byte.
			b = append(b[:at], seq...)[:len(b)+delta]
		case delta > 0:
			b = append(b, make([]byte, delta)...)
			copy(b[tail+delta:], b[tail:len(b)-delta])
			copy(b[at:], seq)
		default:
			copy(b[tail+delta:], b[tail:])
			b = b[:len(b)+delta]
			copy(b[at:], seq)
		}
		h.s.b = b
		sparse = b[hllHdrSize:]
		end = len(sparse)
	}
	// Merge adjacent VAL opcodes of the same value, scanning up to five
	// opcodes from the one before the change.
	p = max(prev, 0)
	for scan := 5; p < end && scan > 0; scan-- {
		op := sparse[p]
		if op&0xc0 == 0x40 {
			p += 2
			continue
		}
		if op&0xc0 == 0 {
			p++
			continue
		}
		if p+1 < end && sparse[p+1]&0x80 != 0 {
			v1, v2 := (op>>2)&0x1f, (sparse[p+1]>>2)&0x1f
			if n := int(op&3) + int(sparse[p+1]&3) + 2; v1 == v2 && n <= sparseValLen {
				sparse[p+1] = valOp(v1+1, n)
				copy(sparse[p:], sparse[p+1:])
				end--
				sparse = sparse[:end]
				b = b[:hllHdrSize+end]
				h.s.b = b
				continue // and try the merged opcode with the next
			}
		}
		p++
	}
	return true, nil
}

// promote converts to dense and sets the register there.
func (h *HLLValue) promote(index int, count uint8) (bool, error) {
	if err := h.toDense(); err != nil {
		return false, err
	}
	denseSet(h.s.b[hllHdrSize:], index, count)
	return true, nil
}

// denseHisto counts register values four at a time: three bytes hold
// four 6-bit registers (a PFCOUNT after each PFADD runs this every time).
func denseHisto(regs []byte, histo *[64]int) {
	regs = regs[:hllRegisters*hllBits/8]
	for i := 0; i+3 <= len(regs); i += 3 {
		b0, b1, b2 := regs[i], regs[i+1], regs[i+2]
		histo[b0&63]++
		histo[(b0>>6|b1<<2)&63]++
		histo[(b1>>4|b2<<4)&63]++
		histo[b2>>2]++
	}
}

// sparseHisto fills the histogram and reports whether the code covers
// exactly 16384 registers.
func sparseHisto(sparse []byte, histo *[64]int) bool {
	idx := 0
	walkSparse(sparse, func(_ byte, value uint8, run int) bool {
		idx += run
		histo[value] += run
		return true
	})
	return idx == hllRegisters
}

// estimate is Redis 7.0's hllCount: Ertl's improved estimator ("New
// cardinality estimation algorithms for HyperLogLog sketches").
func estimate(histo *[64]int) uint64 {
	m := float64(hllRegisters)
	z := m * hllTau((m-float64(histo[hllQ+1]))/m)
	for j := hllQ; j >= 1; j-- {
		z += float64(histo[j])
		z *= 0.5
	}
	z += m * hllSigma(float64(histo[0])/m)
	return uint64(math.Round(hllAlphaInf * m * m / z))
}

func hllSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if prev == z {
			return z
		}
	}
}

func hllTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		d := 1 - x
		z -= d * d * y // C's pow(d, 2), which is exact to the rounding of d*d
		if prev == z {
			return z / 3
		}
	}
}
