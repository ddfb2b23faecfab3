// Command crosscheck type-checks the module's packages as they are built
// for other operating systems (windows and darwin unless named), where
// there is no epoll and the goroutine transport serves: `make lint` runs
// it in place of `GOOS=windows go build ./...`.
//
// It runs the compiler's own type checker (go/types) over the files go list
// selects for each GOOS, with the dependencies' function bodies skipped.
// A cross-build compiles the standard library again for each GOOS, about
// 40 s on a 2-core machine with an empty build cache; this takes a few
// seconds either way. What it does not see is what only the compiler's
// back end reports, which does not differ between operating systems.
//
//	go run ./scripts/crosscheck [-goos windows,darwin] [packages]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// listed is what crosscheck reads of `go list -deps -json`.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	ImportMap  map[string]string
	Standard   bool
	Module     *struct {
		Main      bool
		GoVersion string
	}
	Error *struct{ Err string }
}

func main() {
	goos := flag.String("goos", "windows,darwin", "comma-separated operating systems to check")
	flag.Parse()
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	systems := strings.Split(*goos, ",")
	reports := make([][]string, len(systems))
	var wg sync.WaitGroup
	for i, system := range systems {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reports[i] = check(system, patterns)
		}()
	}
	wg.Wait()
	failed := false
	for i, errs := range reports {
		for _, e := range errs {
			fmt.Fprintf(os.Stderr, "GOOS=%s: %s\n", systems[i], e)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// check type-checks the main module's packages matched by patterns for
// GOOS=system and returns their errors.
func check(system string, patterns []string) []string {
	cmd := exec.Command("go", append([]string{"list", "-e", "-deps",
		"-json=ImportPath,Dir,GoFiles,ImportMap,Standard,Module,Error"}, patterns...)...)
	cmd.Env = append(os.Environ(), "GOOS="+system, "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return []string{fmt.Sprintf("go list: %v: %s", err, stderr.Bytes())}
	}
	sizes := types.SizesFor("gc", runtime.GOARCH)
	fset := token.NewFileSet()
	checked := map[string]*types.Package{"unsafe": types.Unsafe}
	var errs []string
	// go list -deps prints each package after its dependencies.
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return append(errs, "go list: "+err.Error())
		}
		if p.ImportPath == "unsafe" {
			continue
		}
		ours := p.Module != nil && p.Module.Main
		if p.Error != nil {
			errs = append(errs, p.Error.Err)
			continue
		}
		files, err := parse(fset, p, ours)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		conf := types.Config{
			Importer:         importer{checked, p.ImportMap},
			Sizes:            sizes,
			IgnoreFuncBodies: !ours,
			GoVersion:        goVersion(p),
			Error: func(err error) {
				if ours {
					errs = append(errs, err.Error())
				}
			},
		}
		// A dependency's errors (there should be none) leave a package
		// that its importers' errors will show.
		pkg, _ := conf.Check(p.ImportPath, fset, files, nil)
		checked[p.ImportPath] = pkg
	}
	return errs
}

// parse reads a package's files, a dependency's without their comments,
// which the checker does not need.
func parse(fset *token.FileSet, p listed, ours bool) ([]*ast.File, error) {
	mode := parser.SkipObjectResolution
	if ours {
		mode |= parser.ParseComments
	}
	files := make([]*ast.File, 0, len(p.GoFiles))
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, mode)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// goVersion is the language version a package is checked at: its module's,
// or the toolchain's for the standard library.
func goVersion(p listed) string {
	if p.Module != nil && p.Module.GoVersion != "" {
		return "go" + p.Module.GoVersion
	}
	if p.Standard {
		v := runtime.Version()
		if i := strings.IndexAny(v, " -"); i >= 0 {
			v = v[:i]
		}
		return v
	}
	return ""
}

// importer finds an import among the packages already checked, through the
// importing package's vendor map.
type importer struct {
	checked map[string]*types.Package
	mapped  map[string]string
}

func (im importer) Import(path string) (*types.Package, error) {
	if m, ok := im.mapped[path]; ok {
		path = m
	}
	if pkg := im.checked[path]; pkg != nil {
		return pkg, nil
	}
	return nil, fmt.Errorf("%s was not checked before its importer", path)
}
