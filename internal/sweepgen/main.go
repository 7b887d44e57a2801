// Command sweepgen writes the workload of one crash of scripts/crash-sweep.sh: the mariadbd
// options, the SQL run before the two sessions start, the SQL of each session and the delay
// after which the server is killed. Everything is derived from -seed alone, so a crash's
// workload can be regenerated (the crash point itself depends on timing).
//
//	go run ./internal/sweepgen -seed N -ext DIR -out DIR
//
// writes DIR/options.txt (one option a line), DIR/setup.sql, DIR/s1.sql, DIR/s2.sql and
// DIR/delay_ms.txt. -ext is the absolute directory DATA DIRECTORY tables go to.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	seed := flag.Uint64("seed", 1, "the seed of the workload")
	ext := flag.String("ext", "", "absolute directory for DATA DIRECTORY tables")
	out := flag.String("out", "", "directory to write the files into")
	flag.Parse()
	if *out == "" || !filepath.IsAbs(*ext) {
		fmt.Fprintln(os.Stderr, "usage: sweepgen -seed N -ext ABSDIR -out DIR")
		os.Exit(2)
	}
	w := Generate(*seed, *ext)
	files := map[string]string{
		"options.txt":  strings.Join(w.Options, "\n") + "\n",
		"setup.sql":    w.Setup,
		"s1.sql":       w.Sessions[0],
		"s2.sql":       w.Sessions[1],
		"delay_ms.txt": fmt.Sprintln(w.DelayMS),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(*out, name), []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "sweepgen:", err)
			os.Exit(2)
		}
	}
}

// Workload is everything one crash runs.
type Workload struct {
	Options  []string  // extra mariadbd options (install and every start)
	Setup    string    // SQL before the sessions start (databases, first tables and rows)
	Sessions [2]string // the SQL of each client session, run concurrently
	DelayMS  int       // the server is killed this long after the sessions start
}

// Generate derives the workload of one crash from seed; ext is the DATA DIRECTORY.
func Generate(seed uint64, ext string) Workload {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var w Workload
	w.Options = append(w.Options, "--innodb-log-file-size="+pick(r, "4M", "8M", "16M", "16M", "48M"))
	if r.IntN(3) == 0 {
		w.Options = append(w.Options, fmt.Sprintf("--innodb-undo-tablespaces=%d", 2+r.IntN(2)),
			"--innodb-undo-log-truncate=ON", "--innodb-max-undo-log-size=10M")
	}
	if r.IntN(3) == 0 {
		w.Options = append(w.Options, "--innodb-buffer-pool-size="+pick(r, "8M", "16M", "32M"))
	}
	if r.IntN(6) == 0 {
		w.Options = append(w.Options, "--innodb-checksum-algorithm=crc32")
	}
	w.DelayMS = 3000 + r.IntN(20000)
	// Half the runs put no table in a DATA DIRECTORY (so what goes wrong there does not hide
	// everything else).
	dataDirs := r.IntN(2) == 0

	var setup strings.Builder
	setup.WriteString("CREATE DATABASE db1;\nCREATE DATABASE db2;\n")
	for k := range w.Sessions {
		g := &gen{r: r, ext: ext, dataDirs: dataDirs, prefix: fmt.Sprintf("s%d", k+1)}
		n := 3 + r.IntN(3)
		for i := 0; i < n; i++ {
			g.create(&setup, g.newTable(), 500+r.IntN(2500))
		}
		if r.IntN(2) == 0 {
			setup.WriteString("SET GLOBAL innodb_log_checkpoint_now=1;\n")
		}
		var s strings.Builder
		for i := 0; i < 800; i++ {
			g.step(&s)
		}
		w.Sessions[k] = s.String()
	}
	w.Setup = setup.String()
	return w
}

func pick(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }

// table is what the generator knows of one table of a session.
type table struct {
	db, name string
	rowFmt   string // ROW_FORMAT=... clause (with KEY_BLOCK_SIZE for COMPRESSED, or PAGE_COMPRESSED)
	dataDir  bool   // DATA DIRECTORY (of the table, or of partition p0)
	part     string // "", "range" or "hash"
	parts    int    // partitions of a range or hash table
	cols     []string
	nextID   int
}

func (t *table) ref() string { return t.db + "." + t.name }

// gen writes one session's statements; each session owns the tables named after its prefix.
type gen struct {
	r        *rand.Rand
	ext      string
	dataDirs bool // some tables go to a DATA DIRECTORY
	prefix   string
	tables   []*table
	serial   int
}

