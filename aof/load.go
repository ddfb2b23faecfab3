package aof

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// LoadStatus says how a file ended, as Redis's AOF_OK/AOF_TRUNCATED/AOF_FAILED.
type LoadStatus int

// The ways loading one file ends.
const (
	Loaded    LoadStatus = iota // every command read and applied
	Truncated                   // the file ends inside a command (or an open MULTI)
	BadFormat                   // something that is not a command
	Failed                      // apply refused a command, or the RDB preamble did not load
)

// LoadResult is the outcome of reading one file.
type LoadResult struct {
	Status LoadStatus
	// ValidUpTo is the offset just past the last complete command (before
	// an incomplete MULTI): what Redis truncates the file to.
	ValidUpTo int64
	// RevertedMulti: the file ended inside MULTI/EXEC, whose commands were
	// not applied (Redis logs "Revert incomplete MULTI/EXEC transaction").
	RevertedMulti bool
	// Err is apply's or the RDB loader's error when Status is Failed.
	Err error
	// RDB: the file began with an RDB (a base with the preamble).
	RDB      bool
	Commands int
}

// Loader reads the commands of an AOF file.
type Loader struct {
	// Apply runs one command. Commands between MULTI and EXEC are held
	// back and applied at the EXEC (Redis queues them in its fake client),
	// so a transaction cut off by a crash is never half applied.
	Apply func(args [][]byte) error
	// LoadRDB, when set, loads a file that starts with "REDIS" (an RDB
	// base or an old RDB-preamble AOF) from r; commands may follow it.
	LoadRDB func(r *bufio.Reader) error
	// Progress, when set, is called before each command is read, with the
	// offset read so far; an error stops the load (Failed) with it. Redis
	// serves its clients there every 1024 commands.
	Progress func(offset int64) error
}

// ErrNoRDB is returned for an RDB base when the Loader has no LoadRDB.
var ErrNoRDB = errors.New("RDB base files are not supported")

// lineMax is Redis's AOF_ANNOTATION_LINE_MAX_LEN: fgets reads at most this
// much of a header line.
const lineMax = 1024

// counter counts the bytes its reader has given.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Load reads r to the end, as Redis's loadSingleAppendOnlyFile: '#'
// annotation lines skipped, each command a RESP array of bulk strings.
func (l *Loader) Load(r io.Reader) LoadResult {
	cr := &counter{r: r}
	// 256 KB: the size rdb.Load reads through, so it takes this reader as
	// it is and leaves an old RDB-preamble file's command tail to us.
	br := bufio.NewReaderSize(cr, 256<<10)
	offset := func() int64 { return cr.n - int64(br.Buffered()) }
	var res LoadResult
	if sig, err := br.Peek(5); err == nil && string(sig) == "REDIS" {
		res.RDB = true
		if l.LoadRDB == nil {
			res.Status, res.Err = Failed, ErrNoRDB
			return res
		}
		if err := l.LoadRDB(br); err != nil {
			res.Status, res.Err = Failed, err
			return res
		}
		res.ValidUpTo = offset()
	}
	var multi [][][]byte
	inMulti := false
	var beforeMulti int64
	for {
		if l.Progress != nil {
			if err := l.Progress(offset()); err != nil {
				res.Status, res.Err = Failed, err
				return res
			}
		}
		line, err := readLine(br)
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				break
			}
			res.Status, res.Err = Failed, err
			return res
		}
		if line[0] == '#' {
			continue
		}
		if line[0] != '*' {
			res.Status = BadFormat
			return res
		}
		if len(line) == 1 {
			res.Status = Truncated
			return res.truncated(inMulti, beforeMulti)
		}
		argc := atoll(string(trimEOL(line[1:])))
		if argc < 1 || argc > 1<<31 {
			res.Status = BadFormat
			return res
		}
		args := make([][]byte, 0, min(argc, 1024))
		for j := int64(0); j < argc; j++ {
			hdr, err := readLine(br)
			if len(hdr) == 0 {
				if err == io.EOF {
					return res.truncated(inMulti, beforeMulti)
				}
				res.Status, res.Err = Failed, err
				return res
			}
			if hdr[0] != '$' {
				res.Status = BadFormat
				return res
			}
			n := atoll(string(trimEOL(hdr[1:])))
			if n < 0 {
				n = 0
			}
			var arg bytes.Buffer
			if c, _ := io.CopyN(&arg, br, n); c != n {
				return res.truncated(inMulti, beforeMulti)
			}
			var crlf [2]byte
			if _, err := io.ReadFull(br, crlf[:]); err != nil {
				return res.truncated(inMulti, beforeMulti)
			}
			args = append(args, arg.Bytes())
		}
		switch {
		case equalFold(args[0], "multi") && !inMulti:
			inMulti, beforeMulti = true, res.ValidUpTo
		case equalFold(args[0], "exec") && inMulti:
			for _, cmd := range multi {
				if err := l.Apply(cmd); err != nil {
					res.Status, res.Err = Failed, err
					return res
				}
				res.Commands++
			}
			multi, inMulti = nil, false
		case equalFold(args[0], "exec"): // EXEC without MULTI: an error reply, nothing applied
		case inMulti:
			multi = append(multi, args)
		default:
			if err := l.Apply(args); err != nil {
				res.Status, res.Err = Failed, err
				return res
			}
			res.Commands++
		}
		res.ValidUpTo = offset()
	}
	if inMulti {
		res.RevertedMulti = true
		return res.truncated(true, beforeMulti)
	}
	return res
}

func (res LoadResult) truncated(inMulti bool, beforeMulti int64) LoadResult {
	res.Status = Truncated
	if inMulti {
		res.ValidUpTo = beforeMulti
	}
	return res
}

// readLine reads up to and including '\n', at most lineMax-1 bytes, as
// fgets into Redis's buffer.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for len(line) < lineMax-1 {
		c, err := br.ReadByte()
		if err != nil {
			return line, err
		}
		line = append(line, c)
		if c == '\n' {
			break
		}
	}
	return line, nil
}

func trimEOL(b []byte) []byte { return bytes.TrimRight(b, "\r\n") }

func equalFold(b []byte, word string) bool { return bytes.EqualFold(b, []byte(word)) }
