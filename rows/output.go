package rows

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/logformat/redo"
	"innoscope/schema"
)

// TSV writes rows as `mariadb --batch --skip-column-names` prints them: values separated by a
// tab, NULL as NULL, and NUL, tab, newline and backslash escaped as \0 \t \n \\.
func TSV(w *bufio.Writer) func(Row) error {
	var buf []byte
	return func(row Row) error {
		buf = AppendTSV(buf[:0], row)
		_, err := w.Write(buf)
		return err
	}
}

// AppendTSV appends row to dst as one line of TSV (the Formatter of TSV).
func AppendTSV(dst []byte, row Row) []byte {
	for i, v := range row {
		if i > 0 {
			dst = append(dst, '\t')
		}
		if v == nil {
			dst = append(dst, "NULL"...)
			continue
		}
		start := 0
		for i, c := range v {
			if e := tsvEscape[c]; e != "" {
				dst = append(dst, v[start:i]...)
				dst = append(dst, e...)
				start = i + 1
			}
		}
		dst = append(dst, v[start:]...)
	}
	return append(dst, '\n')
}

// tsvEscape is how the client escapes a byte in --batch output ("": as it is).
var tsvEscape = [256]string{0: `\0`, '\t': `\t`, '\n': `\n`, '\\': `\\`}

// JSON writes one JSON object per row, keyed by column name; a value that is not valid UTF-8
// (binary data) is written as {"hex": "..."}.
func JSON(w *bufio.Writer, t *Table) func(Row) error {
	return func(row Row) error {
		m := make(map[string]any, len(row))
		keys := make([]string, len(row))
		for i, v := range row {
			keys[i] = t.Cols[i].Name
			switch {
			case v == nil:
				m[keys[i]] = nil
			case utf8.Valid(v):
				m[keys[i]] = string(v)
			default:
				m[keys[i]] = map[string]string{"hex": fmt.Sprintf("%x", v)}
			}
		}
		w.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				w.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			vb, err := json.Marshal(m[k])
			if err != nil {
				return err
			}
			w.Write(kb)
			w.WriteByte(':')
			w.Write(vb)
		}
		w.WriteString("}\n")
		return nil
	}
}

// SQL writes one INSERT statement per row, after setting what the statements are read in: the
// character set (utf8mb4), the time zone (TIMESTAMPs in UTC) and the SQL mode mysqldump loads
// its dumps in (NO_AUTO_VALUE_ON_ZERO: a 0 stays 0 in an AUTO_INCREMENT column; no
// NO_BACKSLASH_ESCAPES, under which the escapes of the string literals would be read as text).
// Every identifier and every value is written through Quote: identifiers between backticks,
// values as string literals (the server converts them to the column's type), binary strings and
// BIT values as hexadecimal literals. Nothing of a name or a value can end its quotes.
func SQL(w *bufio.Writer, t *Table) func(Row) error {
	prefix := "INSERT INTO " + t.QuotedName() + " VALUES ("
	if len(t.Virtual) > 0 { // the stored columns named: VALUES gives no value for a VIRTUAL one
		names := make([]string, len(t.Cols))
		for i, c := range t.Cols {
			names[i] = QuoteIdent(c.Name)
		}
		prefix = "INSERT INTO " + t.QuotedName() + " (" + strings.Join(names, ",") + ") VALUES ("
	}
	t.TimeZone = time.UTC // a zone's offset can change (DST): TIMESTAMPs are written in UTC
	fmt.Fprintf(w, "SET NAMES utf8mb4;\nSET time_zone = '+00:00';\nSET sql_mode = 'NO_AUTO_VALUE_ON_ZERO';\n")
	binary := make([]bool, len(t.Cols))
	for i, c := range t.Cols {
		binary[i] = c.SQL.Type == schema.MyBit || isString(c.SQL.Type) && charsetOf(schema.Collation(c.InnoDB.PRType)) == csBinary &&
			(c.SQL.DataType == "" || c.SQL.DataType == "vector") // UUID and INET values are written as text
	}
	return func(row Row) error {
		w.WriteString(prefix)
		for i, v := range row {
			if i > 0 {
				w.WriteByte(',')
			}
			switch {
			case t.Cols[i].SQL.Generated:
				w.WriteString("DEFAULT")
			case v == nil:
				w.WriteString("NULL")
			case binary[i]:
				Quote(w, QuoteHex, v)
			default:
				Quote(w, QuoteString, v)
			}
		}
		w.WriteString(");\n")
		return nil
	}
}

