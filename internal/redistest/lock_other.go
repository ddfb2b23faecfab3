//go:build !unix

package redistest

import "sync"

var locked sync.Map

// lockPort has no lock shared between processes here, only one within
// this process; the bind check does the rest.
func lockPort(path string) (unlock func(), ok bool, err error) {
	if _, taken := locked.LoadOrStore(path, true); taken {
		return nil, false, nil
	}
	return func() { locked.Delete(path) }, true, nil
}
