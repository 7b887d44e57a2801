package schema

import "testing"

// FuzzCreateTable: any text given as --schema is read or refused, never a panic; a statement
// read gives columns each with an InnoDB type.
func FuzzCreateTable(f *testing.F) {
	f.Add("CREATE TABLE `t` (\n  `id` int(11) NOT NULL,\n  `v` varchar(60) DEFAULT NULL,\n  `b` text DEFAULT NULL,\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci ROW_FORMAT=DYNAMIC")
	f.Add("CREATE TABLE IF NOT EXISTS db.u (k BIGINT UNSIGNED NOT NULL, d DATETIME(6), x DECIMAL(10,2), UNIQUE KEY (k)) CHARSET utf8mb4")
	f.Fuzz(func(t *testing.T, sql string) {
		def, err := FromCreateTable(sql, "fuzz.sql")
		if err != nil {
			return
		}
		for _, c := range def.Cols {
			if c.InnoDB.MType == 0 {
				t.Fatalf("column %s without an InnoDB type", c.Name)
			}
		}
	})
}

// TestFromCreateTable: SHOW CREATE TABLE's statement gives the columns, their types and the key.
func TestFromCreateTable(t *testing.T) {
	def, err := FromCreateTable("CREATE TABLE `u` (\n  `k` bigint(20) unsigned NOT NULL,\n  `d` datetime(3) DEFAULT NULL,\n  `w` varchar(30) CHARACTER SET utf8mb4 NOT NULL COMMENT 'a, b',\n  `bb` blob DEFAULT NULL,\n  PRIMARY KEY (`k`)\n) ENGINE=InnoDB DEFAULT CHARSET=latin1", "u.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(def.Cols) != 4 || len(def.PK) != 1 || def.PK[0] != 0 || def.Clustered.Name != "PRIMARY" {
		t.Fatalf("%+v", def)
	}
	want := []struct {
		mtype, len uint32
		coll       int
	}{{DataInt, 8, 0}, {DataFixBinary, 7, 0}, {DataVarMySQL, 120, 45}, {DataBlob, 10, 63}}
	for i, w := range want {
		c := def.Cols[i].InnoDB
		if c.MType != w.mtype || c.Len != w.len || w.coll != 0 && Collation(c.PRType) != w.coll {
			t.Errorf("column %s: mtype %d len %d collation %d, want %+v", def.Cols[i].Name, c.MType, c.Len, Collation(c.PRType), w)
		}
	}
	if def.Cols[0].InnoDB.PRType&DataUnsigned == 0 || def.Cols[1].InnoDB.PRType&DataNotNull != 0 {
		t.Errorf("flags: %x %x", def.Cols[0].InnoDB.PRType, def.Cols[1].InnoDB.PRType)
	}
}
