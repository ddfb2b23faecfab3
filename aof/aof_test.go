package aof

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestManifestRoundTrip(t *testing.T) {
	m := &Manifest{}
	m.NewBase("appendonly.aof", true)
	m.NewIncr("appendonly.aof")
	m.NewIncr("appendonly.aof")
	m.NewBase("appendonly.aof", false)
	m.RewrittenIncrsToHistory()
	want := "file appendonly.aof.2.base.aof seq 2 type b\n" +
		"file appendonly.aof.1.base.rdb seq 1 type h\n" +
		"file appendonly.aof.1.incr.aof seq 1 type h\n" +
		"file appendonly.aof.2.incr.aof seq 2 type i\n"
	if got := string(m.Marshal()); got != want {
		t.Fatalf("Marshal:\n%s\nwant:\n%s", got, want)
	}
	back, err := ParseManifest(m.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if got := string(back.Marshal()); got != want || back.BaseSeq != 2 || back.IncrSeq != 2 {
		t.Fatalf("round trip: %q (seqs %d %d)", got, back.BaseSeq, back.IncrSeq)
	}
}

func TestManifestQuotedName(t *testing.T) {
	m := &Manifest{Base: &FileInfo{Name: "a b\n.aof", Seq: 1, Type: TypeBase}}
	data := m.Marshal()
	if want := "file \"a b\\n.aof\" seq 1 type b\n"; string(data) != want {
		t.Fatalf("Marshal = %q, want %q", data, want)
	}
	back, err := ParseManifest(data)
	if err != nil || back.Base.Name != "a b\n.aof" {
		t.Fatalf("ParseManifest = %+v, %v", back, err)
	}
}

// TestManifestErrors: the reasons Redis 7.0's aofLoadManifestFromFile gives.
func TestManifestErrors(t *testing.T) {
	for _, tc := range []struct{ in, problem string }{
		{"", "Found an empty AOF manifest"},
		{"file a seq 1 type b", "The AOF manifest file contains too long line"},
		{"\n", "Invalid AOF manifest file format"},
		{"file a seq 1\n", "Invalid AOF manifest file format"},
		{"file a seq 1 type\n", "Invalid AOF manifest file format"},
		{"file a seq 0 type b\n", "Invalid AOF manifest file format"},
		{"file dir/a seq 1 type b\n", "File can't be a path, just a filename"},
		{"file a seq 1 type b\nfile b seq 2 type b\n", "Found duplicate base file information"},
		{"file a seq 2 type i\nfile b seq 2 type i\n", "Found a non-monotonic sequence number"},
		{"file a seq 1 type x\n", "Unknown AOF file type"},
		{"file \"a seq 1 type b\n", "Invalid AOF manifest file format"},
		{"file " + strings.Repeat("x", 1100) + " seq 1 type b\n", "The AOF manifest file contains too long line"},
	} {
		_, err := ParseManifest([]byte(tc.in))
		var me *ManifestError
		if !errors.As(err, &me) || me.Problem != tc.problem {
			t.Errorf("ParseManifest(%.40q) = %v, want %q", tc.in, err, tc.problem)
		}
	}
	m, err := ParseManifest([]byte("# comment\nfile a seq 1 type b other x\n"))
	if err != nil || m.Base.Name != "a" {
		t.Fatalf("comment and extra pair: %+v %v", m, err)
	}
}

func commands(cmds ...[]string) []byte {
	var b []byte
	for _, c := range cmds {
		args := make([][]byte, len(c))
		for i, a := range c {
			args[i] = []byte(a)
		}
		b = AppendCommand(b, args...)
	}
	return b
}

func load(data []byte) ([]string, LoadResult) {
	var got []string
	l := Loader{Apply: func(args [][]byte) error {
		got = append(got, string(bytes.Join(args, []byte(" "))))
		return nil
	}}
	return got, l.Load(bytes.NewReader(data))
}

func TestLoad(t *testing.T) {
	good := commands([]string{"SELECT", "0"}, []string{"SET", "a", "1"})
	multi := commands([]string{"MULTI"}, []string{"INCR", "a"}, []string{"INCR", "b"}, []string{"EXEC"})
	for _, tc := range []struct {
		name      string
		data      []byte
		applied   int
		status    LoadStatus
		validUpTo int64
		reverted  bool
	}{
		{"whole", append(append([]byte{}, good...), multi...), 4, Loaded, int64(len(good) + len(multi)), false},
		{"annotation", append([]byte("#TS:1\r\n"), good...), 2, Loaded, int64(len(good) + 7), false},
		{"cut in a bulk", append(append([]byte{}, good...), "*2\r\n$4\r\nINCR\r\n$1\r"...), 2, Truncated, int64(len(good)), false},
		{"cut after the count", append(append([]byte{}, good...), "*"...), 2, Truncated, int64(len(good)), false},
		{"open MULTI", append(append([]byte{}, good...), multi[:len(multi)-14]...), 2, Truncated, int64(len(good)), true},
		{"not a command", append(append([]byte{}, good...), "SET a 1\r\n"...), 2, BadFormat, int64(len(good)), false},
		{"bulk without $", append(append([]byte{}, good...), "*1\r\n+OK\r\n"...), 2, BadFormat, int64(len(good)), false},
		{"zero count", []byte("*0\r\n"), 0, BadFormat, 0, false},
		{"huge length", []byte("*1\r\n$99999999999\r\nab"), 0, Truncated, 0, false},
	} {
		got, res := load(tc.data)
		if len(got) != tc.applied || res.Status != tc.status || res.ValidUpTo != tc.validUpTo || res.RevertedMulti != tc.reverted {
			t.Errorf("%s: applied %q, result %+v; want %d applied, status %d, valid up to %d, reverted %v",
				tc.name, got, res, tc.applied, tc.status, tc.validUpTo, tc.reverted)
		}
	}
}

func TestLoadRDBWithoutLoader(t *testing.T) {
	_, res := load([]byte("REDIS0010\xfa"))
	if res.Status != Failed || !errors.Is(res.Err, ErrNoRDB) {
		t.Fatalf("result %+v", res)
	}
}

func TestFeedSelects(t *testing.T) {
	var f Feed
	f.Append(0, [][]byte{[]byte("INCR"), []byte("a")})
	f.Append(0, [][]byte{[]byte("INCR"), []byte("a")})
	f.Append(2, [][]byte{[]byte("INCR"), []byte("a")})
	f.Reselect()
	f.Append(2, [][]byte{[]byte("INCR"), []byte("a")})
	want := commands([]string{"SELECT", "0"}, []string{"INCR", "a"}, []string{"INCR", "a"}, []string{"SELECT", "2"}, []string{"INCR", "a"}, []string{"SELECT", "2"}, []string{"INCR", "a"})
	if !bytes.Equal(f.Buf, want) {
		t.Fatalf("feed %q", f.Buf)
	}
}
