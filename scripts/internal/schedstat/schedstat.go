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
	return time.Duration(field(pid, 0))
}

// Runs is how many times pid's threads were put on a CPU so far (the third
// field of schedstat): each is a wake-up of a thread, so the count per
// request reads how often a server sleeps and is woken, which on a VM costs
// more than most of what it does in between.
func Runs(pid int) int64 { return field(pid, 2) }

// field sums field i of /proc/PID/task/*/schedstat over pid's threads.
func field(pid, i int) int64 {
	if pid <= 0 {
		return 0
	}
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/schedstat")
	var sum int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a thread that ended since the glob
		}
		if fields := strings.Fields(string(b)); len(fields) > i {
			v, _ := strconv.ParseInt(fields[i], 10, 64)
			sum += v
		}
	}
	return sum
}
