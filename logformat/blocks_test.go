package logformat_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	. "innoscope/logformat"
)

// blockFile builds a MySQL 8.0.30+ redo file of n full blocks and one with tail bytes of data,
// from the layout in mysql-server storage/innobase/include/log0constants.h (header fields,
// LOG_CHECKPOINT_1/2, LOG_CHECKPOINT_LSN, block header and trailer).
func blockFile(n, tail int, epoch uint32) []byte {
	const start = 32755712 // a block-aligned start LSN
	img := make([]byte, 2048+(n+3)*512)
	be := binary.BigEndian
	be.PutUint32(img[0:], FormatMySQL80_30)
	be.PutUint64(img[8:], start)
	copy(img[16:], "MySQL 8.0.33")
	be.PutUint32(img[508:], CRC32C(img[:508]))
	end := uint64(start + n*512 + tail)
	for _, off := range []int{512, 1536} {
		be.PutUint64(img[off+8:], end)
		be.PutUint32(img[off+508:], CRC32C(img[off:off+508]))
	}
	for i := 0; i <= n; i++ {
		b := img[2048+i*512 : 2048+(i+1)*512]
		lsn := uint64(start + i*512)
		be.PutUint32(b, uint32(lsn/512&0x3fffffff)+1)
		dl := 512
		if i == n {
			dl = tail
		}
		be.PutUint16(b[4:], uint16(dl))
		be.PutUint16(b[6:], 12)
		be.PutUint32(b[8:], epoch)
		be.PutUint32(b[508:], CRC32C(b[:508]))
	}
	return img
}

func scanBlockFile(t *testing.T, img []byte) BlockScan {
	l, err := OpenBlockLog(bytes.NewReader(img), int64(len(img)), "f")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := l.ScanBlocks()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestBlockScanEnds(t *testing.T) {
	img := blockFile(10, 44, 1)
	sc := scanBlockFile(t, img)
	if sc.Blocks != 11 || sc.EndLSN != 32755712+10*512+44 || sc.Stop != StopZero || len(sc.RecordGroups) != 11 {
		t.Fatalf("%+v", sc)
	}
	bad := append([]byte(nil), img...)
	bad[2048+3*512+100] ^= 1
	if sc := scanBlockFile(t, bad); sc.Stop != StopChecksum || sc.Blocks != 3 || sc.EndLSN != 32755712+3*512 {
		t.Errorf("checksum: %+v", sc)
	}
	old := blockFile(10, 44, 1)
	copy(old[2048+5*512:], blockFile(10, 44, 2)[2048+5*512:2048+6*512]) // a block of another epoch
	if sc := scanBlockFile(t, old); sc.Stop != StopBlock || sc.Blocks != 5 {
		t.Errorf("epoch: %+v", sc)
	}
	moved := append([]byte(nil), img...)
	copy(moved[2048+7*512:], img[2048+2*512:2048+3*512]) // a stale block from an earlier pass
	if sc := scanBlockFile(t, moved); sc.Stop != StopBlock || sc.Blocks != 7 {
		t.Errorf("block number: %+v", sc)
	}
	img[512+100] ^= 1
	l, _ := OpenBlockLog(bytes.NewReader(img), int64(len(img)), "f")
	if l.Checkpoints[0].Valid || l.Selected != 1 {
		t.Errorf("damaged checkpoint block: %+v", l.Checkpoints)
	}
}
