package schema

import (
	"strings"
	"testing"
)

// TestSDIRowVersions: a table MySQL 8.0.12-8.0.28 altered with ALGORITHM=INSTANT (instant_col)
// is refused by rows, with the next step; one with 8.0.29+ row versions (a column with
// version_added) is read, each column at its physical_pos; both still have their statement.
func TestSDIRowVersions(t *testing.T) {
	base := `{"dd_object_type":"Table","dd_object":{"name":"t","schema_ref":"d","engine":"InnoDB","row_format":2,"collation_id":255,"se_private_data":"%T",
"columns":[{"name":"a","type":4,"hidden":1,"column_type_utf8":"int","se_private_data":"%A"},
{"name":"b","type":4,"hidden":1,"is_nullable":true,"column_type_utf8":"int","default_value_utf8_null":true,"se_private_data":"%B"},
{"name":"DB_TRX_ID","type":10,"hidden":2},{"name":"DB_ROLL_PTR","type":9,"hidden":2}],
"indexes":[{"name":"PRIMARY","type":1,"is_visible":true,"se_private_data":"id=5;root=4;space_id=2;","elements":[{"column_opx":0,"length":4,"order":2},{"column_opx":2,"length":4294967295,"hidden":true},{"column_opx":3,"length":4294967295,"hidden":true},{"column_opx":1,"length":4294967295,"hidden":true}]}]}}`
	for _, c := range []struct{ table, a, col, want string }{
		{"", "physical_pos=0;table_id=1;", "default_null=1;version_added=1;physical_pos=3;table_id=1;", ""},
		{"", "table_id=1;", "version_added=1;physical_pos=3;table_id=1;", "no physical_pos"},
		{"instant_col=1;", "table_id=1;", "table_id=1;", "instant_col"},
		{"", "table_id=1;", "table_id=1;", ""},
	} {
		js := strings.NewReplacer("%T", c.table, "%A", c.a, "%B", c.col).Replace(base)
		o, err := ParseSDITable([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		tb, err := TableFromDD(&o.Table, "t.ibd")
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s %s: %v", c.table, c.col, err)
		}
		if c.want == "instant_col" && !strings.Contains(err.Error(), "next step") {
			t.Errorf("%s: no next step: %v", c.table, err)
		}
		if tb != nil && strings.Contains(c.col, "version_added") {
			if b := tb.Cols[1]; !tb.RowVersions || b.Version == nil || b.Version.Added != 1 || b.Version.Default != nil || b.InnoDB.Pos != 3 {
				t.Errorf("column b: row versions %v, version %+v, position %d", tb.RowVersions, b.Version, b.InnoDB.Pos)
			}
		}
		if stmt := CreateTable(&o.Table); !strings.Contains(stmt, "`b` int DEFAULT NULL") || !strings.Contains(stmt, "PRIMARY KEY (`a`)") {
			t.Errorf("statement: %s", stmt)
		}
	}
}
