package rows

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// unquoteSQL reads the token at the start of s as the server's lexer reads a quoted
// identifier (backticks, “ for one) or a string literal outside NO_BACKSLASH_ESCAPES (single
// quotes, ” for one, the backslash escapes), and returns its value and what follows it. ok is
// false when s does not start with a token that ends.
func unquoteSQL(s string) (val []byte, rest string, ok bool) {
	if s == "" || s[0] != '`' && s[0] != '\'' {
		return nil, s, false
	}
	q := s[0]
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q && i+1 < len(s) && s[i+1] == q:
			val = append(val, q)
			i++
		case c == q:
			return val, s[i+1:], true
		case q == '\'' && c == '\\' && i+1 < len(s):
			i++
			e := map[byte]byte{'0': 0, 'n': '\n', 'r': '\r', 'Z': 0x1a, 't': '\t', 'b': '\b'}
			if v, ok := e[s[i]]; ok {
				val = append(val, v)
			} else {
				val = append(val, s[i]) // \' \\ \" and any other: the character
			}
		default:
			val = append(val, c)
		}
	}
	return nil, s, false
}

// checkQuote: Quote of v as an identifier and as a string literal is one token that ends where
// the output ends and reads back as v.
func checkQuote(t *testing.T, v []byte) {
	t.Helper()
	for _, how := range []int{QuoteIdentifier, QuoteString} {
		if how == QuoteIdentifier && bytes.IndexByte(v, 0) >= 0 {
			continue // the server refuses a NUL in a name
		}
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		Quote(w, how, v)
		w.Flush()
		got, rest, ok := unquoteSQL(b.String())
		if !ok || rest != "" || !bytes.Equal(got, v) {
			t.Errorf("Quote(%d, %q) = %q: reads back as %q, then %q (ended: %v)", how, v, b.String(), got, rest, ok)
		}
	}
}

// TestQuote: names and values holding what ends a quoted token or a statement, or starts a
// comment, are each one token that reads back as given.
func TestQuote(t *testing.T) {
	for _, v := range []string{"", "plain", "dyn` SET id=-1; CREATE DATABASE pwned; #", "``", "`", "'", "''", `\`, `\'`,
		"a\x00b", "line\nbreak\r", "*/ DROP DATABASE r; /*", "-- x", "# x", "\x1a", `"q"`, "é€😀", "\xff\xfe", strings.Repeat("`'\\", 100)} {
		checkQuote(t, []byte(v))
	}
	if got := QuoteIdent("a`b"); got != "`a``b`" {
		t.Errorf("QuoteIdent(a`b) = %s", got)
	}
}

// FuzzQuote: any bytes quote to one token that reads back as them.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "`", "'", "\\", "\x00", "a`'\\\n\r\x1a*/#;"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) { checkQuote(t, v) })
}
