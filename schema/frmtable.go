package schema

import "fmt"

// FromFrmFile reads the definition of the table whose tablespace is ibd from its .frm file frm.
func FromFrmFile(ibd, frm string) (*Table, error) {
	return nil, fmt.Errorf("%s: reading a table from its .frm without the system tablespace is not implemented yet (give DIR DB.TABLE with the data directory)", frm)
}
