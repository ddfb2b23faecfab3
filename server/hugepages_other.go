//go:build !linux

package server

// adviseHuge is a no-op where there are no transparent huge pages.
func adviseHuge([]byte) {}
