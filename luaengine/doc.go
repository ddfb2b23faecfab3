package luaengine

// Known differences from Redis 7.0.15, found by comparing with the real
// server; each is a gap, not a choice:
//
//   - cjson.null is a shared full userdata standing in for Lua's NULL light
//     userdata: type, tostring ("userdata: (nil)"), equality and encoding
//     match.
//   - cjson settings (encode_max_depth and friends) outlive a script as in
//     Redis, but SCRIPT FLUSH does not reset them (Redis 7.0 makes a new Lua
//     state).
//   - struct.unpack with a negative start that wraps past the string end
//     (e.g. 'h' at -1) reads before the string in Redis; here it is "data
//     string too short".
//   - Runtime errors name the variable as Lua 5.1 does ("attempt to index
//     field 'a' (a nil value)", local, global, upvalue, method, field '?'),
//     read from the failing instruction (objname.go); where the register was
//     loaded across a jump the unnamed form is given, as Lua's symbolic
//     execution may name it.
//   - Compile errors: "unexpected symbol near '<tok>'", "unfinished string"
//     and "malformed number" are matched; Lua's "'=' expected", "'end'
//     expected (to close ...)" and the like come out as "unexpected symbol".
//   - Strings convert to numbers as luaO_str2d (number.ParseLua) in
//     tonumber, binary arithmetic, string.format, the math library and the
//     struct, cjson and bit libraries, but unary minus and other library
//     functions' integer arguments (string.rep's count, ...) still go
//     through gopher-lua's parser, which reads -"010" as -8 and accepts
//     "1_0".
//   - Unary minus of 0 gives 0, not -0.
//   - math.random: Redis 7.0 does not reseed per call, and its startup seed
//     is unknowable, so only sequences after math.randomseed(n) match. The
//     engine starts at seed 0.
//   - string.dump returns a Lua 5.1 binary chunk's header and the
//     function's description without its code (gopher-lua has no Lua 5.1
//     bytecode); as on Redis, loadstring refuses it.
//   - error({}) crashes redis-server 7.0.15; here it replies "ERR unknown
//     error".
