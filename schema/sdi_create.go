package schema

import (
	"fmt"
	"strings"
)

// CreateTable writes the CREATE TABLE statement of dd table d in the form of MySQL 8's SHOW
// CREATE TABLE (store_create_info, sql_show.cc): the columns with their types as the dictionary
// spells them (column_type_utf8), NULL/NOT NULL, defaults, AUTO_INCREMENT, comments, generated
// and INVISIBLE columns; the indexes; the foreign keys; the general tablespace named in
// CREATE TABLE, the engine, the default character set, the row format and KEY_BLOCK_SIZE. What the SDI does not keep (the AUTO_INCREMENT counter) is left out.
func CreateTable(d *DDTable) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (\n", QuoteName(d.Name))
	var lines []string
	for _, c := range d.Columns {
		if c.Hidden == 2 || c.Hidden == 3 { // InnoDB's system columns, functional index columns
			continue
		}
		lines = append(lines, "  "+columnDef(c, d.CollationID))
	}
	for _, x := range d.Indexes {
		if x.Hidden {
			continue
		}
		lines = append(lines, "  "+indexDef(x, d))
	}
	for _, fk := range d.ForeignKeys {
		lines = append(lines, "  "+foreignDef(fk, d))
	}
	b.WriteString(strings.Join(lines, ",\n"))
	b.WriteString("\n)")
	opts := privateData(d.Options)
	if opts["explicit_tablespace"] == "1" && len(d.Indexes) > 0 && d.Indexes[0].TablespaceRef != "" {
		b.WriteString(" /*!50100 TABLESPACE " + QuoteName(d.Indexes[0].TablespaceRef) + " */")
	}
	b.WriteString(" ENGINE=" + d.Engine)
	if cs, coll := collationName(d.CollationID); cs != "" {
		fmt.Fprintf(&b, " DEFAULT CHARSET=%s COLLATE=%s", cs, coll)
	}
	if rf, ok := rowFormats[d.RowFormat]; ok && strings.Contains(d.Options, "row_type=") {
		b.WriteString(" ROW_FORMAT=" + rf)
	}
	if kbs := opts["key_block_size"]; kbs != "" && kbs != "0" {
		b.WriteString(" KEY_BLOCK_SIZE=" + kbs)
	}
	if d.Comment != "" {
		b.WriteString(" COMMENT=" + quoteString(d.Comment))
	}
	if d.PartitionType != 0 {
		b.WriteString("\n" + partitionClause(d))
	}
	return b.String()
}

// partitionClause is the partitioning of d as SHOW CREATE TABLE writes it (a /*!50100 ... */
// comment): HASH, KEY, RANGE and LIST (LINEAR too), subpartitioned by HASH or KEY with a number
// of subpartitions. Other forms (COLUMNS, subpartitions named one by one) are said in a comment
// rather than written.
func partitionClause(d *DDTable) string {
	kinds := map[int]string{1: "HASH", 2: "KEY", 3: "KEY", 4: "LINEAR HASH", 5: "LINEAR KEY", 6: "LINEAR KEY", 7: "RANGE", 8: "LIST"}
	kind, ok := kinds[d.PartitionType]
	sub, subOK := kinds[d.SubpartitionType]
	if !ok || d.SubpartitionType != 0 && (!subOK || d.SubpartitionType >= 7 || d.DefaultSubpartitioning < 3) {
		return fmt.Sprintf("/* partitioned (partition type %d, subpartition type %d): innoscope does not write this partitioning clause */", d.PartitionType, d.SubpartitionType)
	}
	lines := []string{fmt.Sprintf("/*!50100 PARTITION BY %s (%s)", kind, d.PartitionExpr)}
	if d.SubpartitionType != 0 {
		lines = append(lines, fmt.Sprintf("SUBPARTITION BY %s (%s)", sub, d.SubpartitionExpr))
		if len(d.Partitions) > 0 {
			lines = append(lines, fmt.Sprintf("SUBPARTITIONS %d", len(d.Partitions[0].Subpartitions)))
		}
	}
	if d.DefaultPartitioning >= 3 {
		lines = append(lines, fmt.Sprintf("PARTITIONS %d */", len(d.Partitions)))
		return strings.Join(lines, "\n")
	}
	var parts []string
	for _, p := range d.Partitions {
		s := "PARTITION " + quoteNameIfNeeded(p.Name)
		switch {
		case kind == "RANGE" && p.Description == "MAXVALUE":
			s += " VALUES LESS THAN MAXVALUE"
		case kind == "RANGE":
			s += " VALUES LESS THAN (" + p.Description + ")"
		case kind == "LIST":
			s += " VALUES IN (" + p.Description + ")"
		}
		if p.Comment != "" {
			s += " COMMENT = " + quoteString(p.Comment)
		}
		parts = append(parts, s+" ENGINE = "+p.Engine)
	}
	lines = append(lines, "("+strings.Join(parts, ",\n ")+") */")
	return strings.Join(lines, "\n")
}

