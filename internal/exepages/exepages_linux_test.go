//go:build linux

package exepages

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
	"testing"
)

func TestFileOnlyMappings(t *testing.T) {
	// dev 254:0 is "fe:00" in smaps.
	dev := uint64(254 << 8)
	smaps := `00400000-00402000 r--p 00000000 fe:00 77 /bin/x
Rss:                   8 kB
Anonymous:             0 kB
VmFlags: rd mr mw me
00402000-00a04000 r-xp 00002000 fe:00 77 /bin/x
Rss:                6152 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me
00a04000-01045000 r--p 00604000 fe:00 77 /bin/x
Anonymous:            12 kB
01045000-01046000 rw-p 00c45000 fe:00 77 /bin/x
Anonymous:             0 kB
01046000-01050000 r--p 00000000 fe:00 78 /bin/other
Anonymous:             0 kB
01050000-01060000 r--p 00000000 fe:01 77 /other/dev
Anonymous:             0 kB
7f0000000000-7f0000001000 r--p 00000000 00:00 0
Anonymous:             4 kB
7f0000002000-7f0000003000 r-xp 00000000 fe:00 77 /bin/x
`
	got := fileOnlyMappings([]byte(smaps), dev, 77)
	want := []mapping{{0x400000, 0x402000}, {0x402000, 0xa04000}, {0x7f0000002000, 0x7f0000003000}}
	if len(got) != len(want) {
		t.Fatalf("got %x, want %x", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mapping %d: got %x, want %x", i, got[i], want[i])
		}
	}
}

// TestTrim trims this test binary and checks that it runs on, and that
// its read-only mappings are no longer all resident.
func TestTrim(t *testing.T) {
	if err := Trim(); err != nil {
		t.Fatal(err)
	}
	size, rss := readOnlyExe(t)
	if size == 0 {
		t.Fatal("no read-only mapping of the executable found")
	}
	if rss >= size {
		t.Errorf("read-only mappings of the executable: %d kB of %d kB resident after Trim", rss, size)
	}
	// Code that has not run since, read back page by page.
	var b bytes.Buffer
	for i := range 1000 {
		b.WriteString(strconv.Itoa(i))
	}
	if b.Len() != 2890 {
		t.Errorf("wrote %d bytes, want 2890", b.Len())
	}
}

// readOnlyExe sums the sizes and resident sets, in kB, of this process's
// read-only mappings of its executable.
func readOnlyExe(t *testing.T) (size, rss int) {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/exe", &st); err != nil {
		t.Fatal(err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	mine := map[mapping]bool{}
	for _, m := range fileOnlyMappings(smaps, uint64(st.Dev), st.Ino) {
		mine[m] = true
		size += int(m.hi-m.lo) / 1024
	}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		fs := bytes.Fields(sc.Bytes())
		if len(fs) >= 2 && !bytes.HasSuffix(fs[0], []byte(":")) {
			lo, hi, _ := bytes.Cut(fs[0], []byte("-"))
			l, _ := strconv.ParseUint(string(lo), 16, 64)
			h, _ := strconv.ParseUint(string(hi), 16, 64)
			in = mine[mapping{uintptr(l), uintptr(h)}]
			continue
		}
		if in && len(fs) >= 2 && string(fs[0]) == "Rss:" {
			n, _ := strconv.Atoi(string(fs[1]))
			rss += n
		}
	}
	return size, rss
}
