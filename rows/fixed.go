package rows

import "innoscope/discovery"

// FixedSize is the length at which a COMPACT (or later) record stores column col when it is
// stored without a length (dict_col_get_fixed_size), 0 when the record stores its length.
func FixedSize(col discovery.DictColumn) int { return colField(0, col).fixed }