// rowFormats are dd::Table::enum_row_format.
var rowFormats = map[int]string{1: "FIXED", 2: "DYNAMIC", 3: "COMPRESSED", 4: "REDUNDANT", 5: "COMPACT"}

func columnDef(c DDColumn, tableColl int) string {
	my, _ := mySQLType(c.Type)
	s := QuoteName(c.Name) + " " + c.ColumnTypeUTF8
	if (isStringType(my) || my == MyEnum || my == MySet) && c.CollationID != 63 && (c.CollationID != tableColl || c.IsExplicitCollation) {
		if cs, coll := collationName(c.CollationID); cs != "" {
			if tcs, _ := collationName(tableColl); cs != tcs || c.CollationID != tableColl {
				s += " CHARACTER SET " + cs + " COLLATE " + coll
			}
		}
	}
	if c.GenerationExpr != "" {
		kind := "STORED"
		if c.IsVirtual {
			kind = "VIRTUAL"
		}
		s += " GENERATED ALWAYS AS (" + c.GenerationExpr + ") " + kind
	}
	if my == MyGeometry && !c.SrsIDNull {
		s += fmt.Sprintf(" /*!80003 SRID %d */", c.SrsID)
	}
	switch {
	case !c.IsNullable:
		s += " NOT NULL"
	case my == MyTimestamp || my == MyTimestamp2:
		s += " NULL"
	}
	if c.GenerationExpr == "" && !c.IsAutoIncrement {
		switch {
		case c.DefaultOption != "":
			s += " DEFAULT " + c.DefaultOption
		case c.HasNoDefault, isBlobLike(my):
		case c.DefaultValueUTF8Null:
			if c.IsNullable {
				s += " DEFAULT NULL"
			}
		default:
			s += " DEFAULT " + quoteString(c.DefaultValueUTF8)
		}
	}
	if c.UpdateOption != "" {
		s += " ON UPDATE " + c.UpdateOption
	}
	if c.IsAutoIncrement {
		s += " AUTO_INCREMENT"
	}
	if c.Comment != "" {
		s += " COMMENT " + quoteString(c.Comment)
	}
	if c.Hidden == 4 {
		s += " /*!80023 INVISIBLE */"
	}
	return s
}

// isBlobLike: a type whose literal default SHOW CREATE TABLE does not print.
func isBlobLike(t byte) bool {
	switch t {
	case MyTinyBlob, MyMediumBlob, MyLongBlob, MyBlob, MyGeometry, myJSON:
		return true
	}
	return false
}

func indexDef(x DDIndex, d *DDTable) string {
	var s string
	switch x.Type {
	case 1:
		s = "PRIMARY KEY"
	case 2:
		s = "UNIQUE KEY " + QuoteName(x.Name)
	case 4:
		s = "FULLTEXT KEY " + QuoteName(x.Name)
	case 5:
		s = "SPATIAL KEY " + QuoteName(x.Name)
	default:
		s = "KEY " + QuoteName(x.Name)
	}
	var parts []string
	for _, e := range x.Elements {
		if e.Hidden {
			continue
		}
		c := d.Columns[e.ColumnOpx]
		p := QuoteName(c.Name)
		if n := prefixOf(e.Length, c); n > 0 && x.Type != 4 && x.Type != 5 {
			_, maxLen := charsetWidth(c.CollationID)
			p += fmt.Sprintf("(%d)", n/maxLen)
		}
		if e.Order == 3 {
			p += " DESC"
		}
		parts = append(parts, p)
	}
	s += " (" + strings.Join(parts, ",") + ")"
	if x.Comment != "" {
		s += " COMMENT " + quoteString(x.Comment)
	}
	if !x.IsVisible {
		s += " /*!80000 INVISIBLE */"
	}
	return s
}

