package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// FromCreateTable reads a table's definition from a CREATE TABLE statement (what SHOW CREATE
// TABLE prints): the columns with their SQL types, and the clustered index (the PRIMARY KEY,
// else the first UNIQUE key of NOT NULL columns, else none: DB_ROW_ID). The InnoDB types are
// derived as the server derives them (frmInnoDB). The types read are the integer types, FLOAT,
// DOUBLE, DECIMAL, CHAR/VARCHAR/BINARY/VARBINARY, the TEXT and BLOB types, DATE, TIME,
// DATETIME, TIMESTAMP and YEAR, with their character sets and collations; anything else is
// refused with the column named. path names the statement's file in errors. The table has no
// file, index id or root: the caller sets them.
func FromCreateTable(sql, path string) (*Table, error) {
	toks, err := sqlTokens(sql)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	i := 0
	for i+1 < len(toks) && !(strings.EqualFold(toks[i], "CREATE") && strings.EqualFold(toks[i+1], "TABLE")) {
		i++
	}
	if i+1 >= len(toks) {
		return nil, fmt.Errorf("%s: no CREATE TABLE statement", path)
	}
	i += 2
	for i < len(toks) && isWord(toks[i], "IF", "NOT", "EXISTS") {
		i++
	}
	var name []string
	for i < len(toks) && toks[i] != "(" {
		if toks[i] != "." {
			name = append(name, unquote(toks[i]))
		}
		i++
	}
	if i >= len(toks) || len(name) == 0 {
		return nil, fmt.Errorf("%s: CREATE TABLE without a column list", path)
	}
	end := matching(toks, i)
	if end < 0 {
		return nil, fmt.Errorf("%s: unbalanced parentheses in CREATE TABLE", path)
	}
	defColl := tableCollation(toks[end+1:])
	t := &Table{TableName: name[len(name)-1], Compact: true}
	if len(name) > 1 {
		t.DB = name[0]
	}
	t.Shown = strings.TrimPrefix(t.DB+"."+t.TableName, ".")
	t.Name = FileName(t.DB) + "/" + FileName(t.TableName)
	var frm []FrmColumn
	var pk, unique [][]string
	for _, def := range splitTop(toks[i+1 : end]) {
		if len(def) == 0 {
			continue
		}
		switch w := strings.ToUpper(def[0]); {
		case w == "PRIMARY":
			pk = append(pk, keyCols(def))
		case w == "UNIQUE":
			unique = append(unique, keyCols(def))
		case w == "KEY" || w == "INDEX" || w == "CONSTRAINT" || w == "FOREIGN" || w == "FULLTEXT" || w == "SPATIAL" || w == "CHECK" || w == "PERIOD":
		default:
			c, inPK, err := sqlColumn(def, defColl)
			if err != nil {
				return nil, fmt.Errorf("%s: column %s: %v", path, unquote(def[0]), err)
			}
			if inPK {
				pk = append(pk, []string{c.Name})
			}
			frm = append(frm, c)
		}
	}
	byName := map[string]int{}
	for n, c := range frm {
		dc, err := frmInnoDB(c, uint32(n))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		byName[strings.ToLower(c.Name)] = n
		t.Cols = append(t.Cols, Column{Name: c.Name, SQL: c.SQLType, InnoDB: dc})
	}
	key := []string(nil)
	if len(pk) > 0 {
		key = pk[0]
	}
	for _, u := range unique {
		if key != nil {
			break
		}
		ok := true
		for _, c := range u {
			n, found := byName[strings.ToLower(c)]
			ok = ok && found && t.Cols[n].InnoDB.PRType&DataNotNull != 0
		}
		if ok {
			key = u
		}
	}
	t.Clustered = Index{Name: "GEN_CLUST_INDEX", Type: IndexClustered}
	if key != nil {
		t.Clustered.Name, t.Clustered.Type = "PRIMARY", IndexClustered|IndexUnique
	}
	for _, c := range key {
		n, ok := byName[strings.ToLower(c)]
		if !ok {
			return nil, fmt.Errorf("%s: key column %s is not a column of the table", path, c)
		}
		t.PK = append(t.PK, n)
		t.Clustered.Fields = append(t.Clustered.Fields, IndexField{Col: t.Cols[n].Name})
	}
	return t, nil
}

