// Package argline holds Redis's syntax for a line of arguments: how
// sdssplitargs splits a redis.conf line, an AOF manifest line or an inline
// request into words, and how sdscatrepr quotes a word so that the split
// reads it back as the same bytes.
package argline

import (
	"bytes"
	"errors"
)

// ErrUnbalanced is the one error sdssplitargs has: a quote that is never
// closed, or a closing quote followed by something other than white space.
var ErrUnbalanced = errors.New("unbalanced quotes")

// Split splits line into words as Redis's sdssplitargs does: words are
// separated by white space; "double quotes" read the escapes \n \r \t \b
// \a, \xHH and \<any other byte>; 'single quotes' read only \'; a closing
// quote must be followed by white space or the end of the line. Quotes
// may open in the middle of a word (a"b c" is the word `ab c`). sdssplitargs
// reads a C string, so a NUL byte ends the line.
func Split(line []byte) ([][]byte, error) {
	if z := bytes.IndexByte(line, 0); z >= 0 {
		line = line[:z]
	}
	// at reads as C would: the terminating NUL past the end.
	at := func(i int) byte {
		if i < len(line) {
			return line[i]
		}
		return 0
	}
	words := [][]byte{}
	p := 0
	for {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p == len(line) {
			return words, nil
		}
		word := []byte{}
		var quote byte // the open quote, if any
		for done := false; !done; {
			c := at(p)
			switch {
			case quote == '"' && c == '\\' && at(p+1) == 'x' && isHex(at(p+2)) && isHex(at(p+3)):
				word = append(word, unhex(at(p+2))<<4|unhex(at(p+3)))
				p += 3
			case quote == '"' && c == '\\' && at(p+1) != 0:
				p++
				word = append(word, unescape(line[p]))
			case quote == '\'' && c == '\\' && at(p+1) == '\'':
				p++
				word = append(word, '\'')
			case quote != 0 && c == quote:
				if !endsWord(at(p + 1)) {
					return nil, ErrUnbalanced
				}
				done = true
			case quote != 0 && c == 0:
				return nil, ErrUnbalanced
			case quote != 0:
				word = append(word, c)
			// Not \v or \f: they are skipped between words (isspace) but
			// are part of an unquoted word.
			case c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0:
				done = true
			case c == '"' || c == '\'':
				quote = c
			default:
				word = append(word, c)
			}
			if p < len(line) {
				p++
			}
		}
		words = append(words, word)
	}
}

// SplitString is Split for a string.
func SplitString(line string) ([]string, error) {
	words, err := Split([]byte(line))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = string(w)
	}
	return out, nil
}

// Quote is sdscatrepr: s in double quotes, with \\ \" \n \r \t \a \b and
// \xHH for any other byte outside printable ASCII.
func Quote(s string) string {
	return string(AppendQuote(make([]byte, 0, len(s)+2), []byte(s)))
}

// QuoteIfNeeded quotes s as sdsneedsrepr decides: when it holds a space,
// a double quote, a backslash or a byte outside printable ASCII. As in
// Redis, a single quote or an empty string is left bare.
func QuoteIfNeeded(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' || c == '"' || c == ' ' || !isPrint(c) {
			return Quote(s)
		}
	}
	return s
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// isPrint is C's isprint in the C locale.
func isPrint(c byte) bool { return 0x20 <= c && c <= 0x7e }

func endsWord(c byte) bool { return c == 0 || isSpace(c) }

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
}

// AppendQuote appends s as Quote writes it (sdscatrepr) to dst, for the
// hot paths that build a line per command (MONITOR).
func AppendQuote(dst, s []byte) []byte {
	dst = append(dst, '"')
	for _, c := range s {
		switch c {
		case '\\', '"':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\a':
			dst = append(dst, '\\', 'a')
		case '\b':
			dst = append(dst, '\\', 'b')
		default:
			if isPrint(c) {
				dst = append(dst, c)
			} else {
				const hex = "0123456789abcdef"
				dst = append(dst, '\\', 'x', hex[c>>4], hex[c&0xf])
			}
		}
	}
	return append(dst, '"')
}
