//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// daemonChildEnv marks the background copy a daemonizing floodgate starts.
const daemonChildEnv = "FLOODGATE_DAEMONIZED"

// daemonized reports whether this process is that background copy, and
// takes the mark out of its environment so nothing it starts inherits it.
func daemonized() bool {
	if os.Getenv(daemonChildEnv) == "" {
		return false
	}
	os.Unsetenv(daemonChildEnv)
	return true
}

// daemonize is redis-server's daemonize(): Go cannot fork a running
// runtime, so the process starts itself again with the same arguments, in
// the directory it was started in, in a session of its own, and exits, once
// the configuration has been read (errors in it are printed to the
// terminal, as Redis reads its file before forking). The copy's standard
// input and output are /dev/null; its standard error stays the terminal's
// until its log is open (detachStderr), so an error before that is seen.
// A configuration read from standard input is handed to the copy through a
// pipe.
func daemonize(args []string, stdinConfig []byte, dir string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), daemonChildEnv+"=1")
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var w *os.File
	if stdinConfig != nil {
		var r *os.File
		if r, w, err = os.Pipe(); err != nil {
			return err
		}
		defer r.Close()
		cmd.Stdin = r
	}
	if err := cmd.Start(); err != nil {
		if w != nil {
			w.Close()
		}
		return err
	}
	if w != nil {
		_, err = w.Write(stdinConfig)
		w.Close()
	}
	cmd.Process.Release()
	return err
}

// detachStderr points the daemon's standard error at /dev/null, as Redis's
// daemonize does with every stream, so it no longer holds the terminal (or
// the pipe of whoever started it) open.
func detachStderr() error {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	return unix.Dup2(int(null.Fd()), int(os.Stderr.Fd()))
}
