package cmd

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// checkCutBeforeImage runs `log changes` on the crash in dir from the checkpoint cp to just
// after the undo record of each update and delete of db.t_inst that the whole window decoded
// exactly (whole), so that the change's row image, written by the next mini-transaction, is not
// in the window. Its key and old values must still be the whole window's, column names
// included: after the table's instant ADD ... AFTER and DROP an undo record numbers its fields
// physically, and with no row image they are read with the layout the index's metadata record
// gives (before, with the dictionary's: "field 5: the clustered index has 5 fields"). The
// change must say its row is not there.
func checkCutBeforeImage(t *testing.T, dir, cp string, whole []innoTrx) {
	t.Helper()
	checked := 0
	for _, tr := range whole {
		for _, ch := range tr.Changes {
			if ch.Table != "db.t_inst" || ch.Inexact != "" || ch.Op != "update" && ch.Op != "delete" {
				continue
			}
			checked++
			out, errs, code := run("log", "changes", "--from-lsn", cp, "--to-lsn", fmt.Sprint(ch.LSN+1), "--table", "db.t_inst", "--json", dir)
			if code != ExitClean {
				t.Errorf("log changes --to-lsn %d: exit %d: %s", ch.LSN+1, code, errs)
				continue
			}
			var doc struct {
				Transactions []innoTrx `json:"transactions"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var cut *innoChange
			for _, ct := range doc.Transactions {
				for i := range ct.Changes {
					if ct.ID == tr.ID && ct.Changes[i].LSN == ch.LSN {
						cut = &ct.Changes[i]
					}
				}
			}
			switch {
			case cut == nil:
				t.Errorf("--to-lsn %d: trx %d's %s at LSN %d is not listed:\n%s", ch.LSN+1, tr.ID, ch.Op, ch.LSN, out)
			case !reflect.DeepEqual(cut.Key, ch.Key) || !reflect.DeepEqual(cut.Old, ch.Old):
				t.Errorf("--to-lsn %d: trx %d's %s at LSN %d: key %v old %v (inexact %q); the whole window's: key %v old %v",
					ch.LSN+1, tr.ID, ch.Op, ch.LSN, cut.Key, cut.Old, cut.Inexact, ch.Key, ch.Old)
			case cut.Inexact == "" || len(cut.Row) > 0:
				t.Errorf("--to-lsn %d: trx %d's %s at LSN %d: row %v, inexact %q: want no row and a word why", ch.LSN+1, tr.ID, ch.Op, ch.LSN, cut.Row, cut.Inexact)
			}
		}
	}
	if checked == 0 {
		t.Errorf("no exact update or delete of db.t_inst to cut the window after")
	}
	t.Logf("%d changes of db.t_inst read again with the window cut before their row image", checked)
}
