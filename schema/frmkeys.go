package schema

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// FrmKeyPart is one part of a key of a .frm: the field (0-based, among all fields of the .frm),
// the length of the key part in bytes, and whether it is in descending order.
type FrmKeyPart struct {
	Field  int
	Length int
	Desc   bool
}

// FrmKey is one key (index) of a .frm.
type FrmKey struct {
	Name   string
	Unique bool   // HA_NOSAME
	Flags  uint16 // the key's flags (HA_FULLTEXT 0x80, HA_SPATIAL 0x400, ...), HA_NOSAME as the server has it
	Parts  []FrmKeyPart
}

// The key section of a .frm (open_binary_frm, sql/table.cc): at the offset in bytes 6-7 of the
// header, of the length in bytes 28-29 (a 4-byte length at 47 when that is 0xffff): the number
// of keys and of key parts (1 byte each; with bit 7 of the first set, 2 bytes each:
// (byte1 << 7) | (byte0 & 0x7f) keys and a 2-byte count of parts), 2 bytes, 2 bytes of extra
// length; then per key 8 bytes (flags (2), length (2), number of parts (1), algorithm (1),
// block size (2); HA_NOSAME (1) is stored inverted) followed by 9 bytes per part (field number (2, low 14 bits, 1-based), offset
// in the record + 1 (2), flags (1: HA_REVERSE_SORT 0x80 for DESC), key type (2), length (2));
// after all keys the key names, each led by 0xff, ended by a NUL.
const (
	frmKeyHeader   = 6
	frmKeyDef      = 8
	frmKeyPartDef  = 9
	haNoSame       = 1
	haReverseSort  = 0x80
	fieldNumberMsk = 0x3fff
)

// ReadFrmKeys reads the keys of the .frm at path.
func ReadFrmKeys(path string) ([]FrmKey, error) {
	b, err := readFrmImage(path)
	if err != nil {
		return nil, err
	}
	return parseFrmKeys(b, path)
}

func parseFrmKeys(b []byte, path string) ([]FrmKey, error) {
	le := binary.LittleEndian
	bad := func(off int, what string) error { return fmt.Errorf("%s: offset %d: %s", path, off, what) }
	if len(b) < frmHeader || b[0] != 0xfe || b[1] != 1 {
		return nil, bad(0, "not a .frm file")
	}
	at, n := int(le.Uint16(b[6:])), int(le.Uint16(b[28:]))
	if n == 0xffff && len(b) >= 51 {
		n = int(le.Uint32(b[47:]))
	}
	if at < frmHeader || at+frmKeyHeader > len(b) || at+n > len(b) || n < frmKeyHeader {
		return nil, bad(6, fmt.Sprintf("key section at %d of %d bytes out of the file", at, n))
	}
	k := b[at : at+n]
	keys, parts := int(k[0]), int(k[1])
	if k[0]&0x80 != 0 {
		keys, parts = int(k[1])<<7|int(k[0]&0x7f), int(le.Uint16(k[2:]))
	}
	out := make([]FrmKey, 0, min(keys, 1024))
	pos, total := frmKeyHeader, 0
	for i := 0; i < keys; i++ {
		if pos+frmKeyDef > len(k) {
			return nil, bad(at+pos, fmt.Sprintf("key %d of %d runs past the key section", i+1, keys))
		}
		flags, np := le.Uint16(k[pos:]), int(k[pos+4])
		key := FrmKey{Unique: flags&haNoSame == 0, Flags: flags ^ haNoSame} // the .frm keeps HA_NOSAME inverted
		pos += frmKeyDef
		for j := 0; j < np; j++ {
			if pos+frmKeyPartDef > len(k) {
				return nil, bad(at+pos, fmt.Sprintf("key %d part %d runs past the key section", i+1, j+1))
			}
			nr := int(le.Uint16(k[pos:]) & fieldNumberMsk)
			if nr == 0 {
				return nil, bad(at+pos, fmt.Sprintf("key %d part %d: field number 0", i+1, j+1))
			}
			key.Parts = append(key.Parts, FrmKeyPart{Field: nr - 1, Length: int(le.Uint16(k[pos+7:])), Desc: k[pos+4]&haReverseSort != 0})
			pos += frmKeyPartDef
		}
		total += np
		out = append(out, key)
	}
	if total != parts {
		return nil, bad(at+1, fmt.Sprintf("%d key parts, the header says %d", total, parts))
	}
	if keys > 0 {
		if pos >= len(k) || k[pos] != 0xff {
			return nil, bad(at+pos, "no key names")
		}
		end := bytes.IndexByte(k[pos:], 0)
		if end < 0 {
			end = len(k) - pos
		}
		names := splitSep(k[pos : pos+end])
		if len(names) < keys {
			return nil, bad(at+pos, fmt.Sprintf("%d key names for %d keys", len(names), keys))
		}
		for i := range out {
			out[i].Name = names[i]
		}
	}
	return out, nil
}