// fkRules are dd::Foreign_key::enum_rule.
var fkRules = map[int]string{2: "RESTRICT", 3: "CASCADE", 4: "SET NULL", 5: "SET DEFAULT"}

func foreignDef(fk DDForeign, d *DDTable) string {
	var cols, refs []string
	for _, e := range fk.Elements {
		cols = append(cols, QuoteName(d.Columns[e.ColumnOpx].Name))
		refs = append(refs, QuoteName(e.RefColumn))
	}
	ref := QuoteName(fk.RefTable)
	if fk.RefSchema != "" && fk.RefSchema != d.SchemaRef {
		ref = QuoteName(fk.RefSchema) + "." + ref
	}
	s := fmt.Sprintf("CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s)", QuoteName(fk.Name), strings.Join(cols, ","), ref, strings.Join(refs, ","))
	if r, ok := fkRules[fk.DeleteRule]; ok {
		s += " ON DELETE " + r
	}
	if r, ok := fkRules[fk.UpdateRule]; ok {
		s += " ON UPDATE " + r
	}
	return s
}

// QuoteName is s as an SQL identifier in backticks (a backtick in it doubled).
func QuoteName(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// quoteString is a string literal as SHOW CREATE TABLE writes it.
func quoteString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `''`, "\x00", `\0`, "\n", `\n`, "\r", `\r`, "\x1a", `\Z`)
	return "'" + r.Replace(s) + "'"
}

// mysqlCollations are the names of MySQL 8's collations that a table is likely to use, and
// their character sets.
var mysqlCollations = map[int][2]string{
	8: {"latin1", "latin1_swedish_ci"}, 47: {"latin1", "latin1_bin"}, 48: {"latin1", "latin1_general_ci"},
	11: {"ascii", "ascii_general_ci"}, 65: {"ascii", "ascii_bin"},
	33: {"utf8mb3", "utf8mb3_general_ci"}, 83: {"utf8mb3", "utf8mb3_bin"}, 192: {"utf8mb3", "utf8mb3_unicode_ci"},
	76: {"utf8mb3", "utf8mb3_tolower_ci"},
	45: {"utf8mb4", "utf8mb4_general_ci"}, 46: {"utf8mb4", "utf8mb4_bin"}, 224: {"utf8mb4", "utf8mb4_unicode_ci"},
	246: {"utf8mb4", "utf8mb4_unicode_520_ci"}, 255: {"utf8mb4", "utf8mb4_0900_ai_ci"}, 278: {"utf8mb4", "utf8mb4_0900_as_cs"},
	305: {"utf8mb4", "utf8mb4_0900_as_ci"}, 309: {"utf8mb4", "utf8mb4_0900_bin"}, 63: {"binary", "binary"},
	28: {"gbk", "gbk_chinese_ci"}, 95: {"cp932", "cp932_japanese_ci"}, 13: {"sjis", "sjis_japanese_ci"},
	24: {"gb2312", "gb2312_chinese_ci"}, 1: {"big5", "big5_chinese_ci"}, 35: {"ucs2", "ucs2_general_ci"},
	54: {"utf16", "utf16_general_ci"}, 60: {"utf32", "utf32_general_ci"}, 248: {"gb18030", "gb18030_chinese_ci"},
}

// collationName gives the character set and name of MySQL collation id ("" when not known).
func collationName(id int) (string, string) {
	if n, ok := mysqlCollations[id]; ok {
		return n[0], n[1]
	}
	return "", ""
}

// charsetWidth is the minimum and maximum bytes per character of MySQL collation id.
func charsetWidth(id int) (int, int) {
	cs, _ := collationName(id)
	switch cs {
	case "utf8mb4", "utf32", "utf16", "gb18030":
		return 1, 4
	case "utf8mb3":
		return 1, 3
	case "ucs2", "gbk", "cp932", "sjis", "gb2312", "big5":
		return 1, 2
	}
	return 1, 1
}

// quoteNameIfNeeded quotes an identifier only where SHOW CREATE TABLE does for a partition's name:
// one of other characters than letters, digits, '_' and '$', or of digits only.
func quoteNameIfNeeded(s string) string {
	digits := true
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_', r == '$':
			digits = false
		default:
			return QuoteName(s)
		}
	}
	if digits {
		return QuoteName(s)
	}
	return s
}
