// Package mysqldd reads the data dictionary of a MySQL 8 data directory: the definitions of
// the dictionary tables (mysql.tables, mysql.tablespaces, ...) from the SDI inside mysql.ibd,
// and their rows with innoscope's row decoder, as the server's dd::cache reads them from its
// own InnoDB tables.
package mysqldd

import (
	"fmt"

	"innoscope/rows"
	"innoscope/schema"
)

// ddTable is one dictionary table of mysql.ibd: its definition from the SDI.
type ddTable struct {
	name string
	def  *schema.Table
	col  map[string]int // column name -> index in def.Cols
}

// record is one row of a dictionary table: a value per column (nil for NULL), as text.
type record map[string]*string

// str is the value of column c ("" for NULL).
func (r record) str(c string) string {
	if v := r[c]; v != nil {
		return *v
	}
	return ""
}

// uint is the value of column c as a number; ok false for NULL or a value that is not one.
func (r record) uint(c string) (uint64, bool) {
	v := r[c]
	if v == nil {
		return 0, false
	}
	var n uint64
	if _, err := fmt.Sscan(*v, &n); err != nil {
		return 0, false
	}
	return n, true
}

// read decodes every row of t, walking its clustered index in mysql.ibd. A lost page or a
// row the decoder could not read is an error: the dictionary must be whole to be trusted.
func (t *ddTable) read() ([]record, error) {
	rt, err := rows.New(t.def)
	if err != nil {
		return nil, err
	}
	var out []record
	res, err := rt.Walk(func(r rows.Row) error {
		rec := record{}
		for i, v := range r {
			if i >= len(t.def.Cols) {
				break
			}
			if v != nil {
				s := string(v)
				rec[t.def.Cols[i].Name] = &s
			} else {
				rec[t.def.Cols[i].Name] = nil
			}
		}
		out = append(out, rec)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("mysql.%s: %v", t.name, err)
	}
	if len(res.Lost) > 0 || res.LostRows > 0 {
		return out, fmt.Errorf("mysql.%s: %d pages of its clustered index could not be read (%s)", t.name, len(res.Lost), res.Lost[0].Reason)
	}
	return out, nil
}
