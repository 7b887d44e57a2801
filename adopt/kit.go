package adopt

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"innoscope/internal/regular"
	"innoscope/schema"
)

// The files of a kit, in its directory.
const (
	CreateSQL = "1-create.sql" // CREATE DATABASE/TABLE, ALTER TABLE ... DISCARD TABLESPACE
	ImportSQL = "2-import.sql" // ALTER TABLE ... IMPORT TABLESPACE, CHECK TABLE
	Script    = "adopt.sh"     // runs both and copies the files in between
	PlanJSON  = "kit.json"     // the plan, as adopt --json prints it
)

// Attached are the tables the kit attaches (those not refused).
func (k *Kit) Attached() []Table {
	var out []Table
	for _, t := range k.Tables {
		if t.Refused == "" {
			out = append(out, t)
		}
	}
	return out
}

// Write makes the kit in dir (created; it must be empty or absent, and outside every
// directory the files came from): the copies of the files, the SQL scripts and the shell
// script. When every table is refused it writes nothing.
func (k *Kit) Write(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for _, s := range k.Sources {
		if rel, err := filepath.Rel(s, abs); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
			return fmt.Errorf("%s: inside %s, where the files come from: adopt never writes there; give --into a directory elsewhere", abs, s)
		}
	}
	if ents, err := os.ReadDir(abs); err == nil && len(ents) > 0 {
		return fmt.Errorf("%s: not empty: give --into a new or empty directory", abs)
	}
	k.Dir = abs
	if len(k.Attached()) == 0 {
		return nil // every table refused: no kit
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return err
	}
	for _, t := range k.Attached() {
		for _, f := range t.Files {
			if err := copyFile(f.Source, filepath.Join(abs, f.Kit), f.Size); err != nil {
				return err
			}
		}
	}
	js, err := json.MarshalIndent(k, "", "  ")
	if err != nil {
		return err
	}
	for name, body := range map[string]string{CreateSQL: k.createSQL(), ImportSQL: k.importSQL(), Script: k.script(), PlanJSON: string(js) + "\n"} {
		mode := os.FileMode(0o644)
		if name == Script {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(abs, name), []byte(body), mode); err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies src (read-only, a regular file) to dst, checking it got size bytes.
func copyFile(src, dst string, size int64) error {
	in, err := regular.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: offset %d: copying to %s: %w", src, n, dst, err)
	}
	if n != size {
		return fmt.Errorf("%s: %d bytes copied, the file had %d when adopt read it: is a server writing it?", src, n, size)
	}
	return nil
}

// byDB calls fn for each attached table, after a USE when the database changes.
func (k *Kit) byDB(b *strings.Builder, fn func(t Table)) {
	db := ""
	for i, t := range k.Attached() {
		if i == 0 || t.DB != db {
			db = t.DB
			fmt.Fprintf(b, "USE %s;\n", schema.QuoteName(db))
		}
		fn(t)
	}
}

func (k *Kit) createSQL() string {
	var b strings.Builder
	b.WriteString("-- innoscope adopt, step 1: the tables, then their empty tablespaces discarded\n")
	made := map[string]bool{}
	for _, t := range k.Attached() {
		if !made[t.DB] {
			made[t.DB] = true
			fmt.Fprintf(&b, "CREATE DATABASE IF NOT EXISTS %s;\n", schema.QuoteName(t.DB))
		}
	}
	k.byDB(&b, func(t Table) {
		if t.StagingCreate == "" {
			fmt.Fprintf(&b, "%s;\nALTER TABLE %s DISCARD TABLESPACE;\n", t.Create, schema.QuoteName(t.Name))
			return
		}
		fmt.Fprintf(&b, "%s;\n", t.Create)
		for _, f := range t.Files {
			fmt.Fprintf(&b, "%s;\nALTER TABLE %s DISCARD TABLESPACE;\n", strings.Replace(t.StagingCreate, "@STAGING@", schema.QuoteName(f.Staging), 1), schema.QuoteName(f.Staging))
		}
	})
	return b.String()
}

