//go:build linux

package exepages

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

func trim() error {
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return err
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return err
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return err
	}
	for _, r := range fileOnlyMappings(smaps, uint64(st.Dev), st.Ino) {
		// Random access first: a fault after the drop then reads the page
		// it needs into a folio of its own, instead of reading ahead into
		// a large one that would be mapped whole again.
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, r.lo, r.hi-r.lo, unix.MADV_RANDOM); e != 0 {
			return fmt.Errorf("madvise(MADV_RANDOM): %w", e)
		}
		// The mapping holds nothing but the file's bytes (see
		// fileOnlyMappings), so dropping it loses nothing.
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, r.lo, r.hi-r.lo, unix.MADV_DONTNEED); e != 0 {
			return fmt.Errorf("madvise(MADV_DONTNEED): %w", e)
		}
	}
	// A binary just written (go build, cp) is still dirty in the page
	// cache, and the kernel drops only clean pages: write it out first.
	// A read-only file system refuses, with nothing to write.
	unix.Fdatasync(int(f.Fd()))
	// The kernel keeps a folio some process maps (the pages this process
	// touched since, another process's) and drops the rest.
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}

// mapping is an address range [lo, hi).
type mapping struct{ lo, hi uintptr }

// fileOnlyMappings returns the ranges of /proc/self/smaps's mappings of the
// file dev:ino that hold only the file's bytes: read-only, and without an
// anonymous page. A writable mapping holds the process's data, and a
// read-only one can hold pages written before it was made read-only (a
// position-independent binary's relocated RELRO segment): dropping those
// would lose what was written. dev is stat(2)'s st_dev, which smaps shows
// as major:minor in hex.
func fileOnlyMappings(smaps []byte, dev, ino uint64) []mapping {
	var out []mapping
	want := fmt.Sprintf("%02x:%02x", unix.Major(dev), unix.Minor(dev))
	inode := strconv.FormatUint(ino, 10)
	var cur mapping
	candidate := false
	flush := func() {
		if candidate {
			out = append(out, cur)
		}
		candidate = false
	}
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		fs := bytes.Fields(sc.Bytes())
		if len(fs) == 0 {
			continue
		}
		if bytes.HasSuffix(fs[0], []byte(":")) {
			// A field of the current mapping: "Anonymous: 4 kB".
			if candidate && string(fs[0]) == "Anonymous:" && (len(fs) < 2 || string(fs[1]) != "0") {
				candidate = false
			}
			continue
		}
		// A mapping's first line: address perms offset dev inode path.
		flush()
		if len(fs) < 5 || string(fs[3]) != want || string(fs[4]) != inode {
			continue
		}
		if len(fs[1]) < 2 || fs[1][0] != 'r' || fs[1][1] != '-' {
			continue
		}
		lo, hi, ok := bytes.Cut(fs[0], []byte("-"))
		if !ok {
			continue
		}
		l, err1 := strconv.ParseUint(string(lo), 16, 64)
		h, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 != nil || err2 != nil || h <= l {
			continue
		}
		cur, candidate = mapping{uintptr(l), uintptr(h)}, true
	}
	flush()
	return out
}
