// Package aof reads and writes Redis 7.0's multi-part append-only file: the
// manifest that lists a base file and incremental files, the commands they
// hold (RESP arrays, as clients send them), and the base a rewrite produces.
// It knows nothing of the server: the server feeds it commands to log and
// gives it a way to apply the commands it loads.
package aof

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/floodgate/floodgate/internal/argline"
)

// FileType is a manifest entry's type, as Redis's aof_file_type.
type FileType byte

// The types Redis 7.0 writes in a manifest.
const (
	TypeBase    FileType = 'b'
	TypeHistory FileType = 'h'
	TypeIncr    FileType = 'i'
)

// FileInfo is one line of the manifest.
type FileInfo struct {
	Name string
	Seq  int64
	Type FileType
}

// Manifest is Redis 7.0's aofManifest: at most one base, the history files
// a rewrite left behind (deleted once it is written), and the incremental
// files to replay after the base, in order.
type Manifest struct {
	Base    *FileInfo
	History []FileInfo
	Incrs   []FileInfo
	BaseSeq int64 // the last base sequence number used
	IncrSeq int64 // the last incr sequence number used
}

// Suffixes and prefixes of the files' names, as Redis 7.0 names them.
const (
	ManifestSuffix = ".manifest"
	TempPrefix     = "temp-"
)

// ManifestName is the manifest's file name for appendfilename prefix.
func ManifestName(prefix string) string { return prefix + ManifestSuffix }

// NewBase makes a new base the current one, turning the previous base into
// history, and returns its name: <prefix>.<seq>.base.rdb with the RDB
// preamble, .base.aof without.
func (m *Manifest) NewBase(prefix string, rdb bool) string {
	if m.Base != nil {
		old := *m.Base
		old.Type = TypeHistory
		m.History = append([]FileInfo{old}, m.History...)
	}
	m.BaseSeq++
	format := ".aof"
	if rdb {
		format = ".rdb"
	}
	m.Base = &FileInfo{Name: prefix + "." + strconv.FormatInt(m.BaseSeq, 10) + ".base" + format, Seq: m.BaseSeq, Type: TypeBase}
	return m.Base.Name
}

// NewIncr appends a new incremental file and returns its name,
// <prefix>.<seq>.incr.aof.
func (m *Manifest) NewIncr(prefix string) string {
	m.IncrSeq++
	fi := FileInfo{Name: prefix + "." + strconv.FormatInt(m.IncrSeq, 10) + ".incr.aof", Seq: m.IncrSeq, Type: TypeIncr}
	m.Incrs = append(m.Incrs, fi)
	return fi.Name
}

// RewrittenIncrsToHistory turns every incremental file but the last (the
// one being written) into history, as markRewrittenIncrAofAsHistory after
// a rewrite whose base covers them.
func (m *Manifest) RewrittenIncrsToHistory() {
	if len(m.Incrs) <= 1 {
		return
	}
	done := m.Incrs[:len(m.Incrs)-1]
	for i := len(done) - 1; i >= 0; i-- { // Redis adds each to the head, newest first
		h := done[i]
		h.Type = TypeHistory
		m.History = append(m.History, h)
	}
	m.Incrs = append([]FileInfo(nil), m.Incrs[len(m.Incrs)-1])
}

// Clone returns a deep copy, to change and persist before adopting it.
func (m *Manifest) Clone() *Manifest {
	c := &Manifest{BaseSeq: m.BaseSeq, IncrSeq: m.IncrSeq}
	if m.Base != nil {
		b := *m.Base
		c.Base = &b
	}
	c.History = append([]FileInfo(nil), m.History...)
	c.Incrs = append([]FileInfo(nil), m.Incrs...)
	return c
}

