package main

import (
	"reflect"
	"strings"
	"testing"
)

// The workload is a function of the seed alone, and the seeds together cover every kind of
// table and statement the sweep is meant to crash in.
func TestGenerateDeterministic(t *testing.T) {
	if !reflect.DeepEqual(Generate(42, "/ext"), Generate(42, "/ext")) {
		t.Fatal("seed 42 gave two workloads")
	}
	if reflect.DeepEqual(Generate(42, "/ext"), Generate(43, "/ext")) {
		t.Fatal("seeds 42 and 43 gave the same workload")
	}
	var all strings.Builder
	for seed := uint64(1); seed <= 20; seed++ {
		w := Generate(seed, "/ext")
		all.WriteString(strings.Join(w.Options, "\n") + w.Setup + w.Sessions[0] + w.Sessions[1])
		if w.DelayMS < 3000 || w.DelayMS > 23000 {
			t.Errorf("seed %d: delay %d ms", seed, w.DelayMS)
		}
	}
	for _, want := range []string{"ROW_FORMAT=COMPRESSED", "ROW_FORMAT=REDUNDANT", "ROW_FORMAT=COMPACT",
		"ROW_FORMAT=DYNAMIC", "PAGE_COMPRESSED=1", "DATA DIRECTORY='/ext'", "PARTITION BY RANGE",
		"PARTITION BY HASH", "ALGORITHM=INSTANT", "ALGORITHM=COPY", "ALGORITHM=INPLACE", "TRUNCATE TABLE",
		"DROP TABLE", "RENAME TABLE db1.", "EXCHANGE PARTITION", "ADD PARTITION", "ROLLBACK",
		"innodb_log_checkpoint_now", "--innodb-log-file-size=4M", "--innodb-undo-tablespaces=",
		"--innodb-checksum-algorithm=crc32"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no workload of seeds 1-20 has %q", want)
		}
	}
}