// How Quote writes a name or a value.
const (
	// QuoteIdent: an identifier between backticks, a backtick in it doubled (nothing else is
	// special between backticks; the server refuses a NUL in a name).
	QuoteIdentifier = iota
	// QuoteString: a string literal between single quotes, with the escapes the server reads
	// outside NO_BACKSLASH_ESCAPES: \0 \' \\ \n \r \Z (Ctrl-Z, which the Windows client takes
	// for the end of its input).
	QuoteString
	// QuoteHex: a hexadecimal literal (0x...), '' for the empty string.
	QuoteHex
)

// sqlEscape is the escape of a byte in a string literal (QuoteString).
var sqlEscape = [256]string{0: `\0`, '\'': `\'`, '\\': `\\`, '\n': `\n`, '\r': `\r`, 0x1a: `\Z`}

// Quote writes s to w quoted as how says (QuoteIdentifier, QuoteString, QuoteHex): the one place
// names and values of --format sql are quoted.
func Quote(w *bufio.Writer, how int, s []byte) {
	switch how {
	case QuoteIdentifier:
		w.WriteByte('`')
		for _, c := range s {
			if c == '`' {
				w.WriteByte('`')
			}
			w.WriteByte(c)
		}
		w.WriteByte('`')
	case QuoteHex:
		if len(s) == 0 {
			w.WriteString("''")
			return
		}
		fmt.Fprintf(w, "0x%x", s)
	default:
		w.WriteByte('\'')
		for _, c := range s {
			if e := sqlEscape[c]; e != "" {
				w.WriteString(e)
			} else {
				w.WriteByte(c)
			}
		}
		w.WriteByte('\'')
	}
}

// QuoteIdent is name quoted as an identifier (Quote, QuoteIdentifier).
func QuoteIdent(name string) string {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	Quote(w, QuoteIdentifier, []byte(name))
	w.Flush()
	return b.String()
}

// isString: a string type (CHAR, VARCHAR, TEXT, BLOB and their binary forms).
func isString(t byte) bool {
	switch t {
	case schema.MyTinyBlob, schema.MyMediumBlob, schema.MyLongBlob, schema.MyBlob, schema.MyVarchar, schema.MyVarString, schema.MyString:
		return true
	}
	return false
}

// ErrNeedsRecovery is returned by CheckClean for a data directory whose redo log holds changes
// not yet in its datafiles. Unreplayable names the log's format (and Creator the server that
// wrote it) when innoscope does not replay it (MySQL, MariaDB before 10.5): `innoscope recover`
// refuses such a log, so the advice is the server's own recovery.
type ErrNeedsRecovery struct {
	Log                   string
	Unreplayable, Creator string
}

func (e ErrNeedsRecovery) Error() string {
	if e.Unreplayable != "" {
		by := "the server that wrote it"
		if e.Creator != "" {
			by += " (" + e.Creator + ")"
		}
		return fmt.Sprintf("%s: the redo log holds changes not yet in the datafiles (crash recovery needed), and innoscope does not replay %s logs "+
			"(`innoscope recover` refuses them): start %s on a copy of the data directory, let it recover and shut down cleanly, then read the rows of the copy",
			e.Log, e.Unreplayable, by)
	}
	return fmt.Sprintf("%s: the redo log holds changes not yet in the datafiles (crash recovery needed): "+
		"run `innoscope recover DIR --into COPY` first and read the rows of the copy", e.Log)
}

// CheckClean refuses a data directory that needs crash recovery: its pages are not what the
// server would read. A log whose only records after the checkpoint are file records
// (FILE_MODIFY: tablespaces an open transaction kept named at the checkpoint) makes the server
// read it but change no page, so it is not refused, unless the log has an error finding (a
// damage may hide page records).
func CheckClean(s discovery.Layout) error {
	l, err := redo.Open(redo.Location{Arg: s.Datadir, Datadir: s.Datadir, LogDir: s.LogDir})
	if err != nil {
		return err
	}
	defer l.Close()
	st, err := l.Stats(redo.ScanOptions{})
	if err != nil {
		return err
	}
	worst, _ := finding.Worst(st.Findings)
	if st.CrashRecovery && (st.PageRecords > 0 || worst == finding.Error) {
		e := ErrNeedsRecovery{Log: l.Path}
		if l.Replayable() != nil {
			e.Unreplayable, e.Creator = l.Header.FormatName, l.Header.Creator
		}
		return e
	}
	return nil
}

