package discovery

import (
	"encoding/binary"
	"testing"
)

// FuzzReadUndoHistory: TRX_SYS, rollback segment headers and history lists of any bytes never
// make the history reader panic or loop: every page it reads is the fuzzer's bytes laid over a
// page, with the TRX_SYS slot and the history list pointing where the bytes say.
func FuzzReadUndoHistory(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0, 0, 7, 0, 100}, uint16(200))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, uint16(0))
	f.Fuzz(func(t *testing.T, b []byte, at uint16) {
		read := func(space, no uint32) ([]byte, error) {
			p := make([]byte, 4096)
			binary.BigEndian.PutUint16(p[FilPageType:], pageTypeUndo)
			for i := trxSysRsegs; i < len(p); i += 8 {
				binary.BigEndian.PutUint32(p[i+4:], filNull)
			}
			if len(b) > 0 {
				copy(p[(int(at)+int(no))%(len(p)-len(b)%4096):], b)
			}
			return p, nil
		}
		h, err := ReadUndoHistory(read)
		if err == nil && len(h.Logs) > maxUndoPages {
			t.Fatalf("%d logs", len(h.Logs))
		}
		for _, l := range h.logsOrNil() {
			h.UndoRecordAt(read, RollPtr{Rseg: l.Rseg, Page: l.Page, Offset: l.Offset})
		}
		if rp, err := ParseRollPtr(append(b, 0, 0, 0, 0, 0, 0, 0)[:7]); err == nil && h != nil {
			h.UndoRecordAt(read, rp)
		}
	})
}

// logsOrNil lists the history's logs (none for a nil history).
func (h *UndoHistory) logsOrNil() []UndoLog {
	if h == nil {
		return nil
	}
	var out []UndoLog
	for _, l := range h.Logs {
		out = append(out, l)
	}
	return out
}
