package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// inputs is everything the generated files are made from.
type inputs struct {
	redisJSON     map[string][]byte // src/commands/<file>.json by file name
	floodgateJSON map[string][]byte // server/commands/<file>.json by file name
	claimed       []string          // handler map keys: "get", "config|get", sorted
	configC       []byte            // src/config.c
	serverH       []byte            // src/server.h, for config.c's default macros
}

func readInputs(redisDir, serverDir string) (*inputs, error) {
	in := &inputs{}
	var err error
	if in.redisJSON, err = readJSONDir(filepath.Join(redisDir, "src", "commands")); err != nil {
		return nil, err
	}
	if len(in.redisJSON) == 0 {
		return nil, fmt.Errorf("%s has no src/commands/*.json", redisDir)
	}
	if in.floodgateJSON, err = readFloodgateInputs(serverDir); err != nil {
		return nil, err
	}
	if in.claimed, err = claimedCommands(serverDir); err != nil {
		return nil, err
	}
	if in.configC, err = os.ReadFile(filepath.Join(redisDir, "src", "config.c")); err != nil {
		return nil, err
	}
	if in.serverH, err = os.ReadFile(filepath.Join(redisDir, "src", "server.h")); err != nil {
		return nil, err
	}
	return in, nil
}

// readFloodgateInputs reads floodgate's own command JSON.
func readFloodgateInputs(serverDir string) (map[string][]byte, error) {
	return readJSONDir(filepath.Join(serverDir, "commands"))
}

func readJSONDir(dir string) (map[string][]byte, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	files := make(map[string][]byte, len(names))
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		files[filepath.Base(name)] = b
	}
	return files, nil
}

// claimedCommands returns the keys of the server package's handler maps:
// every package-level composite literal of type map[string]Handler in its
// non-test Go files. They are the commands floodgate implements.
func claimedCommands(serverDir string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(serverDir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	seen := map[string]string{}
	var claimed []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") || filepath.Base(name) == commandsFile {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.VAR {
				continue
			}
			for _, spec := range gen.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					lit, ok := v.(*ast.CompositeLit)
					if !ok || !isHandlerMap(lit.Type) {
						continue
					}
					for _, elt := range lit.Elts {
						kv, ok := elt.(*ast.KeyValueExpr)
						if !ok {
							return nil, fmt.Errorf("%s: handler map entry without a key", fset.Position(elt.Pos()))
						}
						key, ok := kv.Key.(*ast.BasicLit)
						if !ok || key.Kind != token.STRING {
							return nil, fmt.Errorf("%s: handler map key is not a string literal", fset.Position(kv.Pos()))
						}
						cmd, err := strconv.Unquote(key.Value)
						if err != nil {
							return nil, err
						}
						if prev, dup := seen[cmd]; dup {
							return nil, fmt.Errorf("%s: %q has a handler already (%s)", fset.Position(kv.Pos()), cmd, prev)
						}
						seen[cmd] = fset.Position(kv.Pos()).String()
						claimed = append(claimed, cmd)
					}
				}
			}
		}
	}
	slices.Sort(claimed)
	return claimed, nil
}

func isHandlerMap(e ast.Expr) bool {
	m, ok := e.(*ast.MapType)
	if !ok {
		return false
	}
	k, kok := m.Key.(*ast.Ident)
	v, vok := m.Value.(*ast.Ident)
	return kok && vok && k.Name == "string" && v.Name == "Handler"
}

// digest is the sha256 of a set of named files, in name order.
func digest(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s %d\n", n, len(files[n]))
		h.Write(files[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// floodgateDigest covers floodgate's part of the command metadata: its
// JSON files and the names its handler maps claim.
func floodgateDigest(json map[string][]byte, claimed []string) string {
	files := map[string][]byte{"(handlers)": []byte(strings.Join(claimed, "\n"))}
	for n, b := range json {
		files["commands/"+n] = b
	}
	return digest(files)
}

// bodyDigest is the sha256 of a generated file's text after its header
// (the first line that does not start with "//").
func bodyDigest(src []byte) string {
	body := string(src)
	for strings.HasPrefix(body, "//") {
		_, body, _ = strings.Cut(body, "\n")
	}
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}