func (k *Kit) importSQL() string {
	var b strings.Builder
	b.WriteString("-- innoscope adopt, step 3 (after the files are copied): the tablespaces imported and checked\n")
	k.byDB(&b, func(t Table) {
		for _, f := range t.Files {
			if t.StagingCreate == "" {
				fmt.Fprintf(&b, "ALTER TABLE %s IMPORT TABLESPACE;\n", schema.QuoteName(t.Name))
				continue
			}
			// The partition's rows are checked against its definition (WITH VALIDATION).
			fmt.Fprintf(&b, "ALTER TABLE %s IMPORT TABLESPACE;\nALTER TABLE %s EXCHANGE PARTITION %s WITH TABLE %s;\nDROP TABLE %s;\n",
				schema.QuoteName(f.Staging), schema.QuoteName(t.Name), schema.QuoteName(f.Partition), schema.QuoteName(f.Staging), schema.QuoteName(f.Staging))
		}
		if len(t.AddKeys) > 0 {
			fmt.Fprintf(&b, "ALTER TABLE %s %s;\n", schema.QuoteName(t.Name), strings.Join(t.AddKeys, ", "))
		}
		if t.AutoIncrement > 0 {
			fmt.Fprintf(&b, "ALTER TABLE %s AUTO_INCREMENT = %d;\n", schema.QuoteName(t.Name), t.AutoIncrement)
		}
		fmt.Fprintf(&b, "CHECK TABLE %s;\n", schema.QuoteName(t.Name))
	})
	return b.String()
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (k *Kit) script() string {
	var b strings.Builder
	fmt.Fprintf(&b, `#!/bin/sh
# innoscope adopt: attaches %d table(s) to a running MariaDB %s server (innodb_page_size=%d).
# Usage: sh adopt.sh [mariadb client options, e.g. --no-defaults -uroot -S /run/mysqld/mysqld.sock]
# Run it on the server's host, as a user who may write its data directory (the files are
# copied there and given the owner of their database directory). ADOPT_DATADIR overrides the
# data directory the server reports; MARIADB the client program.
set -eu
KIT=$(cd "$(dirname "$0")" && pwd)
client() { "${MARIADB:-mariadb}" "$@" --batch --skip-column-names; }
fail() { echo "adopt.sh: $*" >&2; exit 1; }
ps=$(client "$@" -e 'SELECT @@innodb_page_size')
[ "$ps" = %d ] || fail "the server's innodb_page_size is $ps, the tables have %d-byte pages: start a server with --innodb-page-size=%d"
ver=$(client "$@" -e 'SELECT VERSION()')
case "$ver" in
%s.*) ;;
*) [ "${ADOPT_ANY_VERSION:-}" = 1 ] || fail "the server is $ver, the tables come from MariaDB %s: use a %s server (ADOPT_ANY_VERSION=1 tries anyway)" ;;
esac
DATADIR=${ADOPT_DATADIR:-$(client "$@" -e 'SELECT @@datadir')}
[ -d "$DATADIR" ] || fail "$DATADIR: the server's data directory is not here: run adopt.sh on the server's host, or set ADOPT_DATADIR"
echo "step 1: CREATE TABLE and DISCARD TABLESPACE ($KIT/%s)"
client "$@" < "$KIT/%s"
echo "step 2: copying the files into $DATADIR"
`, len(k.Attached()), k.Version, k.PageSize, k.PageSize, k.PageSize, k.PageSize, k.Version, k.Version, k.Version, CreateSQL, CreateSQL)
	for _, t := range k.Attached() {
		for _, f := range t.Files {
			dst := `"$DATADIR"/` + shellQuote(f.Target)
			fmt.Fprintf(&b, "[ ! -e %s ] || fail %s\n", dst, shellQuote(f.Target+": still there after DISCARD TABLESPACE"))
			fmt.Fprintf(&b, "cp \"$KIT\"/%s %s\n", shellQuote(f.Kit), dst)
			fmt.Fprintf(&b, "chown --reference=\"$DATADIR\"/%s %s 2>/dev/null || true\n", shellQuote(filepath.Dir(f.Target)), dst)
			fmt.Fprintf(&b, "chmod 660 %s\n", dst)
		}
	}
	// Every line of 2-import.sql's output is a CHECK TABLE result; any but "status OK" (a
	// warning, "Corrupt") means a table did not come out whole.
	fmt.Fprintf(&b, `echo "step 3: IMPORT TABLESPACE and CHECK TABLE ($KIT/%s)"
checked=$(client "$@" < "$KIT/%s")
printf '%%s\n' "$checked"
bad=$(printf '%%s\n' "$checked" | grep -v '	check	status	OK$' || true)
[ -z "$bad" ] || fail "CHECK TABLE did not say OK for every table (above): do not use those tables; drop them and take their rows with innoscope rows FILE.ibd --format sql"
echo "adopt.sh: %d table(s) attached"
`, ImportSQL, ImportSQL, len(k.Attached()))
	return b.String()
}
