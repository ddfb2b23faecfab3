//go:build unix

package redistest

import (
	"errors"
	"os"
	"syscall"
)

// lockPort takes an exclusive flock on path without waiting: ok false if
// another process holds it. The kernel drops the lock when the file is
// closed or the process ends, so a killed test binary leaves no stale
// reservation (the file itself stays, for the next one to lock).
func lockPort(path string) (unlock func(), ok bool, err error) {
	// Read-only is enough for flock, and lets another user's test lock a
	// file this user created.
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
	if errors.Is(err, os.ErrPermission) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return func() { f.Close() }, true, nil
}
