// Package lzf is liblzf's format, which Redis uses for compressed RDB
// strings and quicklist nodes.
package lzf

import (
	"errors"
)

// LZF, the format of liblzf that Redis uses for compressed strings. A
// control byte below 32 starts a run of ctrl+1 literal bytes; otherwise its
// top three bits are a match length minus 2 (7: one more byte follows with
// the rest) and its low five bits with the next byte an offset back, minus 1.

// MaxRef is the longest run one back reference expands to.
const MaxRef = 1<<8 + 1<<3

// ErrCorrupt is returned by Decompress for data that is not valid LZF of
// the expected length.
var ErrCorrupt = errors.New("invalid LZF data")

const (
	lzfMaxLit = 1 << 5
	lzfMaxOff = 1 << 13
	lzfMaxRef = MaxRef
	lzfHLog   = 16
)

// lzfIndex is liblzf's hash of the last bytes seen ("VERY_FAST" variant),
// in 32-bit arithmetic as in C.
func lzfIndex(h uint32) uint32 { return (h>>(3*8-lzfHLog) - h*5) & (1<<lzfHLog - 1) }

// hashTable is Compress's table of the last offset seen per hash, tagged
// with the epoch of the call that wrote it.
type hashTable struct {
	slots [1 << lzfHLog]uint64
	epoch uint32
}

// Compress compresses in as Redis's liblzf (lzf_compress, with Redis's
// build options) does, byte for byte, so that Redis and floodgate decide
// alike whether a value is worth compressing and DUMP payloads agree. It
// returns nil when the output would not fit in max bytes. liblzf's bound
// checks are conservative by a few bytes; they are kept, since they decide
// whether small values get compressed.
func Compress(in []byte, max int) []byte {
	if len(in) == 0 || max <= 0 {
		return nil
	}
	// table holds input offsets, 0 being "none" as in liblzf. It comes
	// from a pool: allocating and zeroing its 256 KB took most of the time
	// of compressing a list node (list-compress-depth compresses one per
	// node added), so a slot is instead valid only if it carries this
	// call's epoch.
	tab := getTable()
	defer putTable(tab)
	tab.epoch++
	if tab.epoch == 0 {
		clear(tab.slots[:])
		tab.epoch = 1
	}
	epoch := uint64(tab.epoch) << 32
	get := func(i uint32) uint32 {
		if e := tab.slots[i]; e&^(1<<32-1) == epoch {
			return uint32(e)
		}
		return 0
	}
	set := func(i uint32, v uint32) { tab.slots[i] = epoch | uint64(v) }
	out := make([]byte, max+lzfMaxLit+8)
	end := len(in)
	op, lit, ip := 1, 0, 0 // op starts past the first run's header
	h := uint32(in[0])<<8 | uint32(in[1%end])
	for ip < end-2 {
		h = h<<8 | uint32(in[ip+2])
		slot := lzfIndex(h)
		ref := int(get(slot))
		set(slot, uint32(ip))
		off := ip - ref - 1
		if ref > 0 && ref < ip && off < lzfMaxOff && in[ref+2] == in[ip+2] && in[ref] == in[ip] && in[ref+1] == in[ip+1] {
			n := 2
			maxlen := min(end-ip-n, lzfMaxRef)
			if op+3+1 >= max {
				extra := 0
				if lit == 0 {
					extra = 1
				}
				if op-extra+3+1 >= max {
					return nil
				}
			}
			out[op-lit-1] = byte(lit - 1) // close the literal run
			if lit == 0 {
				op--
			}
			matched := false
			if maxlen > 16 {
				for range 16 {
					n++
					if in[ref+n] != in[ip+n] {
						matched = true
						break
					}
				}
			}
			if !matched {
				for {
					n++
					if !(n < maxlen && in[ref+n] == in[ip+n]) {
						break
					}
				}
			}
			n -= 2
			ip++
			if n < 7 {
				out[op] = byte(off>>8 + n<<5)
				op++
			} else {
				out[op] = byte(off>>8 + 7<<5)
				out[op+1] = byte(n - 7)
				op += 2
			}
			out[op] = byte(off)
			op++
			lit = 0
			op++
			ip += n + 1
			if ip >= end-2 {
				break
			}
			ip -= 2
			h = uint32(in[ip])<<8 | uint32(in[ip+1])
			h = h<<8 | uint32(in[ip+2])
			set(lzfIndex(h), uint32(ip))
			ip++
			h = h<<8 | uint32(in[ip+2])
			set(lzfIndex(h), uint32(ip))
			ip++
			continue
		}
		if op >= max {
			return nil
		}
		out[op] = in[ip]
		lit++
		op++
		ip++
		if lit == lzfMaxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	if op+3 > max {
		return nil
	}
	for ip < end {
		out[op] = in[ip]
		lit++
		op++
		ip++
		if lit == lzfMaxLit {
			out[op-lit-1] = byte(lit - 1)
			lit = 0
			op++
		}
	}
	out[op-lit-1] = byte(lit - 1)
	if lit == 0 {
		op--
	}
	return out[:op]
}

// Decompress expands in, which must give exactly n bytes.
func Decompress(in []byte, n int) ([]byte, error) {
	out := make([]byte, 0, n)
	for ip := 0; ip < len(in); {
		c := int(in[ip])
		ip++
		if c < 32 {
			c++
			if ip+c > len(in) || len(out)+c > n {
				return nil, ErrCorrupt
			}
			out = append(out, in[ip:ip+c]...)
			ip += c
			continue
		}
		l := c >> 5
		if l == 7 {
			if ip >= len(in) {
				return nil, ErrCorrupt
			}
			l += int(in[ip])
			ip++
		}
		if ip >= len(in) {
			return nil, ErrCorrupt
		}
		ref := len(out) - (c&0x1f)<<8 - int(in[ip]) - 1
		ip++
		l += 2
		if ref < 0 || len(out)+l > n {
			return nil, ErrCorrupt
		}
		for i := range l { // may overlap what it writes: byte by byte
			out = append(out, out[ref+i])
		}
	}
	if len(out) != n {
		return nil, ErrCorrupt
	}
	return out, nil
}
