//go:build !unix

package server

import "time"

// cpuTimes has no getrusage to read here; INFO cpu reports zeros.
func cpuTimes() (sys, user time.Duration) { return 0, 0 }
