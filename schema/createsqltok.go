package schema

import (
	"fmt"
	"strings"
)

// sqlTokens splits a statement into tokens: quoted identifiers and strings (kept with their
// quotes), words and numbers, and one-character punctuation. Comments are dropped.
func sqlTokens(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '-' && strings.HasPrefix(s[i:], "-- "), c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			e := strings.Index(s[i+2:], "*/")
			if e < 0 {
				return nil, fmt.Errorf("offset %d: unterminated comment", i)
			}
			i += e + 4
		case c == '`' || c == '\'' || c == '"':
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == '\\' && c != '`' {
					j++
				} else if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						j++
						continue
					}
					break
				}
			}
			if j >= len(s) {
				return nil, fmt.Errorf("offset %d: unterminated quote", i)
			}
			toks = append(toks, s[i:j+1])
			i = j + 1
		case isIdentByte(c):
			j := i
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			toks = append(toks, s[i:i+1])
			i++
		}
	}
	return toks, nil
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// matching is the index of the ")" closing the "(" at toks[i] (-1: none).
func matching(toks []string, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j] {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// splitTop splits tokens at the commas outside parentheses.
func splitTop(toks []string) [][]string {
	var out [][]string
	depth, start := 0, 0
	for j, tk := range toks {
		switch tk {
		case "(":
			depth++
		case ")":
			depth--
		case ",":
			if depth == 0 {
				out = append(out, toks[start:j])
				start = j + 1
			}
		}
	}
	return append(out, toks[start:])
}

// unquote takes the backquotes (or quotes) off an identifier.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '`' || s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		q := string(s[0])
		return strings.ReplaceAll(s[1:len(s)-1], q+q, q)
	}
	return s
}

// isWord: tok is one of the words, case-insensitively.
func isWord(tok string, words ...string) bool {
	for _, w := range words {
		if strings.EqualFold(tok, w) {
			return true
		}
	}
	return false
}

func isNumber(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
