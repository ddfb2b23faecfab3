//go:build race

package lzf

// Under the race detector sync.Pool drops a quarter of what is put back
// (to shake out sharing bugs), so a quarter of all compressions allocated
// and zeroed a fresh 512 KB table: with the collections that caused, the
// server's TestReplicaGoneMidSync (an RDB of 35,000 keys) took 10 s under
// -race instead of 1.5 s. A channel keeps every table and still orders
// each use before the next one for the detector.
var tables = make(chan *hashTable, 8)

func getTable() *hashTable {
	select {
	case tab := <-tables:
		return tab
	default:
		return new(hashTable)
	}
}

func putTable(tab *hashTable) {
	select {
	case tables <- tab:
	default:
	}
}