func (g *gen) name() string { g.serial++; return fmt.Sprintf("%st%d", g.prefix, g.serial) }

func (g *gen) newTable() *table {
	r := g.r
	t := &table{db: pick(r, "db1", "db2"), name: g.name(), nextID: 1}
	switch r.IntN(8) {
	case 0, 1:
		t.rowFmt = "ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=" + pick(r, "1", "2", "4", "8")
	case 2:
		t.rowFmt = "ROW_FORMAT=REDUNDANT"
	case 3:
		t.rowFmt = "ROW_FORMAT=COMPACT"
	case 4:
		t.rowFmt = "PAGE_COMPRESSED=1"
	default:
		t.rowFmt = "ROW_FORMAT=DYNAMIC"
	}
	t.dataDir = g.dataDirs && r.IntN(3) == 0
	switch r.IntN(4) {
	case 0:
		t.part, t.parts = "range", 2
	case 1:
		t.part, t.parts = "hash", 2+r.IntN(2)
	}
	return t
}

// definition is the CREATE TABLE statement of t (columns added later are not part of it).
func (g *gen) definition(t *table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (id INT PRIMARY KEY, a INT, v VARCHAR(200), KEY(a)) ENGINE=InnoDB %s",
		t.ref(), t.rowFmt)
	dd := fmt.Sprintf(" DATA DIRECTORY='%s'", g.ext)
	switch t.part {
	case "":
		if t.dataDir {
			b.WriteString(dd)
		}
	case "range":
		b.WriteString(" PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (1000)")
		if t.dataDir {
			b.WriteString(dd)
		}
		b.WriteString(", PARTITION p1 VALUES LESS THAN (1000000))")
	case "hash":
		fmt.Fprintf(&b, " PARTITION BY HASH (id) PARTITIONS %d", t.parts)
	}
	return b.String()
}

func (g *gen) create(b *strings.Builder, t *table, rows int) {
	g.tables = append(g.tables, t)
	t.cols, t.nextID = nil, 1
	fmt.Fprintf(b, "%s;\n", g.definition(t))
	g.insert(b, t, rows)
}

func (g *gen) insert(b *strings.Builder, t *table, rows int) {
	if t.nextID+rows >= 1000000 {
		return
	}
	fmt.Fprintf(b, "INSERT INTO %s (id, a, v) SELECT seq, seq %% %d, REPEAT(CHAR(97 + seq %% 26), %d) FROM seq_%d_to_%d;\n",
		t.ref(), 7+g.r.IntN(90), 20+g.r.IntN(180), t.nextID, t.nextID+rows-1)
	t.nextID += rows
}

func (g *gen) any() *table { return g.tables[g.r.IntN(len(g.tables))] }

