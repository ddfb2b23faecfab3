package server

import (
	"strings"

	"github.com/floodgate/floodgate/internal/number"
)

// keySpec is one of a command's key specifications, as Redis 7.0's
// COMMAND INFO reports it and COMMAND GETKEYSANDFLAGS applies it: where the
// search for keys begins (an index, or after a keyword), how keys are found
// from there (a range, or a numkeys argument), and how the command uses
// them (RO/RW/OW/RM plus access, update, insert, delete).
type keySpec struct {
	notes string
	flags string // space-separated, in Redis's order
	begin keyBegin
	find  keyFind
}

// keyBegin is a key spec's begin_search: index > 0 for an index search, a
// keyword for a keyword search, neither for "unknown".
type keyBegin struct {
	index     int
	keyword   string
	startFrom int
}

// keyFind is a key spec's find_keys: a range (lastKey, keyStep, limit), a
// keynum (keyNumIdx, firstKey, keyStep) or, with neither, "unknown".
type keyFind struct {
	kind                string // "range", "keynum" or "unknown"
	lastKey, keyStep    int
	limit               int
	keyNumIdx, firstKey int
}

func beginIndex(i int) keyBegin { return keyBegin{index: i} }
func beginKeyword(k string, startFrom int) keyBegin {
	return keyBegin{keyword: k, startFrom: startFrom}
}
func findRange(last, step, limit int) keyFind {
	return keyFind{kind: "range", lastKey: last, keyStep: step, limit: limit}
}
func findKeyNum(idx, first, step int) keyFind {
	return keyFind{kind: "keynum", keyNumIdx: idx, firstKey: first, keyStep: step}
}

var (
	unknownBegin = keyBegin{}
	unknownFind  = keyFind{kind: "unknown"}
)

// flagList returns the spec's flags as COMMAND replies list them.
func (s *keySpec) flagList() []string { return strings.Fields(s.flags) }

// positions returns the argument positions the spec designates in args
// (args[0] is the command name), as Redis's getKeysUsingKeySpecs finds
// them, and whether the spec is valid for these arguments: a keyword not
// found designates nothing and is valid; a range or a numkeys reaching
// past the arguments (or before its start), a numkeys that is not a
// number, and an unknown spec are invalid and designate nothing.
// getKeysUsingKeySpecs then drops every key of the command (see
// specKeys), which is what the ACL checks and COMMAND GETKEYS see:
// Redis's ACL lets `PFMERGE dest` through whatever dest is, because its
// second spec (the sources, from index 2) is invalid for two arguments.
func (s *keySpec) positions(args [][]byte) ([]int, bool) {
	first := 0
	switch {
	case s.begin.index > 0:
		first = s.begin.index
	case s.begin.keyword != "":
		// A negative startfrom searches backwards from the end.
		from, end, step := s.begin.startFrom, len(args), 1
		if from < 0 {
			from, end, step = len(args)+from, 0, -1
		}
		for i := from; i != end && i >= 1 && i < len(args); i += step {
			// The keyword is upper case, as COMMAND INFO prints it.
			if strings.EqualFold(string(args[i]), s.begin.keyword) {
				first = i + 1
				break
			}
		}
		if first == 0 {
			return nil, true
		}
	default:
		return nil, false
	}
	var last, step int
	switch s.find.kind {
	case "range":
		step = s.find.keyStep
		switch last = s.find.lastKey; {
		case last >= 0:
			last += first
		case s.find.limit > 0:
			// Keys take 1/limit of the arguments from first on.
			last = first + (len(args)-first)/s.find.limit + last
		default:
			last = len(args) + last
		}
	case "keynum":
		step = s.find.keyStep
		idx := first + s.find.keyNumIdx
		if idx >= len(args) {
			return nil, false
		}
		n, ok := number.ParseInt(args[idx])
		if !ok || n < 0 || n > int64(len(args)) {
			return nil, false
		}
		first += s.find.firstKey
		last = first + int(n) - 1
	default:
		return nil, false
	}
	if last >= len(args) || last < first || first >= len(args) || step <= 0 {
		return nil, false
	}
	pos := make([]int, 0, (last-first)/step+1)
	for i := first; i <= last; i += step {
		pos = append(pos, i)
	}
	return pos, !strings.Contains(s.flags, "incomplete")
}

