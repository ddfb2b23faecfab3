package rdb

import "hash/crc64"

// jonesTable is Redis's crc64 polynomial (Jones, 0xad93d23594c935a9) in the
// bit-reversed form hash/crc64 wants.
var jonesTable = crc64.MakeTable(0x95ac9329ac4bc9b5)

// CRC64 continues Redis's crc64 over p. Redis's variant has neither an
// initial nor a final inversion, while hash/crc64 does both; inverting
// around the call cancels them, and keeps the standard library's
// slicing-by-8 speed.
func CRC64(crc uint64, p []byte) uint64 { return ^crc64.Update(^crc, jonesTable, p) }
