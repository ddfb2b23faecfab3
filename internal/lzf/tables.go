//go:build !race

package lzf

import "sync"

var tables = sync.Pool{New: func() any { return new(hashTable) }}

func getTable() *hashTable    { return tables.Get().(*hashTable) }
func putTable(tab *hashTable) { tables.Put(tab) }
