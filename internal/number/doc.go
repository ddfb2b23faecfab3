// Package number parses numbers as Redis 7.0 and its Lua 5.1 do on glibc:
// C's strtod (decimal and hexadecimal floats, "inf", "infinity", "nan" in
// any case, leading white space as C's isspace), Redis's string2ll for
// integer arguments and string2ld (glibc's strtold on x86-64's 80-bit long
// double) for INCRBYFLOAT. Go's strconv speaks another dialect (underscores,
// "0b1", no "0x10" floats), so every place that reads a number from a client
// or a script goes through here: server, store and luaengine alike.
package number
