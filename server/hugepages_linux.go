package server

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

// adviseHuge asks the kernel to back the whole huge pages inside b with
// huge pages (MADV_HUGEPAGE, under THP's "madvise" mode): a buffer that a
// big bulk is read into then takes one page fault per 2 MB instead of 512.
func adviseHuge(b []byte) {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	end := start + uintptr(cap(b))
	lo, hi := (start+hugePage-1)&^(hugePage-1), end&^(hugePage-1)
	if hi > lo {
		unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_HUGEPAGE)
	}
}
