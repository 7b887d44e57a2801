package finding

import "testing"

func TestVerdict(t *testing.T) {
	u := uint32(3)
	fs := []Finding{
		{Severity: Info, Code: "UNCLEAN_SHUTDOWN", File: "ib_logfile0"},
		{Severity: Error, Code: "CORRUPT_PAGE", File: "a.ibd"},
		{Severity: Error, Code: "SPACE_ID_MISMATCH", File: "b.ibd", SpaceID: &u},
		{Severity: Warning, Code: "ORPHAN_FILE", File: "c.ibd"},
		{Severity: Error, Code: "SPACE_ID_MISMATCH", File: "d.ibd"},
	}
	for _, c := range []struct {
		fs   []Finding
		o    Outcome
		want string
	}{
		{fs, Outcome{Pages: 2449}, "mariadbd will refuse to start: SPACE_ID_MISMATCH in 2 files and 1 other error"},
		{fs[:2], Outcome{}, "mariadbd will start, but tables will fail: CORRUPT_PAGE in 1 file"},
		{fs[3:4], Outcome{Pages: 2449}, "mariadbd will start and apply 2,449 pages, with warnings: ORPHAN_FILE in 1 file"},
		// issue 28 item 17: was "mariadbd will start and nothing to apply, with warnings: ..."
		{fs[3:4], Outcome{}, "mariadbd will start: nothing to recover; warnings: ORPHAN_FILE in 1 file"},
		{fs[3:4], Outcome{RollBack: 1, RowsToUndo: 3}, "mariadbd will start and roll back 1 transaction (3 row operations), with warnings: ORPHAN_FILE in 1 file"},
		{fs[:1], Outcome{Pages: 2449}, "mariadbd will start and apply 2,449 pages"},
		{fs[:1], Outcome{Logged: true}, "mariadbd will start and apply the log to the pages its start-up reads"},
		{nil, Outcome{RollBack: 1, RowsToUndo: 716}, "mariadbd will start and roll back 1 transaction (716 row operations)"},
		{nil, Outcome{Pages: 3, RollBack: 2, RowsToUndo: 1500}, "mariadbd will start and apply 3 pages, then roll back 2 transactions (1,500 row operations)"},
		{nil, Outcome{After: "the replayed copy verified (10 pages)"}, "mariadbd will start: nothing to recover; the replayed copy verified (10 pages)"},
	} {
		if got := MakeVerdict(c.fs, c.o).Sentence; got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
	// Advice that mentions a start is no word that the server starts (the missing log's
	// finding names a salvage "which the server starts on": still a refusal).
	advice := Finding{Severity: Error, Code: "LOG_UNREADABLE", Message: "no redo log; MariaDB refuses to start without it; or recover --salvage makes a copy which the server starts on"}
	starts := Finding{Severity: Error, Code: "SPACE_ID_MISMATCH", Message: "page 0 is all zero; the server starts and the table is unusable"}
	if !refuses(advice) || refuses(starts) {
		t.Errorf("refuses: advice %v, starts %v", refuses(advice), refuses(starts))
	}
	s := SortFindings(fs)
	want := []string{"SPACE_ID_MISMATCH", "SPACE_ID_MISMATCH", "CORRUPT_PAGE", "ORPHAN_FILE", "UNCLEAN_SHUTDOWN"}
	for i, f := range s {
		if f.Code != want[i] {
			t.Errorf("sorted %d: %s, want %s", i, f.Code, want[i])
		}
	}
}

func TestThousands(t *testing.T) {
	if got := Thousands(1234567); got != "1,234,567" {
		t.Errorf("Thousands: %s", got)
	}
}