// specKeys returns the positions of the keys cmd's specs designate in
// args, as getKeysUsingKeySpecs without GET_KEYSPEC_RETURN_PARTIAL: none
// at all, and false, when one of the specs is invalid for these
// arguments. Specs of fake keys (not_key) are left out.
func specKeys(cmd *Command, args [][]byte, each func(pos int, spec *keySpec)) bool {
	var found [8]struct {
		pos  int
		spec *keySpec
	}
	keys := found[:0]
	for i := range cmd.keySpecs {
		spec := &cmd.keySpecs[i]
		if strings.Contains(spec.flags, "not_key") {
			continue
		}
		pos, ok := spec.positions(args)
		if !ok {
			return false
		}
		for _, p := range pos {
			keys = append(keys, struct {
				pos  int
				spec *keySpec
			}{p, spec})
		}
	}
	for _, k := range keys {
		each(k.pos, k.spec)
	}
	return true
}

// keyFlags returns the access flags COMMAND GETKEYSANDFLAGS gives the key at
// args[p]. SET and BITFIELD have variable flags, decided by their
// arguments as Redis's own key procedures decide them; otherwise the first
// spec that designates p says, and a key no spec designates (SORT's STORE
// destination, found by SORT's own parser) takes the last spec's flags.
func keyFlags(cmd *Command, args [][]byte, p int) []string {
	switch cmd.Name {
	case "set":
		for _, a := range args[3:] {
			if eqFold(a, "get") {
				return []string{"RW", "access", "update"}
			}
		}
		return []string{"OW", "update"}
	case "migrate":
		return []string{"RW", "access", "delete"} // migrateGetKeys's, for either spec
	case "bitfield":
		for _, a := range args[2:] {
			if eqFold(a, "set") || eqFold(a, "incrby") {
				return []string{"RW", "access", "update"}
			}
		}
		return []string{"RO", "access"}
	}
	specs := cmd.keySpecs
	if len(specs) == 0 {
		return nil
	}
	for i := range specs {
		q, _ := specs[i].positions(args)
		for _, q := range q {
			if q == p {
				return specs[i].flagList()
			}
		}
	}
	return specs[len(specs)-1].flagList()
}

// writeTableKeySpecs writes key specs as COMMAND INFO does: a map per
// spec with notes (when there are any), flags, begin_search and find_keys.
func writeTableKeySpecs(w Writer, specs []keySpec) {
	w.Set(len(specs))
	for i := range specs {
		s := &specs[i]
		n := 3
		if s.notes != "" {
			n++
		}
		w.Map(n)
		if s.notes != "" {
			w.BulkString("notes")
			w.BulkString(s.notes)
		}
		flags := s.flagList()
		w.BulkString("flags")
		w.Set(len(flags))
		for _, f := range flags {
			w.Status(f)
		}
		w.BulkString("begin_search")
		w.Map(2)
		w.BulkString("type")
		switch {
		case s.begin.index > 0:
			w.BulkString("index")
			w.BulkString("spec")
			w.Map(1)
			w.BulkString("index")
			w.Int(int64(s.begin.index))
		case s.begin.keyword != "":
			w.BulkString("keyword")
			w.BulkString("spec")
			w.Map(2)
			w.BulkString("keyword")
			w.BulkString(s.begin.keyword)
			w.BulkString("startfrom")
			w.Int(int64(s.begin.startFrom))
		default:
			w.BulkString("unknown")
			w.BulkString("spec")
			w.Map(0)
		}
		w.BulkString("find_keys")
		w.Map(2)
		w.BulkString("type")
		w.BulkString(s.find.kind)
		w.BulkString("spec")
		switch s.find.kind {
		case "range":
			w.Map(3)
			w.BulkString("lastkey")
			w.Int(int64(s.find.lastKey))
			w.BulkString("keystep")
			w.Int(int64(s.find.keyStep))
			w.BulkString("limit")
			w.Int(int64(s.find.limit))
		case "keynum":
			w.Map(3)
			w.BulkString("keynumidx")
			w.Int(int64(s.find.keyNumIdx))
			w.BulkString("firstkey")
			w.Int(int64(s.find.firstKey))
			w.BulkString("keystep")
			w.Int(int64(s.find.keyStep))
		default:
			w.Map(0)
		}
	}
}