// sqlColumn reads one column definition: name, type, then attributes. It returns whether the
// column says PRIMARY KEY.
func sqlColumn(def []string, defColl int) (FrmColumn, bool, error) {
	c := FrmColumn{Name: unquote(def[0])}
	if len(def) < 2 {
		return c, false, fmt.Errorf("no type")
	}
	typ := strings.ToUpper(def[1])
	var args []int
	j := 2
	if j < len(def) && def[j] == "(" {
		e := matching(def, j)
		if e < 0 {
			return c, false, fmt.Errorf("unbalanced parentheses")
		}
		for _, a := range def[j+1 : e] {
			if a == "," {
				continue
			}
			n, err := strconv.Atoi(a)
			if err != nil {
				return c, false, fmt.Errorf("type %s(%s...): not read by --schema", typ, a)
			}
			args = append(args, n)
		}
		j = e + 1
	}
	arg := func(k, d int) int {
		if k < len(args) {
			return args[k]
		}
		return d
	}
	nullable, inPK, unsigned, coll := true, false, false, 0
	for ; j < len(def); j++ {
		switch w := strings.ToUpper(def[j]); w {
		case "UNSIGNED":
			unsigned = true
		case "NOT":
			if j+1 < len(def) && strings.EqualFold(def[j+1], "NULL") {
				nullable = false
				j++
			}
		case "PRIMARY":
			inPK, nullable = true, false
		case "CHARACTER", "CHARSET":
			if w == "CHARACTER" {
				j++
			}
			if j+1 < len(def) {
				coll = charsetCollation(def[j+1])
				j++
			}
		case "COLLATE":
			if j+1 < len(def) {
				coll = collationID(def[j+1])
				j++
			}
		}
	}
	if coll == 0 {
		coll = defColl
	}
	_, mbMax := mariaWidth(coll)
	ty := map[string]byte{"TINYINT": MyTiny, "BOOL": MyTiny, "BOOLEAN": MyTiny, "SMALLINT": MyShort, "MEDIUMINT": MyInt24, "INT": MyLong,
		"INTEGER": MyLong, "BIGINT": MyLongLong, "FLOAT": MyFloat, "DOUBLE": MyDouble, "REAL": MyDouble, "DATE": MyNewDate,
		"YEAR": MyYear, "DATETIME": MyDatetime2, "TIMESTAMP": MyTimestamp2, "TIME": MyTime2, "DECIMAL": MyNewDecimal,
		"NUMERIC": MyNewDecimal, "DEC": MyNewDecimal, "CHAR": MyString, "BINARY": MyString, "VARCHAR": MyVarchar,
		"VARBINARY": MyVarchar, "TINYTEXT": MyBlob, "TEXT": MyBlob, "MEDIUMTEXT": MyBlob, "LONGTEXT": MyBlob,
		"TINYBLOB": MyBlob, "BLOB": MyBlob, "MEDIUMBLOB": MyBlob, "LONGBLOB": MyBlob}
	t, ok := ty[typ]
	if !ok {
		return c, false, fmt.Errorf("type %s is not read by --schema (integer, FLOAT, DOUBLE, DECIMAL, CHAR, VARCHAR, BINARY, VARBINARY, TEXT, BLOB, DATE, TIME, DATETIME, TIMESTAMP, YEAR)", typ)
	}
	c.Type = t
	if !unsigned {
		c.PackFlag |= 1 // FIELDFLAG_DECIMAL: signed
	}
	if nullable {
		c.PackFlag |= fieldMaybeNull
	}
	switch typ {
	case "TINYINT", "BOOL", "BOOLEAN", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT":
		c.Length = arg(0, 11)
	case "FLOAT", "DOUBLE", "REAL":
		c.Length = arg(0, 22)
		c.PackFlag |= uint16(arg(1, notFixedDecimals)) << 8
	case "DECIMAL", "NUMERIC", "DEC":
		prec, scale := arg(0, 10), arg(1, 0)
		if prec < 1 || prec > 65 || scale < 0 || scale > 38 || scale > prec {
			return c, false, fmt.Errorf("DECIMAL(%d,%d) out of range", prec, scale)
		}
		c.Length = prec + btoi(scale > 0) + btoi(!unsigned)
		c.PackFlag |= uint16(scale) << 8
	case "DATE":
		c.Length = 10
	case "YEAR":
		c.Length = 4
	case "DATETIME", "TIMESTAMP", "TIME":
		if fsp := arg(0, 0); fsp < 0 || fsp > 6 {
			return c, false, fmt.Errorf("%s(%d): fractional seconds 0 to 6", typ, fsp)
		}
		base := map[string]int{"DATETIME": 19, "TIMESTAMP": 19, "TIME": 10}[typ]
		if fsp := arg(0, 0); fsp > 0 {
			base += fsp + 1
		}
		c.Length = base
	case "BINARY", "VARBINARY":
		c.Charset, c.Length = 63, arg(0, 1)
	case "CHAR", "VARCHAR":
		c.Charset, c.Length = coll, arg(0, 1)*mbMax

	case "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB":
		c.Charset = 63
		c.Length = map[string]int{"TINYBLOB": 255, "BLOB": 65535, "MEDIUMBLOB": 16777215, "LONGBLOB": 4294967295}[typ]
	default: // the TEXT types
		c.Charset = coll
		c.Length = map[string]int{"TINYTEXT": 255, "TEXT": 65535, "MEDIUMTEXT": 16777215, "LONGTEXT": 4294967295}[typ]
	}
	switch {
	case (typ == "CHAR" || typ == "BINARY") && (arg(0, 1) < 0 || arg(0, 1) > 255),
		(typ == "VARCHAR" || typ == "VARBINARY") && (c.Length < 0 || c.Length > 65535):
		return c, false, fmt.Errorf("%s(%d) out of range", typ, arg(0, 1))
	}
	return c, inPK, nil
}

