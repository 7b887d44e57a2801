package logformattest

import "innoscope/logformat"

// appendHeader appends a record's type byte and length; rest is the number of bytes that
// follow the type byte and the length. Up to 15 fit in the type byte; beyond, the type byte
// says 0 and a varint v follows, where v + 15 counts the varint itself and the rest.
func appendHeader(dst []byte, typ byte, rest int) []byte {
	if rest <= 15 {
		return append(dst, typ|byte(rest))
	}
	for n := 1; n <= 3; n++ {
		if enc := logformat.AppendVarint(nil, uint32(rest+n-15)); len(enc) == n {
			return append(append(dst, typ), enc...)
		}
	}
	panic("logformattest: record longer than the format allows")
}

// PageRecord encodes a page record: type t, same-page flag, page id (omitted when samePage)
// and payload (the bytes after the page id, e.g. offset varint and data for WRITE).
func PageRecord(t logformat.Type, samePage bool, space, page uint32, payload []byte) []byte {
	var id []byte
	typ := byte(t)
	if samePage {
		typ |= 0x80
	} else {
		id = logformat.AppendVarint(logformat.AppendVarint(nil, space), page)
	}
	out := appendHeader(nil, typ, len(id)+len(payload))
	return append(append(out, id...), payload...)
}

// FileRecord encodes FILE_CREATE/DELETE/MODIFY (name) or FILE_RENAME (name, newName).
func FileRecord(t logformat.Type, space uint32, name, newName string) []byte {
	body := logformat.AppendVarint(logformat.AppendVarint(nil, space), 0)
	body = append(body, name...)
	if t == logformat.FileRename {
		body = append(append(body, 0), newName...)
	}
	return append(appendHeader(nil, byte(t), len(body)), body...)
}
