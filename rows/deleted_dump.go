package rows

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
)

// dumpDeleted writes the deleted rows of t (Table.Deleted) in the given format: tsv and sql as
// Dump writes rows; json one object per row, {"source", "page", "offset", "trx_id", "row"},
// then one {"summary": DeletedStats} object. Result.Notes says what was found and what was not
// printed.
func (t *Table) dumpDeleted(maxTrx uint64, format string, out *bufio.Writer) (*Result, error) {
	var fn func(DeletedRow) error
	switch format {
	case "", "tsv":
		w := TSV(out)
		fn = func(d DeletedRow) error { return w(d.Row) }
	case "sql":
		w := SQL(out, t)
		fn = func(d DeletedRow) error { return w(d.Row) }
	case "json":
		w := wrappedJSON(out, t)
		fn = func(d DeletedRow) error {
			src, _ := json.Marshal(d.Source)
			return w(fmt.Sprintf(`"source":%s,"page":%d,"offset":%d,"trx_id":%d`, src, d.Page, d.Offset, d.TrxID), d.Row)
		}
	default:
		return nil, fmt.Errorf("unknown --format %q (tsv, json, sql)", format)
	}
	res, st, err := t.Deleted(maxTrx, fn)
	if err != nil {
		return res, err
	}
	if format == "json" {
		b, _ := json.Marshal(map[string]any{"summary": st})
		out.Write(b)
		out.WriteByte('\n')
	}
	res.Notes = append(res.Notes, st.summary(res.Rows))
	return res, out.Flush()
}

// wrappedJSON writes a row as one object, {HEAD,"row":{...}}: the fields head gives (where the
// row was found), then the row as JSON writes it.
func wrappedJSON(out *bufio.Writer, t *Table) func(head string, row Row) error {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	w := JSON(bw, t)
	return func(head string, row Row) error {
		buf.Reset()
		if err := w(row); err != nil {
			return err
		}
		bw.Flush()
		out.WriteString("{" + head + `,"row":`)
		out.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		_, err := out.WriteString("}\n")
		return err
	}
}

// summary is what --deleted found, in a sentence.
func (st *DeletedStats) summary(n int64) string {
	s := fmt.Sprintf("%d deleted rows printed (%d delete-marked, not yet purged; %d from page free lists; %d carved from unused page space)",
		n, st.DeleteMarked, st.FreeList, st.Carved)
	if st.LiveKeys > 0 {
		s += fmt.Sprintf("; %d images of keys that are live rows left out (older versions, not deleted rows)", st.LiveKeys)
	}
	if st.Older > 0 {
		s += fmt.Sprintf("; %d older images of printed keys left out", st.Older)
	}
	if st.Undecodable > 0 {
		s += fmt.Sprintf("; %d records that do not decode exactly as the table's (overwritten bytes, an unreadable off-page value) not printed", st.Undecodable)
	}
	if st.Unsure > 0 {
		s += fmt.Sprintf("; %d images whose key lies where a lost leaf page held keys (they may be live rows) not printed", st.Unsure)
	}
	if st.Zeroed > 0 {
		s += fmt.Sprintf("; %d freed records (purged, or moved by an update) whose data the server zeroed when it freed them (only their headers are left)", st.Zeroed)
	}
	if st.NotCarved > 0 {
		s += fmt.Sprintf("; %d ROW_FORMAT=COMPRESSED pages: only their delete-marked records were read (no free list or unused space)", st.NotCarved)
	}
	return s
}
