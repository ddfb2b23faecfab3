package conformance

import "testing"

// TestLolwut: Redis 7.0's own LOLWUT is one line; VERSION 5 and 6 draw
// art. Schotter's first two rows are not random, so a drawing of at most
// two rows is compared byte for byte; the rest by size and caption (!art).
func TestLolwut(t *testing.T) {
	runCases(t, []tcase{
		{"lolwut", []string{
			"LOLWUT", "LOLWUT 5 6 7 8", "lolwut version", "LOLWUT VERSION 7", "LOLWUT VERSION 4", "LOLWUT VERSION 59",
			"LOLWUT VERSION -1", "LOLWUT VERSION 99999999999", "LOLWUT VERSION x", `LOLWUT VERSION ""`, "LOLWUT VERSION 1.5",
			"LOLWUT VERSION 5 66 8 2", "LOLWUT VERSION 5 10 3 1", "LOLWUT VERSION 5 1 200 1", "LOLWUT VERSION 5 1000 200 2",
			"LOLWUT VERSION 5 0 0 0", "LOLWUT VERSION 5 -5 -5 2", "LOLWUT VERSION 5 40 5 1",
			"LOLWUT VERSION 5 x", "LOLWUT VERSION 5 10 x", "LOLWUT VERSION 5 10 10 x", "LOLWUT VERSION 6 x", "LOLWUT VERSION 6 10 x",
			"!art LOLWUT VERSION 5", "!art LOLWUT VERSION 5 30 4 6", "!art LOLWUT VERSION 5 2000 300 300",
			"!art LOLWUT VERSION 6", "!art LOLWUT VERSION 6 10 5", "!art LOLWUT VERSION 6 1 1", "!art LOLWUT VERSION 6 3000 3",
			"!art lolwut version 4.9", "!art LOLWUT VERSION 5 3", "!art LOLWUT VERSION 5 9 9 9 9 9",
		}},
	})
}
