package conformance

import "testing"

// TestMaxMemoryClientsConfig: maxmemory-clients takes a memory value or a
// percentage of maxmemory (numericParseString's MEMORY_CONFIG |
// PERCENT_CONFIG), CONFIG GET prints a percentage as given, and the
// refusals are Redis's texts. Each case ends with the setting back at 0.
func TestMaxMemoryClientsConfig(t *testing.T) {
	get := "CONFIG GET maxmemory-clients"
	var lines []string
	for _, v := range []string{"10%", "0", "1mb", "1MB", "1k", "1gb", "0%", "100%", "7%", "3000000", `""`, "0b", "1024b"} {
		lines = append(lines, "CONFIG SET maxmemory-clients "+v, get)
	}
	var bad []string
	for _, v := range []string{"101%", "-1", "-1%", "abc", "%", "5gb%", "1.5%", "+5%", " 5%", "5% ", "10%%", "9223372036854775808", "18446744073709551615", "9223372036854775807", "1e3"} {
		bad = append(bad, "CONFIG SET maxmemory-clients \""+v+"\"", get)
	}
	runCases(t, []tcase{
		{"values", append(lines, "CONFIG SET maxmemory-clients 0")},
		{"refused", append(append([]string{"CONFIG SET maxmemory-clients 5%"}, bad...), "CONFIG SET maxmemory-clients 0")},
		{"with maxmemory", []string{"CONFIG SET maxmemory 10mb", "CONFIG SET maxmemory-clients 50%", get, "CONFIG GET maxmemory",
			"CONFIG SET maxmemory 0", get, "CONFIG SET maxmemory-clients 0", get}},
		{"several at once", []string{"CONFIG SET maxmemory-clients 20% maxmemory 0", get, "CONFIG SET maxmemory-clients 200% maxmemory 0", get, "CONFIG SET maxmemory-clients 0"}},
	})
}

// TestClientNoEvict: CLIENT NO-EVICT on|off in any case, and its errors.
func TestClientNoEvict(t *testing.T) {
	runCases(t, []tcase{
		{"no-evict", []string{"CLIENT NO-EVICT on", "CLIENT NO-EVICT OFF", "CLIENT NO-EVICT On", "CLIENT NO-EVICT maybe", "CLIENT NO-EVICT", "CLIENT NO-EVICT on off", `CLIENT NO-EVICT ""`}},
		{"no-evict in multi", []string{"MULTI", "CLIENT NO-EVICT on", "CLIENT NO-EVICT bad", "EXEC"}},
	})
}