// step writes one or a few statements, chosen by weight.
func (g *gen) step(b *strings.Builder) {
	r := g.r
	t := g.any()
	switch n := r.IntN(100); {
	case n < 20:
		g.insert(b, t, 100+r.IntN(3000))
	case n < 32:
		lo := 1 + r.IntN(t.nextID)
		fmt.Fprintf(b, "UPDATE %s SET v = REPEAT('%c', %d), a = a + 1 WHERE id BETWEEN %d AND %d;\n",
			t.ref(), 'a'+rune(r.IntN(26)), 10+r.IntN(190), lo, lo+r.IntN(3000))
	case n < 38:
		fmt.Fprintf(b, "DELETE FROM %s WHERE id %% %d = %d;\n", t.ref(), 3+r.IntN(20), r.IntN(3))
	case n < 43:
		fmt.Fprintf(b, "BEGIN;\nUPDATE %s SET a = a * 2 WHERE id %% 5 = %d;\n", t.ref(), r.IntN(5))
		g.insert(b, g.any(), 100+r.IntN(500))
		b.WriteString(pick(r, "COMMIT;\n", "COMMIT;\n", "ROLLBACK;\n"))
	case n < 50: // instant ADD / DROP COLUMN
		if len(t.cols) > 0 && r.IntN(2) == 0 {
			c := t.cols[len(t.cols)-1]
			t.cols = t.cols[:len(t.cols)-1]
			fmt.Fprintf(b, "ALTER TABLE %s DROP COLUMN %s, ALGORITHM=INSTANT;\n", t.ref(), c)
		} else {
			c := fmt.Sprintf("c%d", len(t.cols)+1)
			t.cols = append(t.cols, c)
			fmt.Fprintf(b, "ALTER TABLE %s ADD COLUMN %s INT NOT NULL DEFAULT %d%s, ALGORITHM=INSTANT;\n",
				t.ref(), c, r.IntN(100), pick(r, "", " FIRST", " AFTER id"))
		}
	case n < 57: // copying and in-place rebuilds
		fmt.Fprintf(b, "ALTER TABLE %s %s;\n", t.ref(), pick(r, "FORCE, ALGORITHM=COPY", "FORCE, ALGORITHM=COPY",
			"FORCE, ALGORITHM=INPLACE", "ENGINE=InnoDB", "ADD INDEX IF NOT EXISTS iv (v(20))",
			"DROP INDEX IF EXISTS iv"))
	case n < 61:
		fmt.Fprintf(b, "TRUNCATE TABLE %s;\n", t.ref())
		t.nextID = 1
	case n < 66: // DROP + CREATE of the same name, maybe of another kind
		fmt.Fprintf(b, "DROP TABLE %s;\n", t.ref())
		g.remove(t)
		nt := g.newTable()
		nt.db, nt.name = t.db, t.name
		g.create(b, nt, 200+r.IntN(2000))
	case n < 72: // rename, within or across databases
		old := t.ref()
		if r.IntN(2) == 0 {
			t.db = map[string]string{"db1": "db2", "db2": "db1"}[t.db]
		} else {
			t.name = g.name()
		}
		fmt.Fprintf(b, "RENAME TABLE %s TO %s;\n", old, t.ref())
	case n < 76: // a swap of two names through a third, in one statement
		u := g.any()
		if u == t {
			break
		}
		tmp := &table{db: pick(r, "db1", "db2"), name: g.name()}
		fmt.Fprintf(b, "RENAME TABLE %s TO %s, %s TO %s, %s TO %s;\n",
			t.ref(), tmp.ref(), u.ref(), t.ref(), tmp.ref(), u.ref())
		t.db, t.name, u.db, u.name = u.db, u.name, t.db, t.name
	case n < 81: // EXCHANGE PARTITION with a table made LIKE the partitioned one
		p := g.partitioned()
		if p == nil {
			break
		}
		x := &table{db: p.db, name: g.name(), rowFmt: p.rowFmt, cols: p.cols, nextID: 1}
		fmt.Fprintf(b, "CREATE TABLE %s LIKE %s;\nALTER TABLE %s REMOVE PARTITIONING;\n", x.ref(), p.ref(), x.ref())
		if p.part == "range" {
			fmt.Fprintf(b, "INSERT INTO %s (id, a, v) SELECT seq, seq, 'x' FROM seq_1_to_%d;\n", x.ref(), 1+r.IntN(998))
		}
		for i := 0; i < 1+r.IntN(2); i++ {
			fmt.Fprintf(b, "ALTER TABLE %s EXCHANGE PARTITION p0 WITH TABLE %s;\n", p.ref(), x.ref())
		}
		if r.IntN(2) == 0 {
			fmt.Fprintf(b, "DROP TABLE %s;\n", x.ref())
		} else {
			x.nextID = 1000
			g.tables = append(g.tables, x)
		}
	case n < 85: // ADD PARTITION
		p := g.partitioned()
		if p == nil {
			break
		}
		if p.part == "hash" {
			fmt.Fprintf(b, "ALTER TABLE %s ADD PARTITION PARTITIONS 1;\n", p.ref())
		} else {
			fmt.Fprintf(b, "ALTER TABLE %s ADD PARTITION (PARTITION p%d VALUES LESS THAN (%d));\n",
				p.ref(), p.parts, 1000000*p.parts)
		}
		p.parts++
	case n < 87:
		b.WriteString("SET GLOBAL innodb_log_checkpoint_now=1;\n")
	default: // a large update: fills small logs until they wrap
		fmt.Fprintf(b, "UPDATE %s SET v = REPEAT('%c', %d);\n", t.ref(), 'a'+rune(r.IntN(26)), 50+r.IntN(150))
	}
}

func (g *gen) partitioned() *table {
	var ps []*table
	for _, t := range g.tables {
		if t.part != "" {
			ps = append(ps, t)
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return ps[g.r.IntN(len(ps))]
}

func (g *gen) remove(t *table) {
	for i, u := range g.tables {
		if u == t {
			g.tables = append(g.tables[:i], g.tables[i+1:]...)
			return
		}
	}
}