// Options of Dump.
type Options struct {
	Format string // tsv (default), json or sql
	// AllowCrashed reads a directory that needs crash recovery as it is (else it is refused).
	AllowCrashed bool
	// TimeZone is the server's time zone (nil: UTC), in which tsv and json show TIMESTAMPs.
	TimeZone *time.Location
	// Scan reads every leaf page of the clustered index in file order instead of walking
	// the B-tree (Table.Scan).
	Scan bool
	// Uncommitted prints a table that uncommitted transactions changed as stored (else it is
	// refused: CheckCommitted).
	Uncommitted bool
	// Index reads the named secondary index instead of the clustered index (Table.Index).
	Index string
	// Deleted prints the deleted rows still on disk instead of the table's rows (Table.Deleted).
	Deleted bool
}

// Dump writes the rows of table db.name of the data directory of layout s to w in the given
// format, after refusing a directory that needs crash recovery. The Result lists the pages
// whose rows were lost.
func Dump(s discovery.Layout, db, name string, opt Options, out *bufio.Writer) (*Result, error) {
	if !opt.AllowCrashed {
		if err := CheckClean(s); err != nil {
			return nil, err
		}
	}
	t, err := Open(s, db, name)
	if err != nil {
		return nil, err
	}
	if !opt.AllowCrashed && !opt.Uncommitted {
		if err := CheckCommitted(s, t); err != nil {
			return nil, err
		}
	}
	if opt.Deleted {
		if opt.Index != "" || opt.Scan {
			return nil, fmt.Errorf("--deleted reads the clustered index's leaves the B-tree leads to: give it without --index and --scan")
		}
		if opt.TimeZone != nil {
			t.TimeZone = opt.TimeZone
		}
		return t.dumpDeleted(MaxTrxID(s), opt.Format, out)
	}
	if opt.Index != "" {
		if opt.Format == "sql" {
			return nil, fmt.Errorf("--index with --format sql: an index holds only some of the columns, which INSERT ... VALUES cannot load")
		}
		if t, err = t.Index(opt.Index); err != nil {
			return nil, err
		}
	}
	if opt.TimeZone != nil {
		t.TimeZone = opt.TimeZone
	}
	var fn func(Row) error
	switch opt.Format {
	case "", "tsv":
		fn = TSV(out)
	case "json":
		fn = JSON(out, t)
	case "sql":
		fn = SQL(out, t)
	default:
		return nil, fmt.Errorf("unknown --format %q (tsv, json, sql)", opt.Format)
	}
	var res *Result
	switch {
	case opt.Scan:
		res, err = t.Scan(fn)
	case opt.Format == "" || opt.Format == "tsv": // the workers format the rows too
		res, err = t.WalkFormatted(AppendTSV, out)
	default:
		res, err = t.Walk(fn)
	}
	if res != nil && len(t.Virtual) > 0 {
		names := make([]string, len(t.Cols))
		for i, c := range t.Cols {
			names[i] = c.Name
		}
		plural := map[bool]string{true: "s"}[len(t.Virtual) > 1]
		res.Notes = append(res.Notes, fmt.Sprintf("VIRTUAL column%s %s (computed by the server, not stored) left out: the rows hold %s",
			plural, strings.Join(t.Virtual, ", "), strings.Join(names, ", ")))
	}
	if res != nil && err == nil && !opt.Deleted && opt.Index == "" && t.SpaceID != 0 { // not the system tablespace, whose FSP_SIZE spans its files
		shortFile(res, t.File) // a file cut short: its missing pages' rows are lost
	}
	if res != nil && t.Frm == "" {
		res.Notes = append(res.Notes, "the table's .frm is gone: its definition is the InnoDB dictionary's (as `innoscope schema DIR "+t.DB+"."+t.TableName+"` writes it): values print as stored, but what only the .frm keeps is not known: ZEROFILL padding, the decimals of FLOAT(M,D) and DOUBLE(M,D), an odd fractional precision of TIME, DATETIME and TIMESTAMP (printed with one digit more), VIRTUAL columns")
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return res, err
}
