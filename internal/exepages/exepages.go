// Package exepages gives back the page-cache pages of the running
// executable that the process does not use.
//
// A Go server is one static binary (floodgate's: 6 MB of text and 6 MB of
// read-only data with the pcln table), and recent Linux kernels keep a
// file's page cache in large folios and map a whole folio on a fault, so
// the first instructions run leave nearly all of the binary resident: 14 MB
// of file-backed RSS, where Redis's binary and shared libraries take 9.
// Trim drops those mappings and the page cache behind them, and marks the
// mappings random-access, so that what is used afterwards comes back one
// page at a time: 6-7 MB once every command family has run.
package exepages

// Trim drops the executable's read-only mappings and the page cache behind
// them that no other process maps; what the process uses next is read back
// from the file page by page. It is best effort: an error says what could
// not be done, and the process runs on as before.
func Trim() error { return trim() }
