//go:build unix

package server

import (
	"syscall"
	"time"
)

// cpuTimes is the process's system and user CPU time (getrusage), for
// INFO cpu.
func cpuTimes() (sys, user time.Duration) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Stime.Nano()), time.Duration(ru.Utime.Nano())
}
