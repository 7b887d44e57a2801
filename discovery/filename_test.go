package discovery

import "testing"

// TestFileNameCodes: no two-character code is two hexadecimal digits (which would make "@" and
// four hexadecimal digits ambiguous), no two codes stand for one character, and names round-trip
// through FileName and SQLName.
func TestFileNameCodes(t *testing.T) {
	hex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	if len(filenameFor) != len(filenameCodes) {
		t.Errorf("%d codes for %d characters", len(filenameCodes), len(filenameFor))
	}
	for code := range filenameCodes {
		if len(code) != 2 || hex(code[0]) && hex(code[1]) {
			t.Errorf("code %q", code)
		}
	}
	for _, c := range []struct{ sql, file string }{{"t", "t"}, {"t-dash", "t@002ddash"}, {"uni✓éж", "uni@2713@0p@m0"},
		{"x.y/z", "x@002ey@002fz"}, {"a@b", "a@0040b"}, {"dyn` SET id=-1; #", "dyn@0060@0020SET@0020id@003d@002d1@003b@0020@0023"}} {
		if got := FileName(c.sql); got != c.file {
			t.Errorf("FileName(%q) = %q, want %q", c.sql, got, c.file)
		}
		if got := SQLName(c.file); got != c.sql {
			t.Errorf("SQLName(%q) = %q, want %q", c.file, got, c.sql)
		}
	}
	if got := SQLTableName("d@002db/t#P#p@002d0"); got != "d-b.t#P#p-0" {
		t.Errorf("SQLTableName = %q", got)
	}
	if got := SQLName("a@-@12"); got != "a@-@12" {
		t.Errorf("SQLName of a name whose '@' start no code = %q", got)
	}
}
