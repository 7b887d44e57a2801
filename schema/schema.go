// Package schema is a table's definition, whatever it was read from: the columns with their
// SQL types (what a .frm file describes: the display type, DECIMAL scale, fractional-second
// digits, ENUM/SET labels, generated columns) and their InnoDB types (what InnoDB's dictionary
// stores: main and precise type, length, position), the clustered index and the secondary
// indexes, the tablespace file. Several sources fill it: the SYS_* dictionary of a data
// directory with the table's .frm (FromDictionary); the rows decoder (package rows) reads
// rows from a Table whatever its source.
package schema

import (
	"regexp"
	"strings"

	"innoscope/discovery"
)

// InnoDB main types (data0type.h), flags of the precise type, and index types (dict0mem.h).
const (
	DataVarchar   = 1
	DataChar      = 2
	DataFixBinary = 3
	DataBinary    = 4
	DataBlob      = 5
	DataInt       = 6
	DataSys       = 8
	DataFloat     = 9
	DataDouble    = 10
	DataDecimal   = 11
	DataVarMySQL  = 12
	DataMySQL     = 13
	DataGeometry  = 14
	DataNotNull   = 256  // DATA_NOT_NULL
	DataUnsigned  = 512  // DATA_UNSIGNED
	DataBinaryTyp = 1024 // DATA_BINARY_TYPE
	DataVirtual   = 8192 // DATA_VIRTUAL

	IndexClustered = 1   // DICT_CLUSTERED
	IndexUnique    = 2   // DICT_UNIQUE
	IndexVirtual   = 128 // DICT_VIRTUAL: an index on a VIRTUAL column
)

// Column is a stored column of a table, in the order SELECT * gives them.
type Column struct {
	Name string
	// SQL is the column's SQL type, as a .frm file describes it.
	SQL SQLType
	// InnoDB is the column as InnoDB's dictionary stores it (SYS_COLUMNS): main and precise
	// type, length, position among the table's columns.
	InnoDB discovery.DictColumn
	// Version is what a MySQL 8.0.29+ INSTANT ALTER that added or dropped the column left
	// (nil: none).
	Version *RowVersion
}

// IndexField is one field of an index: a column, the length of its prefix in bytes (0: the
// whole column), and whether it is in descending order.
type IndexField struct {
	Col    string
	Prefix int
	Desc   bool
}

// Index is an index of a table: its name, InnoDB's index id and root page, its type
// (IndexClustered, IndexUnique, ...) and its fields in order.
type Index struct {
	Name   string
	ID     uint64
	Root   uint32
	Type   uint32
	Fields []IndexField
}

// Table is a table's definition.
type Table struct {
	Name string // db/table in the file-name encoding
	// DB and TableName are the database and the table as SQL spells them (of a partition: its
	// table); rows.Table.QuotedName quotes them for a statement.
	DB, TableName string
	Shown         string // db.table as messages name it (as SQL spells it)
	File          string // the tablespace file
	Frm           string // the .frm file the SQL types come from
	SpaceID       uint32
	TableID       uint64 // InnoDB's table id (0: unknown)
	// Compact: the dictionary's row format is COMPACT, DYNAMIC or COMPRESSED (else REDUNDANT).
	Compact bool
	Cols    []Column
	// Virtual are the VIRTUAL columns (computed by the server, not stored), left out of Cols.
	Virtual []string
	// PK lists the columns of the clustered index key (indexes into Cols); empty for a table
	// whose rows are ordered by the hidden DB_ROW_ID.
	PK []int
	// Clustered is the clustered index (its fields: the key PK lists).
	Clustered Index
	// Indexes are the secondary indexes.
	Indexes []Index
	// HiddenCols are stored columns (indexes into Cols) that SELECT * does not show: MySQL's
	// FTS_DOC_ID that InnoDB adds for a FULLTEXT index, and INVISIBLE columns.
	HiddenCols []int
	// RowVersions: MySQL 8.0.29+ INSTANT ALTERs added or dropped columns (each Column's Version);
	// Dropped are the dropped columns, still stored in the records older than their drop, at
	// their InnoDB.Pos.
	RowVersions bool
	Dropped     []Column
}

// FileName is a database or table name as the server names its files and its InnoDB
// dictionary entries (discovery.FileName), from the name as SQL spells it; a partition's
// "#P#" and "#SP#" stay. A name (or a part of a partition's) already in that encoding (it
// holds an '@' and encodes back to itself) is taken as given.
func FileName(s string) string {
	var b strings.Builder
	for {
		loc := partMarker.FindStringIndex(s)
		part := s
		if loc != nil {
			part = s[:loc[0]]
		}
		if strings.Contains(part, "@") && discovery.FileName(discovery.SQLName(part)) == part {
			b.WriteString(part)
		} else {
			b.WriteString(discovery.FileName(part))
		}
		if loc == nil {
			return b.String()
		}
		b.WriteString(s[loc[0]:loc[1]])
		s = s[loc[1]:]
	}
}

// partMarker is what joins a table and its partition, or a partition and its subpartition, in
// their names.
var partMarker = regexp.MustCompile(`(?i)#S?P#`)

// TableOf is the table a partition's name belongs to ("t#P#p0" -> "t"): its .frm.
func TableOf(name string) string {
	if i := strings.Index(strings.ToUpper(name), "#P#"); i > 0 {
		return name[:i]
	}
	return name
}

// Collation is the collation id in a precise type.
func Collation(prtype uint32) int { return int(prtype>>16) & 0x7fff }
