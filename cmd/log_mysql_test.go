package cmd

import (
	"encoding/binary"
	"os"
	"testing"

	"innoscope/logformat"
)

// TestMySQLBlockLog reads the real MySQL 8.0.33 redo file: the header and both checkpoint blocks
// verify, recovery's checkpoint is the larger one, every block from the start LSN verifies
// (checksum, block number, epoch), and the walk stops at the last written block, after which the
// file holds only zeros. The expected values come from the file's own bytes (start LSN at 8,
// checkpoint LSNs at 512+8 and 1536+8), not from innoscope.
func TestMySQLBlockLog(t *testing.T) {
	p := peerFixture(t, "mysql-8.0.33-docker-sample/#ib_redo10")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var h headerJSON
	runJSON(t, &h, "log", "header", "--json", p)
	be := binary.BigEndian
	start, cp1, cp2 := be.Uint64(raw[8:]), be.Uint64(raw[512+8:]), be.Uint64(raw[1536+8:])
	want := cp1
	if cp2 > want {
		want = cp2
	}
	if h.Format != "MySQL 8.0.30+" || h.Creator != "MySQL 8.0.33" || h.FirstLSN != start || !h.HeaderCRCValid ||
		h.CheckpointLSN == nil || *h.CheckpointLSN != want || len(h.Checkpoints) != 2 || !h.Checkpoints[0].Valid || !h.Checkpoints[1].Valid {
		t.Fatalf("header %+v (checkpoints %d, %d)", h, cp1, cp2)
	}
	b := h.Blocks
	if b == nil || b.StopReason != string(logformat.StopZero) {
		t.Fatalf("blocks %+v", b)
	}
	last := int64(2048 + (b.Count-1)*512)
	if b.StopOffset != last || b.EndLSN != start+uint64(last-2048)+uint64(be.Uint16(raw[last+4:])) {
		t.Errorf("blocks %+v, last block at %d", b, last)
	}
	for i := last + 512; i < int64(len(raw)); i++ {
		if raw[i] != 0 {
			t.Fatalf("byte %d after the last block is %#x: the walk stopped before the end of the written data", i, raw[i])
		}
	}
	t.Logf("%d blocks, data ends at LSN %d; checkpoint %d", b.Count, b.EndLSN, want)
}
