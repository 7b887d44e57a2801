package adopt

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptFailsOnCheck: adopt.sh exits non-zero, naming no table as attached, when a CHECK
// TABLE line of 2-import.sql's output is not "status OK" (MariaDB 10.5 imported an
// instant-altered table as a corrupt B-tree and the script said it was attached), and zero when
// every line is. The client is a stand-in answering the script's queries.
func TestScriptFailsOnCheck(t *testing.T) {
	for _, c := range []struct {
		name, check string
		ok          bool
	}{
		{"ok", "db.t\tcheck\tstatus\tOK", true},
		{"corrupt", "db.t\tcheck\tWarning\tInnoDB: The B-tree of index PRIMARY is corrupted.\ndb.t\tcheck\terror\tCorrupt", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "src", "t.ibd")
			data := filepath.Join(dir, "data")
			os.MkdirAll(filepath.Dir(src), 0o755)
			os.MkdirAll(filepath.Join(data, "db"), 0o755)
			os.WriteFile(src, make([]byte, 16384), 0o644)
			k := &Kit{Version: "10.11", PageSize: 16384, Sources: []string{filepath.Dir(src)}, Tables: []Table{{
				DB: "db", Name: "t", Create: "CREATE TABLE `t` (id INT PRIMARY KEY)",
				Files: []File{{Source: src, Kit: "files/db/t.ibd", Target: "db/t.ibd", Size: 16384}},
			}}}
			kit := filepath.Join(dir, "kit")
			if err := k.Write(kit); err != nil {
				t.Fatal(err)
			}
			client := filepath.Join(dir, "client.sh")
			os.WriteFile(client, []byte(`#!/bin/sh
case "$*" in
*innodb_page_size*) echo 16384 ;;
*VERSION*) echo 10.11.6-MariaDB ;;
*datadir*) echo "`+data+`/" ;;
*) cat >/dev/null; if [ -e "$MARK" ]; then printf '%s\n' "$CHECK"; fi; touch "$MARK" ;; # 1-create.sql, then 2-import.sql
esac
`), 0o755)
			cmd := exec.Command("sh", filepath.Join(kit, Script))
			cmd.Env = append(os.Environ(), "MARIADB="+client, "CHECK="+c.check, "MARK="+filepath.Join(dir, "mark"))
			out, err := cmd.CombinedOutput()
			attached := strings.Contains(string(out), "table(s) attached")
			if (err == nil) != c.ok || attached != c.ok {
				t.Errorf("adopt.sh: %v, attached said %v; want success %v\n%s", err, attached, c.ok, out)
			}
			if !c.ok && !strings.Contains(string(out), "CHECK TABLE did not say OK") {
				t.Errorf("adopt.sh does not say why it failed:\n%s", out)
			}
		})
	}
}
