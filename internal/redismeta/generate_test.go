package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const serverDir = "../../server"

// header returns the value of a generated file's "// key: value" header line.
func header(t *testing.T, src []byte, key string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^// ` + key + `: ([0-9a-f]{64})$`).FindSubmatch(src)
	if m == nil {
		t.Fatalf("no %s line in the header", key)
	}
	return string(m[1])
}

func readGenerated(t *testing.T, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(serverDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestGeneratedFilesUnedited checks that the generated files are as the
// generator wrote them: the digest of their text is the one they record.
func TestGeneratedFilesUnedited(t *testing.T) {
	for _, name := range []string{commandsFile, configFile} {
		src := readGenerated(t, name)
		if got, want := bodyDigest(src), header(t, src, "body-sha256"); got != want {
			t.Errorf("%s was edited after it was generated (body sha256 %s, recorded %s); run go generate ./server/", name, got, want)
		}
	}
}

// TestGeneratedFromCommittedInputs checks that commands_gen.go was made
// from the committed floodgate inputs (its JSON and the handler maps'
// keys), and regenerates the part made from them alone: the floodgate-only
// commands' rows must appear, byte for byte, in the committed file.
func TestGeneratedFromCommittedInputs(t *testing.T) {
	src := readGenerated(t, commandsFile)
	own, err := readFloodgateInputs(serverDir)
	if err != nil {
		t.Fatal(err)
	}
	claimed, err := claimedCommands(serverDir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := floodgateDigest(own, claimed), header(t, src, "floodgate-sha256"); got != want {
		t.Fatalf("server/commands/*.json or the handler maps changed since %s was generated; run go generate ./server/", commandsFile)
	}
	descs := map[string]*cmdDesc{}
	if err := parseCommands(own, descs); err != nil {
		t.Fatal(err)
	}
	var ownClaimed []string
	for _, name := range claimed {
		if descs[name] != nil {
			ownClaimed = append(ownClaimed, name)
		}
	}
	if len(ownClaimed) != len(descs) {
		t.Errorf("floodgate's JSON defines %d commands, %d of them have handlers", len(descs), len(ownClaimed))
	}
	part, err := generateCommands(&inputs{floodgateJSON: own, claimed: ownClaimed})
	if err != nil {
		t.Fatal(err)
	}
	// Each command's row on its own: in the full table the floodgate-only
	// commands sit among Redis's in name order, not next to each other.
	rows := tableRows(t, part)
	for _, row := range bytes.SplitAfter(rows, []byte("\n\t{Name: ")) {
		row = bytes.TrimSuffix(row, []byte("\t{Name: "))
		if len(bytes.TrimSpace(row)) > 0 && !bytes.Contains(src, row) {
			t.Errorf("%s lacks a row generated from server/commands/*.json:\n%s", commandsFile, row)
		}
	}
}

// tableRows returns the rows of a generated generatedCommands literal.
func tableRows(t *testing.T, src []byte) []byte {
	t.Helper()
	const open = "var generatedCommands = []*Command{\n"
	i := bytes.Index(src, []byte(open))
	if i < 0 {
		t.Fatalf("unexpected generated text:\n%s", src)
	}
	// The literal ends at the first line that is a lone brace (the ACL
	// catalogue, aclOnlyCommands, follows it).
	end := bytes.Index(src[i:], []byte("\n}\n"))
	if end < 0 {
		t.Fatalf("unexpected generated text:\n%s", src)
	}
	return src[i+len(open) : i+end+1]
}

// redisSource is Redis's source tree, from $REDIS_SRC; the full
// regeneration is skipped without it.
func redisSource(t *testing.T) string {
	dir := os.Getenv("REDIS_SRC")
	if dir == "" {
		t.Skip("REDIS_SRC is not set: the full regeneration needs Redis 7.0.15's source tree")
	}
	return dir
}

// TestRegenerate regenerates both files from Redis's sources and compares
// them with the committed ones.
func TestRegenerate(t *testing.T) {
	in, err := readInputs(redisSource(t), serverDir)
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := generateCommands(in)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := generateConfig(in.configC, in.serverH)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{commandsFile: cmds, configFile: conf} {
		if got := readGenerated(t, name); !bytes.Equal(got, want) {
			t.Errorf("server/%s is not what the generator writes from %s; run go generate ./server/", name, os.Getenv("REDIS_SRC"))
		}
	}
}

func TestLegacyRange(t *testing.T) {
	spec := func(j string) keySpecDoc {
		t.Helper()
		var d map[string]*cmdDesc
		if err := jsonUnmarshal(`{"X": {"key_specs": [`+j+`]}}`, &d); err != nil {
			t.Fatal(err)
		}
		return d["X"].KeySpecs[0]
	}
	index := func(pos int, last, step int, flags string) keySpecDoc {
		return spec(`{"flags": [` + flags + `], "begin_search": {"index": {"pos": ` + itoa(pos) + `}}, "find_keys": {"range": {"lastkey": ` + itoa(last) + `, "step": ` + itoa(step) + `, "limit": 0}}}`)
	}
	keynum := spec(`{"begin_search": {"index": {"pos": 2}}, "find_keys": {"keynum": {"keynumidx": 0, "firstkey": 1, "step": 1}}}`)
	keyword := spec(`{"begin_search": {"keyword": {"keyword": "STORE", "startfrom": 6}}, "find_keys": {"range": {"lastkey": 0, "step": 1, "limit": 0}}}`)
	for _, tc := range []struct {
		name              string
		specs             []keySpecDoc
		first, last, step int
		movable           bool
	}{
		{"none", nil, 0, 0, 0, false},
		{"get", []keySpecDoc{index(1, 0, 1, "")}, 1, 1, 1, false},
		{"mset", []keySpecDoc{index(1, -1, 2, "")}, 1, -1, 2, false},
		{"incomplete", []keySpecDoc{index(1, 0, 1, `"INCOMPLETE"`)}, 1, 1, 1, true},
		{"smove", []keySpecDoc{index(1, 0, 1, ""), index(2, 0, 1, "")}, 1, 2, 1, false},
		{"bitop", []keySpecDoc{index(2, 0, 1, ""), index(3, -1, 1, "")}, 2, -1, 1, false},
		{"eval", []keySpecDoc{keynum}, 0, 0, 0, true},
		{"zunionstore", []keySpecDoc{index(1, 0, 1, ""), keynum}, 1, 1, 1, true},
		{"georadius", []keySpecDoc{index(1, 0, 1, ""), keyword, keyword}, 1, 1, 1, true},
		{"not consecutive", []keySpecDoc{index(1, 0, 1, ""), index(3, 0, 1, "")}, 1, 1, 1, true},
	} {
		first, last, step, movable, err := legacyRange(tc.specs)
		if err != nil {
			t.Fatal(err)
		}
		if first != tc.first || last != tc.last || step != tc.step || movable != tc.movable {
			t.Errorf("%s: got %d %d %d movable=%v, want %d %d %d movable=%v", tc.name, first, last, step, movable, tc.first, tc.last, tc.step, tc.movable)
		}
	}
}

func TestCLiteral(t *testing.T) {
	for in, want := range map[string]string{`GET`: "GET", `""`: "", `a"  "b`: "ab", `x\ty`: "x\ty"} {
		if got, err := cLiteral(in); err != nil || got != want {
			t.Errorf("cLiteral(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := cLiteral(`"`); err == nil {
		t.Error(`cLiteral("\"") succeeded`)
	}
}

func TestCInt(t *testing.T) {
	defines := map[string]string{"CONFIG_DEFAULT_HZ": "10"}
	for in, want := range map[string]int64{
		"16": 16, "-2": -2, "512ll*1024*1024": 512 << 20, "100<<20": 100 << 20, "60*60": 3600,
		"CONFIG_DEFAULT_HZ": 10, "0777": 0o777,
	} {
		if got, err := cInt(in, defines); err != nil || got != want {
			t.Errorf("cInt(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestSplitCArgs(t *testing.T) {
	got := splitCArgs(`"a,b", NULL, X | Y, f(1, 2), "q\"," `)
	want := []string{`"a,b"`, "NULL", "X | Y", "f(1, 2)", `"q\","`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestGeneratorRefuses checks the errors a bad input gets.
func TestGeneratorRefuses(t *testing.T) {
	own := map[string][]byte{"x.json": []byte(`{"X": {"summary": "s", "group": "module", "since": "1.0.0", "arity": 2, "arguments": [{"name": "k", "type": "key"}]}}`)}
	for _, tc := range []struct {
		name    string
		in      *inputs
		wantErr string
	}{
		{"handler without metadata", &inputs{claimed: []string{"nosuch"}}, "neither Redis's nor floodgate's JSON"},
		{"key without spec", &inputs{floodgateJSON: own, claimed: []string{"x"}}, "has no key_spec_index"},
		{"bad json", &inputs{floodgateJSON: map[string][]byte{"y.json": []byte("{")}}, "y.json"},
	} {
		_, err := generateCommands(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.wantErr)
		}
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func itoa(n int) string { return strconv.Itoa(n) }
