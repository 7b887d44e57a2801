package cmd

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// hostileSchema makes tables whose names hold what can end a quoted name or a statement (a
// backtick, quotes, a backslash, a newline, "*/", "#", ";", a '.' and a '/' in a database
// name, letters the file-name encoding writes in two characters), with hostile column names;
// each is loaded by hostileData. `r`.`dyn` is there for what a name cut at its first backtick
// would address. The server refuses a NUL in a name (TestHostileNames checks),
// so NUL is in the values.
const hostileSchema = "CREATE DATABASE `r`;\n" +
	"CREATE TABLE `r`.`dyn` (id INT PRIMARY KEY, v VARCHAR(50)) ENGINE=InnoDB;\n" +
	"CREATE TABLE `r`.`dyn`` SET id=-1; CREATE DATABASE pwned; #` (id INT PRIMARY KEY, v VARCHAR(50)) ENGINE=InnoDB;\n" +
	"CREATE DATABASE `q'd\"b\\x` CHARACTER SET utf8mb4;\n" +
	"CREATE TABLE `q'd\"b\\x`.`a.b*/c\nd` (`c``1` INT PRIMARY KEY, `c'2\"*/` VARCHAR(50), `c\\3` BLOB, `--x` TEXT) ENGINE=InnoDB;\n" +
	"CREATE DATABASE `x.y/z`;\n" +
	"CREATE TABLE `x.y/z`.`uni✓éж` (id INT AUTO_INCREMENT PRIMARY KEY, v TEXT) ENGINE=InnoDB;\n"

// hostileData fills hostileSchema's tables: values with every byte a string literal escapes,
// "*/", "--", a backtick; a 0 in an AUTO_INCREMENT column.
const hostileData = "SET sql_mode = 'NO_AUTO_VALUE_ON_ZERO';\n" +
	"INSERT INTO `r`.`dyn` VALUES (1, 'plain');\n" +
	"INSERT INTO `r`.`dyn`` SET id=-1; CREATE DATABASE pwned; #` VALUES (1, 'a'), (2, CONCAT('x', CHAR(0), 'y')), (3, 'it''s \\\\ \"q\" `b` */ -- #');\n" +
	"INSERT INTO `q'd\"b\\x`.`a.b*/c\nd` VALUES (1, 'line1\\nline2\\r', CONCAT(CHAR(0), CHAR(26), '\\\\'), '*/ DROP DATABASE r; /*'), (2, NULL, '', ''), (3, '''); DROP DATABASE r; --', X'00FF27605C', 'é€😀');\n" +
	"INSERT INTO `x.y/z`.`uni✓éж` VALUES (0, 'zero'), (5, 'five'), (6, REPEAT('long ', 4000));\n"

// hostileTables are hostileSchema's tables: as rows takes them (DB.TABLE, the database in the
// file-name encoding where it holds a '.'), as a statement names them, and their key.
var hostileTables = []struct{ arg, sql, order string }{
	{"r.dyn", "`r`.`dyn`", "id"},
	{"r.dyn` SET id=-1; CREATE DATABASE pwned; #", "`r`.`dyn`` SET id=-1; CREATE DATABASE pwned; #`", "id"},
	{"q'd\"b\\x.a.b*/c\nd", "`q'd\"b\\x`.`a.b*/c\nd`", "`c``1`"},
	{"x@002ey@002fz.uni✓éж", "`x.y/z`.`uni✓éж`", "id"},
}

// hostileWant is what the server gives for each of hostileTables: SELECT * in key order, then
// CHECKSUM TABLE.
func hostileWant(t *testing.T, s *rowsServer) []string {
	var want []string
	for _, tb := range hostileTables {
		sel := s.sql(t, "SELECT * FROM "+tb.sql+" ORDER BY "+tb.order)
		sum := s.sql(t, "CHECKSUM TABLE "+tb.sql)
		_, sum, _ = bytes.Cut(sum, []byte("\t"))
		want = append(want, string(sel)+"checksum "+string(sum))
	}
	return want
}

// TestHostileNames: `rows --format sql` of tables whose database, table and column names hold
// backticks, quotes, backslashes, newlines, "*/", ";" and "#" (and values holding NUL, Ctrl-Z,
// quotes, backslashes), made by the real server and loaded by a fresh one, gives the same
// SELECT * and CHECKSUM TABLE, and runs nothing else. Before, the database and table names
// were written between backticks as given: the dump of table r."dyn` SET id=-1; CREATE DATABASE
// pwned; #" inserted a row with id -1 and created the database pwned, and a database named in
// the file-name encoding (x@002ey@002fz for `x.y/z`) was written encoded (an unknown database).
func TestHostileNames(t *testing.T) {
	base := t.TempDir()
	src := newRowsServer(t, filepath.Join(base, "src"))
	// A NUL cannot be in a name: the server refuses it, so only values hold one.
	if out, err := exec.Command("mariadb", "--no-defaults", "-S", src.sock, "-uroot", "--binary-mode", "-e",
		"CREATE DATABASE `n\x00ul`").CombinedOutput(); err == nil {
		t.Fatalf("the server accepts a NUL in a database name: the test must cover it\n%s", out)
	}
	src.sql(t, hostileSchema+hostileData)
	want := hostileWant(t, src)
	src.shutdown(t)
	before := lab.HashTree(t, src.dir)
	var dump strings.Builder
	for _, tb := range hostileTables {
		out, errs, code := run("rows", "--format", "sql", src.dir, tb.arg)
		if code != ExitClean {
			t.Errorf("rows --format sql %q: exit %d\n%s", tb.arg, code, errs)
			continue
		}
		dump.WriteString(out)
	}
	t.Logf("the dump:\n%s", dump.String())
	dst := newRowsServer(t, filepath.Join(base, "dst"))
	dst.sql(t, hostileSchema)
	dst.sql(t, dump.String())
	got := hostileWant(t, dst)
	for i, tb := range hostileTables {
		if got[i] != want[i] {
			t.Errorf("%s loaded from rows --format sql:\n%s", tb.sql, firstDiff(want[i], got[i]))
		}
	}
	if dbs := string(dst.sql(t, "SHOW DATABASES")); strings.Contains(dbs, "pwned") || !strings.Contains(dbs, "x.y/z") {
		t.Errorf("after loading the dump the server has the databases\n%s", dbs)
	}
	dst.shutdown(t)
	if after := lab.HashTree(t, src.dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Error("rows changed the source directory")
	}
}
