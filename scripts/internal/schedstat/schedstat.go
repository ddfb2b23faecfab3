// Package schedstat reads a process's on-CPU time as scripts/measure.sh
// does, for the load generators under scripts/: the sum of the first
// field (ns on the CPU) of /proc/PID/task/*/schedstat over its threads.
package schedstat

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// CPU is pid's on-CPU time so far, summed over its threads; 0 for a pid
// of 0 or less, or where /proc has no such process.
func CPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/schedstat")
	var ns int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a thread that ended since the glob
		}
		if fields := strings.Fields(string(b)); len(fields) > 0 {
			v, _ := strconv.ParseInt(fields[0], 10, 64)
			ns += v
		}
	}
	return time.Duration(ns)
}
