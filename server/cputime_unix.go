//go:build unix

package server

import (
	"syscall"
	"time"
)

// cpuTimes is the process's system and user CPU time (INFO cpu), from
// getrusage as Redis reads it.
func cpuTimes() (sys, user time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Stime.Nano()), time.Duration(ru.Utime.Nano())
}