// Marshal returns the manifest as Redis 7.0 writes it: the base, the
// history, then the incremental files, one "file <name> seq <n> type <t>"
// line each, a name that needs it quoted as sdscatrepr does.
func (m *Manifest) Marshal() []byte {
	var b bytes.Buffer
	line := func(fi FileInfo) {
		fmt.Fprintf(&b, "file %s seq %d type %c\n", argline.QuoteIfNeeded(fi.Name), fi.Seq, fi.Type)
	}
	if m.Base != nil {
		line(*m.Base)
	}
	for _, fi := range m.History {
		line(fi)
	}
	for _, fi := range m.Incrs {
		line(fi)
	}
	return b.Bytes()
}

// ManifestError is a manifest Redis would refuse to start with; Error is
// the reason Redis logs.
type ManifestError struct {
	Line    int    // 1-based; 0 when the error is not about one line
	Text    string // the offending line, trimmed
	Problem string
}

func (e *ManifestError) Error() string { return e.Problem }

// maxManifestLine is Redis's MANIFEST_MAX_LINE.
const maxManifestLine = 1024

// ParseManifest reads a manifest with Redis 7.0's rules
// (aofLoadManifestFromFile): comment lines skipped, six or more
// space-separated words in key/value pairs, a file name that is not a path,
// one base at most, incremental sequence numbers strictly increasing.
func ParseManifest(data []byte) (*Manifest, error) {
	m := &Manifest{}
	if len(data) == 0 {
		return nil, &ManifestError{Problem: "Found an empty AOF manifest"}
	}
	var maxSeq int64
	lineNum := 0
	for len(data) > 0 {
		raw := data
		nl := bytes.IndexByte(data, '\n')
		if nl >= 0 {
			raw, data = data[:nl+1], data[nl+1:]
		} else {
			data = nil
		}
		if len(raw) > maxManifestLine { // fgets takes the first 1024 bytes
			raw = raw[:maxManifestLine]
		}
		lineNum++
		if raw[0] == '#' {
			continue
		}
		if raw[len(raw)-1] != '\n' {
			return nil, &ManifestError{Problem: "The AOF manifest file contains too long line"}
		}
		line := strings.Trim(string(raw), " \t\r\n")
		fail := func(problem string) (*Manifest, error) {
			return nil, &ManifestError{Line: lineNum, Text: line, Problem: problem}
		}
		if line == "" {
			return fail("Invalid AOF manifest file format")
		}
		argv, err := argline.SplitString(line)
		if err != nil || len(argv) < 6 || len(argv)%2 != 0 {
			return fail("Invalid AOF manifest file format")
		}
		var fi FileInfo
		for i := 0; i < len(argv); i += 2 {
			switch strings.ToLower(argv[i]) {
			case "file":
				fi.Name = argv[i+1]
				if strings.ContainsRune(fi.Name, '/') {
					return fail("File can't be a path, just a filename")
				}
			case "seq":
				fi.Seq = atoll(argv[i+1])
			case "type":
				if argv[i+1] != "" {
					fi.Type = FileType(argv[i+1][0])
				}
			}
		}
		if fi.Name == "" || fi.Seq == 0 || fi.Type == 0 {
			return fail("Invalid AOF manifest file format")
		}
		switch fi.Type {
		case TypeBase:
			if m.Base != nil {
				return fail("Found duplicate base file information")
			}
			b := fi
			m.Base = &b
			m.BaseSeq = fi.Seq
		case TypeHistory:
			m.History = append(m.History, fi)
		case TypeIncr:
			if fi.Seq <= maxSeq {
				return fail("Found a non-monotonic sequence number")
			}
			m.Incrs = append(m.Incrs, fi)
			m.IncrSeq, maxSeq = fi.Seq, fi.Seq
		default:
			return fail("Unknown AOF file type")
		}
	}
	if lineNum == 0 {
		return nil, &ManifestError{Problem: "Found an empty AOF manifest"}
	}
	return m, nil
}

// atoll is C's atoll: leading blanks, a sign, digits, whatever follows ignored.
func atoll(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n int64
	for i := 0; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		n = n*10 + int64(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}
