package view

import (
	"fmt"
	"strings"

	"innoscope/changes"
	"innoscope/report"
)

// ledgerLines is how many lost transactions the text block lists one by one.
const ledgerLines = 10

// printLedger prints the loss ledger under the findings: what a recovery stopping at the cut
// loses, in rows (nothing for no ledger).
func printLedger(out *report.Output, l *changes.Ledger) {
	if l == nil {
		return
	}
	w := out.Writer()
	head := fmt.Sprintf("lost in rows where recovery stops (LSN %d, %s):", l.CutLSN, l.Finding)
	switch {
	case l.Error != "":
		fmt.Fprintf(w, "%s not known: %s\n", head, l.Error)
		return
	case len(l.Transactions) == 0 && l.ReadToLSN == 0:
		fmt.Fprintf(w, "%s unknown\n", head)
	case len(l.Transactions) == 0:
		fmt.Fprintf(w, "%s no committed transaction in the readable log after it (read to LSN %d)\n", head, l.ReadToLSN)
	default:
		n := 0
		for _, t := range l.Transactions {
			for _, tl := range t.Tables {
				n += tl.Rows()
			}
		}
		fmt.Fprintf(w, "%s %s committed after it (read to LSN %d), %s\n", head,
			count(len(l.Transactions), "transaction", "transactions"), l.ReadToLSN, count(n, "row change", "row changes"))
		for i, t := range l.Transactions {
			if i == ledgerLines {
				fmt.Fprintf(w, "  and %s more\n", count(len(l.Transactions)-i, "transaction", "transactions"))
				break
			}
			fmt.Fprintf(w, "  trx %d, committed at LSN %d: %s\n", t.ID, t.CommitLSN, tableLosses(t.Tables))
		}
		if len(l.Transactions) > 1 {
			fmt.Fprintf(w, "  by table: %s\n", tableLosses(l.ByTable()))
		}
	}
	for i, t := range l.MaybeLost {
		if i == ledgerLines {
			fmt.Fprintf(w, "  and %s more open ones\n", count(len(l.MaybeLost)-i, "transaction", "transactions"))
			break
		}
		fmt.Fprintf(w, "  trx %d, open at the end of what could be read, all its changes before LSN %d: lost too if the unreadable part held its commit: %s\n",
			t.ID, l.CutLSN, tableLosses(t.Tables))
	}
	if l.Unknown != "" {
		fmt.Fprintf(w, "  %s\n", l.Unknown)
	}
	if l.Command != "" {
		fmt.Fprintln(w, "  their changes row by row:")
		out.Unwrapped("    " + l.Command)
	}
}

// tableLosses says the row changes of each table: "db.a 3 inserts, 1 update; db.b 2 deletes".
func tableLosses(ts []changes.TableLoss) string {
	var parts []string
	for _, tl := range ts {
		var ops []string
		for _, o := range []struct {
			n         int
			one, many string
		}{{tl.Inserts, "insert", "inserts"}, {tl.Updates, "update", "updates"}, {tl.Deletes, "delete", "deletes"}} {
			if o.n > 0 {
				ops = append(ops, count(o.n, o.one, o.many))
			}
		}
		if tl.Inexact > 0 {
			ops = append(ops, fmt.Sprintf("%d not decoded exactly", tl.Inexact))
		}
		parts = append(parts, tl.Table+" "+strings.Join(ops, ", "))
	}
	return strings.Join(parts, "; ")
}
