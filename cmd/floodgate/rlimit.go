package main

import (
	"log/slog"
	"strconv"
	"syscall"
)

// minReservedFDs is what Redis keeps for itself beyond maxclients
// (CONFIG_MIN_RESERVED_FDS: logs, persistence, cluster).
const minReservedFDs = 32

// raiseOpenFilesLimit raises the soft RLIMIT_NOFILE to the hard limit, as
// Redis's adjustOpenFilesLimit tries to for maxclients+32 descriptors
// (Go already raises it at start since 1.19; this reports what it got).
func raiseOpenFilesLimit(logger *slog.Logger) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		logger.Warn("Unable to obtain the current NOFILE limit (" + err.Error() + "), assuming 1024 and setting the max clients configuration accordingly.")
		return
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	logger.Debug("open files limit " + strconv.FormatUint(lim.Cur, 10) + ", reserved " + strconv.Itoa(minReservedFDs))
}
