package rdb

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
)

// Redis 7.0's functions in an RDB: before the databases, one
// RDB_OPCODE_FUNCTION2 per library followed by the library's code (its
// "#!lua name=..." payload) as a string (rdbSaveFunctions). 7.0's release
// candidates wrote RDB_OPCODE_FUNCTION, with the name, the engine and a
// description before the code; the loader reads both, as rdbFunctionLoad.
// FUNCTION DUMP is the same records, with DUMP's footer.

// opFunction is RDB_OPCODE_FUNCTION, the release candidates' form.
const opFunction = 246

// appendFunction appends one library's record.
func appendFunction(b []byte, code string, compress bool) []byte {
	return appendString(append(b, opFunction2), code, compress)
}

// readFunction reads the record after a function opcode t and returns the
// library's code.
func (r *reader) readFunction(t byte) (string, error) {
	if t == opFunction2 {
		code, err := r.string()
		if err != nil {
			return "", errors.New("Failed loading library payload")
		}
		return string(code), nil
	}
	name, err := r.string()
	if err != nil {
		return "", errors.New("Failed loading library name")
	}
	engine, err := r.string()
	if err != nil {
		return "", errors.New("Failed loading engine name")
	}
	hasDesc, err := r.plainLength()
	if err != nil {
		return "", errors.New("Failed loading library description indicator")
	}
	if hasDesc != 0 {
		if _, err := r.string(); err != nil {
			return "", errors.New("Failed loading library description")
		}
	}
	blob, err := r.string()
	if err != nil {
		return "", errors.New("Failed loading library blob")
	}
	return "#!" + string(engine) + " name=" + string(name) + "\n" + string(blob), nil
}

// DumpFunctions is FUNCTION DUMP's payload of the libraries' codes.
func DumpFunctions(codes []string, compress bool) []byte {
	var b []byte
	for _, code := range codes {
		b = appendFunction(b, code, compress)
	}
	b = binary.LittleEndian.AppendUint16(b, Version)
	return binary.LittleEndian.AppendUint64(b, CRC64(0, b))
}

// RestoreFunctions reads FUNCTION RESTORE's payload into the libraries'
// codes, with functionRestoreCommand's error texts.
func RestoreFunctions(payload []byte, skipChecksum bool) ([]string, error) {
	if !VerifyPayload(payload, skipChecksum) {
		return nil, ErrPayload
	}
	r := &reader{r: bufio.NewReaderSize(bytes.NewReader(payload), 4096)}
	var codes []string
	for len(payload)-int(r.off) > 10 {
		t, err := r.byte()
		if err != nil {
			return nil, errors.New("can not read data type")
		}
		if t != opFunction && t != opFunction2 {
			return nil, errors.New("given type is not a function")
		}
		code, err := r.readFunction(t)
		if err != nil {
			return nil, err
		}
		codes = append(codes, code)
	}
	return codes, nil
}