// tableCollation is the collation the table options give (DEFAULT CHARSET, COLLATE), latin1
// (the server's default) when none.
func tableCollation(opts []string) int {
	coll := 0
	for j := 0; j+1 < len(opts); j++ {
		switch strings.ToUpper(opts[j]) {
		case "CHARSET":
			coll = charsetCollation(strings.TrimPrefix(opts[j+1], "="))
		case "CHARACTER":
			if j+2 < len(opts) && strings.EqualFold(opts[j+1], "SET") {
				k := j + 2
				if opts[k] == "=" && k+1 < len(opts) {
					k++
				}
				coll = charsetCollation(opts[k])
			}
		case "COLLATE":
			k := j + 1
			if opts[k] == "=" && k+1 < len(opts) {
				k++
			}
			if id := collationID(opts[k]); id != 0 {
				return id
			}
		}
		if opts[j+1] == "=" && j+2 < len(opts) && strings.EqualFold(opts[j], "CHARSET") {
			coll = charsetCollation(opts[j+2])
		}
	}
	if coll == 0 {
		return 8
	}
	return coll
}

// charsetCollation is the default collation of a character set (MariaDB 10.11's; utf8 is
// utf8mb3).
func charsetCollation(cs string) int {
	cs = strings.ToLower(unquote(cs))
	if cs == "utf8" {
		cs = "utf8mb3"
	}
	return defaultCollation1011[cs]
}

// collationIDs is mariaCollations by name.
var collationIDs = func() map[string]int {
	m := make(map[string]int, len(mariaCollations))
	for id, n := range mariaCollations {
		m[n[1]] = id
	}
	return m
}()

// collationID is the id of a collation by name (0: unknown).
func collationID(name string) int {
	name = strings.ToLower(unquote(name))
	name = strings.Replace(name, "utf8_", "utf8mb3_", 1)
	return collationIDs[name]
}

// keyCols are the columns of a key definition: the names in its first parentheses.
func keyCols(def []string) []string {
	var cols []string
	for j, tk := range def {
		if tk == "(" {
			for _, c := range def[j+1 : max(matching(def, j), j+1)] {
				if c != "," && c != "(" && c != ")" && !isNumber(c) && !isWord(c, "ASC", "DESC") {
					cols = append(cols, unquote(c))
				}
			}
			return cols
		}
	}
	return nil
}
