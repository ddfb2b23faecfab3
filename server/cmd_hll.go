package server

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/floodgate/floodgate/store"
)

var hllHandlers = map[string]Handler{
	"pfadd":      cmdPFAdd,
	"pfcount":    cmdPFCount,
	"pfmerge":    cmdPFMerge,
	"pfdebug":    cmdPFDebug,
	"pfselftest": cmdPFSelfTest,
}

const errPFDebugNoKey = "ERR The specified key does not exist"

// hllSparseMaxBytes is hll-sparse-max-bytes (CONFIG SET may change it).
func (s *Server) hllSparseMaxBytes() int {
	if v, ok := s.settings["hll-sparse-max-bytes"]; ok {
		if n, err := strconv.ParseUint(v, 10, 63); err == nil {
			return int(min(n, 1<<62))
		}
	}
	return store.HLLSparseMaxBytes
}

// hllAt returns the HyperLogLog at key: nil without error when the key is
// missing, or the WRONGTYPE error to answer for another type or a string
// that is not an HLL.
func hllAt(c *Client, key []byte) (*store.HLLValue, error) {
	e := c.db.Get(key)
	if e == nil {
		return nil, nil
	}
	s, ok := e.Value().(*store.String)
	if !ok {
		return nil, store.ErrWrongType
	}
	return s.HLL()
}

func cmdPFAdd(c *Client, args [][]byte) {
	h, err := hllAt(c, args[1])
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	created := h == nil
	if created {
		s := store.NewHLL()
		c.db.Set(args[1], s, 0)
		h, _ = s.HLL()
	}
	updated, err := h.Add(args[2:], c.srv.hllSparseMaxBytes())
	if created {
		h.InvalidateCache()
	}
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	if updated {
		c.db.Modified(args[1])
	}
	if updated || created {
		c.notify(notifyString, "pfadd", args[1])
	}
	c.w.Int(b2i(updated || created))
}

func cmdPFCount(c *Client, args [][]byte) {
	if len(args) > 2 {
		// The cardinality of the union: merge into raw registers.
		regs := make([]uint8, 1<<14)
		for _, key := range args[1:] {
			h, err := hllAt(c, key)
			if err == nil && h != nil {
				err = h.MergeInto(regs)
			}
			if err != nil {
				c.w.Error(err.Error())
				return
			}
		}
		c.w.Int(int64(store.CountRegisters(regs)))
		return
	}
	h, err := hllAt(c, args[1])
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	if h == nil {
		c.w.Int(0)
		return
	}
	card, recomputed, err := h.Count()
	if err != nil {
		c.w.Error(err.Error())
		return
	}
	if recomputed {
		// Storing the cached value changes the string, as Redis signals.
		c.db.Modified(args[1])
	}
	c.w.Int(int64(card))
}

func cmdPFMerge(c *Client, args [][]byte) {
	regs := make([]uint8, 1<<14)
	dense := false
	// The destination is the first source: PFMERGE keeps what it holds.
	// Redis looks the sources up for reading, the destination once more
	// for writing (hllAt below, not counted).
	was := c.readLookups()
	for _, key := range args[1:] {
		h, err := hllAt(c, key)
		if err == nil && h != nil {
			dense = dense || !h.Sparse()
			err = h.MergeInto(regs)
		}
		if err != nil {
			c.endReadLookups(was)
			c.w.Error(err.Error())
			return
		}
	}
	c.endReadLookups(was)
	h, _ := hllAt(c, args[1]) // checked above
	if h == nil {
		s := store.NewHLL()
		c.db.Set(args[1], s, 0)
		h, _ = s.HLL()
	}
	if err := h.SetRegisters(regs, dense, c.srv.hllSparseMaxBytes()); err != nil {
		c.w.Error(err.Error())
		return
	}
	c.db.Modified(args[1])
	// Redis announces a merge as a PFADD, "a mass-add of elements".
	c.notify(notifyString, "pfadd", args[1])
	c.w.Status("OK")
}

func cmdPFDebug(c *Client, args [][]byte) {
	h, err := hllAt(c, args[2])
	switch {
	case err != nil:
		c.w.Error(err.Error())
		return
	case h == nil:
		c.w.Error(errPFDebugNoKey)
		return
	}
	h.Unshare()
	switch {
	case eqFold(args[1], "getreg"):
		regs, err := h.Registers()
		if err != nil {
			c.w.Error(err.Error())
			return
		}
		c.w.Array(len(regs))
		for _, v := range regs {
			c.w.Int(int64(v))
		}
	case eqFold(args[1], "decode"):
		if !h.Sparse() {
			c.w.Error("ERR HLL encoding is not sparse")
			return
		}
		var b strings.Builder
		h.SparseOpcodes(func(kind byte, value, run int) {
			b.WriteByte(kind)
			b.WriteByte(':')
			if kind == 'v' {
				b.WriteString(strconv.Itoa(value) + ",")
			}
			b.WriteString(strconv.Itoa(run) + " ")
		})
		c.w.BulkString(strings.TrimRight(b.String(), " "))
	case eqFold(args[1], "encoding"):
		if h.Sparse() {
			c.w.Status("sparse")
		} else {
			c.w.Status("dense")
		}
	case eqFold(args[1], "todense"):
		converted, err := h.ToDense()
		if err != nil {
			c.w.Error(err.Error())
			return
		}
		c.w.Int(b2i(converted))
	default:
		c.errorf("ERR Unknown PFDEBUG subcommand '%s'", args[1])
	}
}

// cmdPFSelfTest checks, as Redis's PFSELFTEST does in its second test,
// that a sparse and a dense HLL fed the same elements agree on every
// checkpoint's count and stay within six standard errors of it (up to
// 100,000 elements, not Redis's ten million, to keep it quick).
func cmdPFSelfTest(c *Client, args [][]byte) {
	sparse, dense := store.NewHLL(), store.NewHLL()
	hs, _ := sparse.HLL()
	hd, _ := dense.HLL()
	if _, err := hd.ToDense(); err != nil {
		c.w.Error(err.Error())
		return
	}
	seed := rand.Uint64()
	var ele [8]byte
	checkpoint := 1
	for j := 1; j <= 100000; j++ {
		v := uint64(j) ^ seed
		for i := range ele {
			ele[i] = byte(v >> (8 * i))
		}
		hs.Add([][]byte{ele[:]}, store.HLLSparseMaxBytes)
		hd.Add([][]byte{ele[:]}, store.HLLSparseMaxBytes)
		if j != checkpoint {
			continue
		}
		a, _, errA := hs.Count()
		b, _, errB := hd.Count()
		if errA != nil || errB != nil || a != b {
			c.w.Error("TESTFAILED dense/sparse disagree")
			return
		}
		maxErr := int64(1.04/128*6*float64(checkpoint)) + 1
		if j == 10 {
			maxErr = 1
		}
		if d := int64(b) - int64(checkpoint); d > maxErr || -d > maxErr {
			c.errorf("TESTFAILED Too big error. card:%d abserr:%d", checkpoint, max(d, -d))
			return
		}
		checkpoint *= 10
	}
	c.w.Status("OK")
}
