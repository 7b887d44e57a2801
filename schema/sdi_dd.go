package schema

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The JSON of a dd::Table in the SDI (sql/dd/impl/types/table_impl.cc, column_impl.cc,
// index_impl.cc, foreign_key_impl.cc of MySQL 8.0): only the members innoscope reads.

// SDIObject is one SDI entry: the server version that wrote it and the dictionary object.
type SDIObject struct {
	MysqldVersionID int     `json:"mysqld_version_id"`
	DDObjectType    string  `json:"dd_object_type"`
	Table           DDTable `json:"dd_object"`
}

// DDTable is a dd::Table.
type DDTable struct {
	Name          string      `json:"name"`
	SchemaRef     string      `json:"schema_ref"`
	Engine        string      `json:"engine"`
	Comment       string      `json:"comment"`
	Options       string      `json:"options"`
	SEPrivateID   uint64      `json:"se_private_id"`
	SEPrivateData string      `json:"se_private_data"`
	RowFormat     int         `json:"row_format"`
	CollationID   int         `json:"collation_id"`
	PartitionType int         `json:"partition_type"`
	Columns       []DDColumn  `json:"columns"`
	Indexes       []DDIndex   `json:"indexes"`
	ForeignKeys   []DDForeign `json:"foreign_keys"`
	// Partitions are a partitioned table's partitions; each has its own tablespace. The
	// partitioning: dd::Table::enum_partition_type, its expression, and how partitions are
	// given (enum_default_partitioning: 1 none, 2 no, 3 yes, 4 a number).
	Partitions             []DDPartition `json:"partitions"`
	PartitionExpr          string        `json:"partition_expression_utf8"`
	DefaultPartitioning    int           `json:"default_partitioning"`
	SubpartitionType       int           `json:"subpartition_type"`
	SubpartitionExpr       string        `json:"subpartition_expression_utf8"`
	DefaultSubpartitioning int           `json:"default_subpartitioning"`
}

// DDPartition is a dd::Partition: a partition, or a subpartition of one, whose indexes (the
// table's, by index_opx) are in the tablespace tablespace_ref names, with their root, id and
// space_id in se_private_data.
type DDPartition struct {
	Name        string `json:"name"`
	SEPrivateID uint64 `json:"se_private_id"`
	Description string `json:"description_utf8"` // RANGE: the bound (or MAXVALUE); LIST: the values
	Engine      string `json:"engine"`
	Comment     string `json:"comment"`
	Indexes     []struct {
		SEPrivateData string `json:"se_private_data"`
		IndexOpx      int    `json:"index_opx"`
		TablespaceRef string `json:"tablespace_ref"`
	} `json:"indexes"`
	Subpartitions []DDPartition `json:"subpartitions"`
}

// DDColumn is a dd::Column.
type DDColumn struct {
	Name                 string `json:"name"`
	Type                 int    `json:"type"` // dd::enum_column_types
	IsNullable           bool   `json:"is_nullable"`
	IsZerofill           bool   `json:"is_zerofill"`
	IsUnsigned           bool   `json:"is_unsigned"`
	IsAutoIncrement      bool   `json:"is_auto_increment"`
	IsVirtual            bool   `json:"is_virtual"`
	Hidden               int    `json:"hidden"` // 1 visible, 2 hidden by InnoDB, 3 by SQL, 4 INVISIBLE
	OrdinalPosition      int    `json:"ordinal_position"`
	CharLength           uint32 `json:"char_length"` // bytes
	NumericPrecision     int    `json:"numeric_precision"`
	NumericScale         int    `json:"numeric_scale"`
	NumericScaleNull     bool   `json:"numeric_scale_null"`
	DatetimePrecision    int    `json:"datetime_precision"`
	HasNoDefault         bool   `json:"has_no_default"`
	DefaultValueNull     bool   `json:"default_value_null"`
	DefaultValueUTF8Null bool   `json:"default_value_utf8_null"`
	DefaultValueUTF8     string `json:"default_value_utf8"`
	DefaultOption        string `json:"default_option"`
	UpdateOption         string `json:"update_option"`
	Comment              string `json:"comment"`
	GenerationExpr       string `json:"generation_expression_utf8"`
	Options              string `json:"options"`
	SEPrivateData        string `json:"se_private_data"`
	ColumnTypeUTF8       string `json:"column_type_utf8"`
	Elements             []struct {
		Name string `json:"name"` // base64
	} `json:"elements"`
	CollationID         int  `json:"collation_id"`
	IsExplicitCollation bool `json:"is_explicit_collation"`
	SrsIDNull           bool `json:"srs_id_null"`
	SrsID               int  `json:"srs_id"`
}

// DDIndex is a dd::Index.
type DDIndex struct {
	Name          string `json:"name"`
	Hidden        bool   `json:"hidden"`
	Type          int    `json:"type"` // 1 PRIMARY, 2 UNIQUE, 3 MULTIPLE, 4 FULLTEXT, 5 SPATIAL
	Comment       string `json:"comment"`
	SEPrivateData string `json:"se_private_data"`
	TablespaceRef string `json:"tablespace_ref"` // the tablespace's name: innodb_system, a general tablespace, DB/TABLE
	IsVisible     bool   `json:"is_visible"`
	Elements      []struct {
		Length    uint32 `json:"length"`
		Order     int    `json:"order"` // 2 ASC, 3 DESC
		Hidden    bool   `json:"hidden"`
		ColumnOpx int    `json:"column_opx"`
	} `json:"elements"`
}

// DDForeign is a dd::Foreign_key.
type DDForeign struct {
	Name       string `json:"name"`
	UpdateRule int    `json:"update_rule"` // 1 NO ACTION, 2 RESTRICT, 3 CASCADE, 4 SET NULL, 5 SET DEFAULT
	DeleteRule int    `json:"delete_rule"`
	RefSchema  string `json:"referenced_table_schema_name"`
	RefTable   string `json:"referenced_table_name"`
	Elements   []struct {
		ColumnOpx int    `json:"column_opx"`
		RefColumn string `json:"referenced_column_name"`
	} `json:"elements"`
}

// dd::enum_column_types, in order from DECIMAL = 1, as MySQL type codes.
var ddTypes = []byte{0, MyDecimalOld, MyTiny, MyShort, MyLong, MyFloat, MyDouble, 6 /* NULL */, MyTimestamp,
	MyLongLong, MyInt24, MyDate, MyTime, MyDatetime, MyYear, MyNewDate, MyVarchar, MyBit, MyTimestamp2,
	MyDatetime2, MyTime2, MyNewDecimal, MyEnum, MySet, MyTinyBlob, MyMediumBlob, MyLongBlob, MyBlob,
	MyVarString, MyString, MyGeometry, myJSON}

const myJSON = 245 // MYSQL_TYPE_JSON

// mySQLType is the MySQL type code of dd column type t (ok false for a type the list lacks).
func mySQLType(t int) (byte, bool) {
	if t < 1 || t >= len(ddTypes) {
		return 0, false
	}
	return ddTypes[t], true
}

// ParseSDITable decodes the JSON of an SDI record of type 1 (a table).
func ParseSDITable(js []byte) (*SDIObject, error) {
	var o SDIObject
	if err := json.Unmarshal(js, &o); err != nil {
		return nil, fmt.Errorf("SDI JSON: %v", err)
	}
	if o.DDObjectType != "Table" {
		return nil, fmt.Errorf("SDI object of type %q, not a Table", o.DDObjectType)
	}
	t := &o.Table
	if t.Name == "" || len(t.Columns) == 0 {
		return nil, fmt.Errorf("SDI table %q without a name or columns", t.Name)
	}
	for i, c := range t.Columns {
		if _, ok := mySQLType(c.Type); !ok {
			return nil, fmt.Errorf("SDI table %s: column %s: unknown type %d", t.Name, c.Name, c.Type)
		}
		for j := range c.Elements {
			b, err := base64.StdEncoding.DecodeString(c.Elements[j].Name)
			if err != nil {
				return nil, fmt.Errorf("SDI table %s: column %s: label %d: %v", t.Name, c.Name, j+1, err)
			}
			t.Columns[i].Elements[j].Name = string(b)
		}
	}
	for _, x := range t.Indexes {
		for _, e := range x.Elements {
			if e.ColumnOpx < 0 || e.ColumnOpx >= len(t.Columns) {
				return nil, fmt.Errorf("SDI table %s: index %s: column %d of %d", t.Name, x.Name, e.ColumnOpx, len(t.Columns))
			}
		}
	}
	for _, fk := range t.ForeignKeys {
		for _, e := range fk.Elements {
			if e.ColumnOpx < 0 || e.ColumnOpx >= len(t.Columns) {
				return nil, fmt.Errorf("SDI table %s: foreign key %s: column %d of %d", t.Name, fk.Name, e.ColumnOpx, len(t.Columns))
			}
		}
	}
	return &o, nil
}

// privateData reads a dd "key=value;..." string.
func privateData(s string) map[string]string {
	m := map[string]string{}
	for _, kv := range strings.Split(s, ";") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// privateUint reads key k of a dd "key=value;" string as a number (ok false when absent).
func privateUint(s, k string) (uint64, bool) {
	v, ok := privateData(s)[k]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 64)
	return n, err == nil
}
