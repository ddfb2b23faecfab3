//go:build !unix

package main

import "errors"

func daemonized() bool { return false }

func daemonize([]string, []byte) error {
	return errors.New("daemonize yes is supported on Unix systems only")
}
