package redistest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// A go build of a binary takes seconds of a loaded machine (its link
// alone), so a test binary builds each one once, however many tests run
// it.
var built struct {
	mu   sync.Mutex
	dir  string
	bins map[string]*binary // by package directory
}

type binary struct {
	once      sync.Once
	dir, path string
	err       error
}

// Build builds the main package in pkgDir (as go build takes it: ".",
// "../cmd/floodgate") the first time it is asked for, and returns the
// binary's path. RemoveBuilt, from TestMain, deletes what Build made.
func Build(pkgDir string) (string, error) {
	built.mu.Lock()
	if built.bins == nil {
		built.bins = map[string]*binary{}
	}
	if built.dir == "" {
		dir, err := os.MkdirTemp("", "floodgate-bin-")
		if err != nil {
			built.mu.Unlock()
			return "", err
		}
		built.dir = dir
	}
	b := built.bins[pkgDir]
	if b == nil {
		// A directory each: two packages may build binaries of one name.
		b = &binary{dir: filepath.Join(built.dir, strconv.Itoa(len(built.bins)))}
		built.bins[pkgDir] = b
	}
	built.mu.Unlock()
	b.once.Do(func() {
		if b.err = os.Mkdir(b.dir, 0o755); b.err != nil {
			return
		}
		path := filepath.Join(b.dir, filepath.Base(absPath(pkgDir)))
		if out, err := exec.Command("go", "build", "-o", path, pkgDir).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkgDir, err, out)
			return
		}
		b.path = path
	})
	return b.path, b.err
}

// BuildT is Build for a test, which fails if the build does.
func BuildT(t testing.TB, pkgDir string) string {
	t.Helper()
	path, err := Build(pkgDir)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// RemoveBuilt deletes the binaries Build made.
func RemoveBuilt() {
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

func absPath(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}
