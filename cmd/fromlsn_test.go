package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/logformat"
	"innoscope/logformat/logformattest"
)

// TestFromLSNBeforeRing: `log records --from-lsn 1` on ib_logfileN rings (built byte by byte
// as in TestRingLogDirectory: MySQL 5.7, MariaDB 10.4, format 0, and MariaDB 10.5's 10.8
// records in blocks) lists every mini-transaction the ring still holds, from the first one of
// its oldest block, and says on stderr that it starts there: the same records as --from-lsn
// at that mini-transaction. Before, the walk started at the block of LSN 0, which is no block
// of the log, and nothing was decoded, silently. Both a ring that has not wrapped and one whose
// oldest blocks were overwritten.
func TestFromLSNBeforeRing(t *testing.T) {
	for _, c := range []struct {
		name    string
		format  uint32
		creator string
	}{
		{"MySQL 5.7", logformat.FormatMySQL57, "MySQL 5.7.44"},
		{"MariaDB 10.4", logformat.FormatMariaDB104, "MariaDB 10.4.34"},
		{"format 0", logformat.FormatLegacy, ""},
		{"MariaDB 10.5", logformat.FormatMariaDB105, "MariaDB 10.5.23"},
	} {
		for _, mtrs := range []int{10, 1500} {
			t.Run(fmt.Sprintf("%s/%d", c.name, mtrs), func(t *testing.T) {
				const start, files, size = 512 * 6000, 2, 2048 + 8*512
				b, err := logformattest.NewMLogBuilder(start, c.creator)
				if err != nil {
					t.Fatal(err)
				}
				var lsns []uint64
				for i := 0; i < mtrs; i++ {
					if c.format == logformat.FormatMariaDB105 {
						lsns = append(lsns, b.AddPhysMTR(logformattest.PageRecord(logformat.Write, false, 5, uint32(3+i),
							append(logformat.AppendVarint(nil, 100), make([]byte, 30)...))))
					} else {
						lsns = append(lsns, b.AddMTR(logformattest.MLogPageRecord(logformat.MLog2Bytes, 9, uint32(3+i), []byte{0, 24, 0x81, 0x02})))
					}
				}
				dir := t.TempDir()
				for k, img := range b.Ring(c.format, files, size, 3*512, lsns[len(lsns)-1], 42) {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("ib_logfile%d", k)), img, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				// The oldest block the ring holds, and the first mini-transaction starting in it.
				capacity := uint64(files * (size - 2048))
				oldest := uint64(start)
				if end := (b.EndLSN() + 511) / 512 * 512; end >= start+capacity {
					oldest = end - capacity
				}
				first := lsns[0]
				for _, l := range lsns {
					if l >= oldest {
						first = l
						break
					}
				}
				if (mtrs > 1000) != (first > lsns[0]) {
					t.Fatalf("the ring should wrap exactly with %d mini-transactions (oldest block %d)", mtrs, oldest)
				}
				want, _, _ := run("log", "records", "--json", "--from-lsn", fmt.Sprint(first), dir)
				got, errs, _ := run("log", "records", "--json", "--from-lsn", "1", dir)
				if n := strings.Count(got, "\n"); got != want || n == 0 || !strings.Contains(errs, fmt.Sprintf("oldest block the log holds (LSN %d)", oldest)) {
					t.Errorf("--from-lsn 1: %d records, want those from LSN %d (%d)\nstderr: %s", n, first, strings.Count(want, "\n"), errs)
				}
				if !strings.Contains(got, fmt.Sprintf(`"mtr_lsn":%d,`, first)) {
					t.Errorf("--from-lsn 1 does not start at LSN %d:\n%.300s", first, got)
				}
			})
		}
	}
}
