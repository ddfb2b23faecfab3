package server

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags is the VmFlags line of /proc/self/smaps for the mapping that
// holds addr.
func vmFlags(t *testing.T, addr uintptr) string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line)[0], "-"); ok && !strings.HasSuffix(line, ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(addr) >= a && uint64(addr) < b
				continue
			}
		}
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return rest
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return ""
}

// A buffer grown for a big bulk asks for huge pages, so that reading
// 200 MB into it takes 100 page faults, not 51,200 (half of a 200 MB
// SET's CPU, scripts/bench-bigargs.sh); a small one does not.
func TestQueryBufferBigBulkHugePages(t *testing.T) {
	for _, tc := range []struct {
		size int
		want bool
	}{{32 << 20, true}, {1 << 20, false}} {
		cn := feedConn(t)
		feed(t, cn, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$"+strconv.Itoa(tc.size)+"\r\n", 1<<20)
		cn.ReadBuf(nil)
		start := uintptr(unsafe.Pointer(unsafe.SliceData(cn.in[:cap(cn.in)])))
		mid := (start + hugePage) &^ (hugePage - 1) // a whole huge page inside, when there is one
		if mid+hugePage > start+uintptr(cap(cn.in)) {
			mid = start
		}
		flags := vmFlags(t, mid)
		if got := strings.Contains(" "+flags+" ", " hg "); got != tc.want {
			t.Errorf("a %d-byte bulk's buffer: VmFlags %q, huge pages advised %v, want %v", tc.size, flags, got, tc.want)
		}
	}
}
