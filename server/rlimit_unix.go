//go:build unix

package server

import "syscall"

// openFilesLimit returns RLIMIT_NOFILE's soft limit after trying to raise
// it to want (up to the hard limit), and the error of that attempt.
func openFilesLimit(want uint64) (limit, was uint64, err error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, err
	}
	was = lim.Cur
	if lim.Cur >= want {
		return lim.Cur, was, nil
	}
	lim.Cur = min(want, lim.Max)
	if err = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && lim.Cur < want {
		err = syscall.EPERM
	}
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	return lim.Cur, was, err
}
