package redo

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"innoscope/logformat"
)

// open opens the log of the data directory or file at p (skipped when absent).
func open(t *testing.T, p string) *Log {
	t.Helper()
	p, _ = filepath.Abs(p)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s: %v", p, err)
	}
	dir := p
	if fi, _ := os.Stat(p); !fi.IsDir() {
		dir = filepath.Dir(p)
	}
	l, err := Open(Location{Arg: p, Datadir: dir, PageSize: 16384, PageSizeSource: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// records lists the log's records from the LSN from in the common shape, with the end.
func records(t *testing.T, l *Log, from uint64) (int, End) {
	t.Helper()
	rs, err := l.Records(ScanOptions{From: from})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ls, err := rs.Each(Filter{Space: -1, Page: -1}, func(*Record) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return n, ls.End
}

// TestOpenMariaDB108 opens the committed crash of the real MariaDB 10.11 server through the one
// entry: it is read by the 10.8+ reader, and the records, the stats and that reader agree on
// where the log ends.
func TestOpenMariaDB108(t *testing.T) {
	l := open(t, "../../fixtures/mariadb-10.11-crash")
	if l.V108() == nil || l.Blocks() != nil || l.Replayable() != nil {
		t.Fatalf("%s: not opened as a MariaDB 10.8+ log", l.Path)
	}
	cp, ok := l.Checkpoint()
	if !ok {
		t.Fatalf("%s: no checkpoint", l.Path)
	}
	n, end := records(t, l, 0)
	st, err := l.Stats(ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc := l.V108().Scan(cp.LSN, logformat.ScanOptions{PageSize: 16384})
	for sc.Next() {
	}
	if n != st.RecordCount || end.LSN != st.EndLSN || end.LSN != sc.LSN() || !end.OffsetKnown || st.Blocks {
		t.Fatalf("records %d to %d (%+v), stats %d to %d, scanner to %d", n, end.LSN, end, st.RecordCount, st.EndLSN, sc.LSN())
	}
}

// TestOpenMySQL8 opens a real MySQL 8.0.33 #ib_redoN file (peer fixtures) through the same
// entry: a log of blocks whose records recovery does not replay here, listed in the same shape.
func TestOpenMySQL8(t *testing.T) {
	l := open(t, "../../../shared/peer-fixtures/mysql-8.0.33-docker-sample/#ib_redo10")
	if l.V108() != nil || l.Blocks() == nil || !errors.Is(l.Replayable(), logformat.ErrUnsupported) {
		t.Fatalf("%s: not opened as a MySQL log of blocks", l.Path)
	}
	n, end := records(t, l, 1)
	st, err := l.Stats(ScanOptions{From: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || n != st.RecordCount || end.LSN < st.EndLSN || end.OffsetKnown || !st.Blocks {
		t.Fatalf("records %d to %+v, stats %d to %d", n, end, st.RecordCount, st.EndLSN)
	}
}
