//go:build !unix

package main

import "errors"

func daemonized() bool { return false }

func detachStderr() error { return nil }

func daemonize([]string, []byte, string) error {
	return errors.New("daemonize yes is supported on Unix systems only")
}
