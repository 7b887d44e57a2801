package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestSchemaSakilaMySQL checks `schema FILE.ibd` on the real MySQL 8.0 and 8.4 sakila files: the
// statement read from the SDI defines, line for line, the columns (name, type, NULL, default,
// AUTO_INCREMENT, ON UPDATE), the keys and the foreign keys of sakila's own CREATE TABLE
// (testdata/sakila/schema.sql, from the public sakila-schema.sql), after both are brought to one
// spelling (normSakila: case, quotes, the synonyms BOOLEAN/TRUE, the version comments, the
// implicit DEFAULT NULL); the index the server adds for a foreign key is allowed (fkIndexes).
func TestSchemaSakilaMySQL(t *testing.T) {
	b, err := os.ReadFile("testdata/sakila/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for _, m := range regexp.MustCompile(`(?ms)^CREATE TABLE (\w+) \((.*?)^\)`).FindAllStringSubmatch(string(b), -1) {
		want[m[1]] = normSakila(m[2])
	}
	if len(want) != len(sakilaTables) {
		t.Fatalf("%d tables in schema.sql, want %d", len(want), len(sakilaTables))
	}
	for _, v := range []string{"8.0", "8.4"} {
		dir := peerFixture(t, filepath.Join("innodb_ruby/sakila", v, "sakila"))
		for _, tbl := range sakilaTables {
			out, errs, code := run("schema", filepath.Join(dir, tbl+".ibd"))
			if code != ExitClean {
				t.Errorf("%s %s: exit %d: %s", v, tbl, code, errs)
				continue
			}
			m := regexp.MustCompile("(?ms)^CREATE TABLE `" + tbl + "` \\((.*?)^\\) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;\n$").FindStringSubmatch(out)
			if m == nil {
				t.Errorf("%s %s: not a CREATE TABLE of InnoDB, utf8mb4:\n%s", v, tbl, out)
				continue
			}
			if got := fkIndexes(normSakila(m[1]), want[tbl]); strings.Join(got, "\n") != strings.Join(want[tbl], "\n") {
				t.Errorf("%s %s:\ngot  %q\nwant %q", v, tbl, got, want[tbl])
			}
		}
	}
}

// fkIndexes leaves out of got the indexes the server made for a foreign key without one
// (named after the constraint, on its columns), which a CREATE TABLE does not name.
func fkIndexes(got, want []string) []string {
	fk := map[string]bool{}
	for _, l := range want {
		if m := regexp.MustCompile(`^constraint (\w+) foreign key (\([^)]*\))`).FindStringSubmatch(l); m != nil {
			fk["key "+m[1]+" "+m[2]] = true
		}
	}
	var out []string
	for _, l := range got {
		if !fk[l] || slices.Contains(want, l) {
			out = append(out, l)
		}
	}
	return out
}

// normSakila brings the body of a CREATE TABLE to one spelling and returns its definitions,
// sorted.
func normSakila(body string) []string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(strings.ToLower(l))
		if l == "" || strings.HasPrefix(l, "--") {
			continue
		}
		for _, r := range [][2]string{{"`", ""}, {"/*!50705 ", ""}, {"/*!80003 ", ""}, {"*/", ""}, {"boolean", "tinyint(1)"},
			{"default true", "default 1"}, {" binary ", " collate utf8mb4_bin "}, {"character set utf8mb4 ", ""}, {", ", ","}} {
			l = strings.ReplaceAll(l, r[0], r[1])
		}
		l = regexp.MustCompile(`default '([^']*)'`).ReplaceAllString(l, "default $1")
		l = regexp.MustCompile(`\s+`).ReplaceAllString(l, " ")
		l = strings.ReplaceAll(l, " default null", "")
		l = regexp.MustCompile(`(timestamp) null `).ReplaceAllString(l, "$1 ")
		l = strings.TrimSuffix(strings.TrimSpace(l), ",")
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}
