package adopt

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"innoscope/discovery"
	"innoscope/rows"
	"innoscope/schema"
)

// Kit is what adopt found and will write: the tables (those refused among them), the target
// it assumes (major version, page size) and the directories it read from.
type Kit struct {
	Dir      string   `json:"dir"`
	Version  string   `json:"server_version"` // the target's major version, e.g. "10.11"
	PageSize int      `json:"page_size"`      // the target's innodb_page_size
	Tables   []Table  `json:"tables"`
	Sources  []string `json:"-"` // the directories the files came from (never written)
}

// Plan reads the tables the arguments name (files, or a data directory and DB.TABLE names)
// and decides, per table, how it is attached or why it cannot be.
func Plan(srcs []string, opt Options) (*Kit, error) {
	if len(srcs) == 0 {
		return nil, fmt.Errorf("give the orphan tables: their .ibd (.frm beside, or given) files, or a data directory and DB.TABLE names")
	}
	groups, dirs, err := resolve(srcs)
	if err != nil {
		return nil, err
	}
	if opt.Frm != "" {
		if len(groups) != 1 || len(groups[0].ibds) == 0 {
			return nil, fmt.Errorf("--frm %s: give it with the files of one table (its .ibd, or its partitions')", opt.Frm)
		}
		if _, err := os.Stat(opt.Frm); err != nil {
			return nil, err
		}
		g := groups[0]
		if g.frm, err = filepath.Abs(opt.Frm); err != nil {
			return nil, err
		}
		if par := strings.TrimSuffix(g.frm, filepath.Ext(g.frm)) + ".par"; g.par == "" {
			if _, err := os.Stat(par); err == nil {
				g.par = par
			}
		}
	}
	seen := map[string]string{}
	for _, g := range groups {
		for _, ibd := range g.ibds { // a DATA DIRECTORY file's directory too
			dirs = append(dirs, filepath.Dir(ibd))
		}
		if g.frm != "" {
			dirs = append(dirs, filepath.Dir(g.frm))
		}
		name := g.db + "/" + g.table
		if first, ok := seen[name]; ok {
			return nil, fmt.Errorf("%s: the table %s.%s is given twice (also by %s): give each table's files once", groupFile(g), discovery.SQLName(g.db), discovery.SQLName(g.table), first)
		}
		seen[name] = groupFile(g)
	}
	k := &Kit{PageSize: opt.PageSize, Sources: dirs}
	if opt.ServerVersion != "" {
		if k.Version, err = parseMajor(opt.ServerVersion); err != nil {
			return nil, err
		}
	}
	for _, g := range groups {
		k.Tables = append(k.Tables, k.inspect(g))
	}
	return k, nil
}

// groupFile is a file that names the group's table in messages.
func groupFile(g *group) string {
	if len(g.ibds) > 0 {
		return g.ibds[0]
	}
	return g.frm
}

// inspect checks one table's files against what the target can import.
func (k *Kit) inspect(g *group) Table {
	t := Table{DB: discovery.SQLName(g.db), Name: discovery.SQLName(g.table), Frm: g.frm, Par: g.par}
	for _, ibd := range g.ibds {
		// Where the server keeps the table: its database directory and file named in the
		// server's file-name encoding (a database "my-db" is the directory my@002ddb), whatever
		// the source directory's name is spelled like.
		base := filepath.Base(ibd)
		if rest, ok := strings.CutPrefix(base, g.table); ok {
			base = schema.FileName(t.Name) + rest
		}
		target := filepath.Join(schema.FileName(t.DB), base)
		t.Files = append(t.Files, File{Source: ibd, Kit: filepath.Join("files", target), Target: target})
	}
	if reason, next := k.check(g, &t); reason != "" {
		t.Refused, t.Next = reason, next
		if t.Next == "" {
			t.Next = rowsInstead(g)
		}
	}
	return t
}

// rowsInstead is the next step of a refused table: its statement and its rows as SQL.
func rowsInstead(g *group) string {
	var b strings.Builder
	out := argQuote(g.table + ".sql")
	if g.frm != "" {
		fmt.Fprintf(&b, "innoscope schema %s > %s; ", argQuote(g.frm), out)
	} else if len(g.ibds) > 0 {
		fmt.Fprintf(&b, "innoscope schema %s > %s; ", argQuote(g.ibds[0]), out)
	}
	mysql := false
	db := discovery.SQLName(g.db)
	for _, ibd := range g.ibds {
		// A MySQL general tablespace holds several tables: rows reads one a time, by name.
		names := []string{""}
		if schema.HasSDI(ibd) {
			mysql = true
			objs, err := schema.ReadSDITables(ibd)
			if err == nil && len(objs) > 0 {
				db = objs[0].Table.SchemaRef // the SDI's, not the directory's (a general tablespace sits in the data directory)
			}
			if err == nil && len(objs) > 1 {
				names = names[:0]
				for _, o := range objs {
					names = append(names, " "+argQuote(o.Table.SchemaRef+"."+o.Table.Name))
				}
			}
		}
		frm := ""
		if g.frm != "" && schema.FrmBeside(ibd) != g.frm {
			frm = " --frm " + argQuote(g.frm) // given by --frm
		}
		for _, n := range names {
			fmt.Fprintf(&b, "innoscope rows %s%s%s --format sql >> %s; ", argQuote(ibd), n, frm, out)
		}
	}
	if g.frm != "" {
		if own := schema.TableOf(strings.TrimSuffix(filepath.Base(g.frm), ".frm")); own != g.table {
			fmt.Fprintf(&b, "in %s, rename the CREATE TABLE's %s (the .frm's name) to %s; ", out, schema.QuoteName(discovery.SQLName(own)), schema.QuoteName(discovery.SQLName(g.table)))
		}
	}
	// The CREATE TABLE names no database, the INSERTs name the source's: run the file in it.
	fmt.Fprintf(&b, "then on the target server: CREATE DATABASE IF NOT EXISTS %s, and mariadb %s < %s", schema.QuoteName(db), argQuote(db), out)
	if mysql {
		b.WriteString(" (a MySQL 8 collation such as utf8mb4_0900_ai_ci is unknown to MariaDB before 11.4: change it in the CREATE TABLE first)")
	}
	return b.String()
}

// argQuote quotes a path for a shell command line when it needs it.
func argQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./#@+,:") == "" {
		return s
	}
	return shellQuote(s)
}

// pageRootAutoInc is where the root page of a clustered index keeps the table's AUTO_INCREMENT
// counter, the largest value used (PAGE_HEADER + PAGE_MAX_TRX_ID: the field holds the latest
// transaction id on secondary index leaves, the counter on a clustered root).
const pageRootAutoInc = 38 + 18

// check returns why the table cannot be attached safely ("" when it can), filling in what
// it finds.
func (k *Kit) check(g *group, t *Table) (reason, next string) {
	if len(g.ibds) == 0 {
		return fmt.Sprintf("%s: no .ibd file of the table beside it: its rows are not here", g.frm),
			fmt.Sprintf("find the table's .ibd (innoscope spaces on the data directory names every tablespace file) and give it with %s", g.frm)
	}
	for i := range t.Files {
		f, err := discovery.OpenFile(t.Files[i].Source)
		if err != nil {
			return err.Error(), ""
		}
		t.Files[i].Size = f.Size
		fl := f.FSP.Flags
		if fl.SDI() || f.Vendor == discovery.VendorMySQL {
			f.Close()
			return fmt.Sprintf("%s: a MySQL 8 file (flags 0x%x): MariaDB cannot import it (another format of pages, undo and dictionary)", f.Path, fl.Raw),
				rowsInstead(g)
		}
		if scheme, ok := discovery.EncryptionScheme(f.Page0(), fl); ok && scheme != 0 {
			f.Close()
			return fmt.Sprintf("%s: encrypted (page 0 has crypt data, scheme %d): the target needs the source's keys to read it", f.Path, scheme),
				"give the target server the source's encryption key management (the same key file or plugin settings), then import by hand"
		}
		if t.PageSize == 0 {
			t.PageSize = fl.PageSize
		} else if t.PageSize != fl.PageSize {
			f.Close()
			return fmt.Sprintf("%s: %d-byte pages, the table's other files have %d", f.Path, fl.PageSize, t.PageSize), ""
		}
		if p, err := f.ReadPage(3); err == nil {
			if i == 0 && binary.BigEndian.Uint16(p[discovery.FilPageType:]) == 18 {
				t.Instant = true
			}
			if n := binary.BigEndian.Uint64(p[pageRootAutoInc:]); n > 0 && n+1 > t.AutoIncrement {
				t.AutoIncrement = n + 1
			}
		}
		if i == 0 {
			t.RowFormat = rowFormatOf(fl)
		}
		f.Close()
		if isl := g.isl[t.Files[i].Source]; isl != "" {
			t.DataDirectory = filepath.Dir(filepath.Dir(t.Files[i].Source))
		}
	}
	if g.frm == "" {
		return fmt.Sprintf("%s: no .frm beside it: the kit needs the table's definition", g.ibds[0]),
			fmt.Sprintf("copy the table's .frm (from a backup, or made by CREATE TABLE on any server of the same version: `innoscope schema DATADIR %s.%s` writes the statement from the InnoDB dictionary when the data directory's ibdata1 is there) into %s, then run adopt again",
				discovery.SQLName(g.db), discovery.SQLName(g.table), frmDir(g))
	}
	if reason := checkPartitions(g); reason != "" {
		return reason, ""
	}
	clustered := ""
	for _, ibd := range g.ibds {
		def, err := schema.FromFile(ibd, g.frm, "")
		if err == nil {
			// The records must read as the .frm defines them, as `rows` checks before it prints
			// one: a .frm of another table would attach the file under a wrong definition.
			var rt *rows.Table
			if rt, err = rows.New(def); err == nil {
				err = rt.CheckLayout()
			}
		}
		if err != nil {
			return err.Error(), fmt.Sprintf("give the table's own .frm beside %s or with --frm; its rows without the kit: innoscope rows %s --frm ITS.frm --format sql", argQuote(ibd), argQuote(ibd))
		}
		if !def.Compact {
			t.RowFormat = "REDUNDANT"
		}
		clustered = def.Clustered.Name
	}
	src, err := schema.StatementOf(g.frm)
	if err != nil {
		return err.Error(), fmt.Sprintf("innoscope rows %s --frm FILE.frm --format sql, with a .frm that reads", g.ibds[0])
	}
	t.Version = frmVersion(g.frm)
	if k.Version == "" && t.Version > 0 {
		k.Version = majorOf(t.Version)
	}
	if k.PageSize == 0 {
		k.PageSize = t.PageSize
	}
	if t.Version > 0 && majorOf(t.Version) != k.Version {
		return fmt.Sprintf("%s: written by server %s, the target is %s: the kit attaches tables to a server of the same major version", g.frm, majorOf(t.Version), k.Version), ""
	}
	if t.PageSize != k.PageSize {
		return fmt.Sprintf("%s: %d-byte pages, the target's innodb_page_size is %d: IMPORT TABLESPACE needs the same page size", g.ibds[0], t.PageSize, k.PageSize), ""
	}
	t.Create = kitStatement(src.Create, t)
	if i := strings.Index(t.Create, " ("); strings.HasPrefix(t.Create, "CREATE TABLE ") && i > 0 {
		t.Create = "CREATE TABLE " + schema.QuoteName(t.Name) + t.Create[i:] // a .frm given by --frm names its own file
	}
	if strings.Contains(t.Create, "\n  FULLTEXT KEY ") {
		return g.frm + ": a FULLTEXT index: its auxiliary tables (FTS_*.ibd) and hidden FTS_DOC_ID are not attached by the kit", ""
	}
	if !strings.Contains(t.Create, " AUTO_INCREMENT") {
		t.AutoIncrement = 0 // no such column: the field is not a counter
	}
	t.Create, t.AddKeys = splitKeys(t.Create, clustered)
	if len(t.AddKeys) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d secondary index(es) added after the import (MariaDB imports without a .cfg file only a table with no secondary index; they are built again from the rows)", len(t.AddKeys)))
	}
	if g.par != "" {
		if reason := staging(t); reason != "" {
			return reason, ""
		}
	}
	if t.Instant && olderThan(k.Version, 10, 6) {
		return fmt.Sprintf("%s: instant-altered (its root is an INSTANT page), and MariaDB %s imports such a table as a corrupt B-tree, even with the .cfg file its own FLUSH TABLES FOR EXPORT writes "+
				"(10.5.23 here: CHECK TABLE says \"The B-tree of index PRIMARY is corrupted\", and after a restart the table does not exist in the engine)", g.ibds[0], k.Version),
			rowsInstead(g)
	}
	if t.Instant {
		t.Notes = append(t.Notes, "instant-altered (its root is an INSTANT page): IMPORT TABLESPACE reads the metadata record from the file, no .cfg needed")
	}
	if t.DataDirectory != "" {
		t.Notes = append(t.Notes, fmt.Sprintf("was in DATA DIRECTORY %s: attached in the target's data directory", t.DataDirectory))
	}
	return "", ""
}

// rowFormatOf is the row format the flags of a file say (full_crc32 flags do not say it:
// "", decided by the records and the .frm).
func rowFormatOf(fl discovery.Flags) string {
	switch {
	case fl.FullCRC32:
		return ""
	case fl.ZipSize != 0:
		return "COMPRESSED"
	case fl.AtomicBlobs:
		return "DYNAMIC"
	}
	return "COMPACT" // or REDUNDANT: the records say (MariaDB gives both the flags 0)
}

// checkPartitions: a partitioned table's .par names exactly the partition files given.
func checkPartitions(g *group) string {
	if g.par == "" {
		for _, ibd := range g.ibds {
			if strings.Contains(strings.ToUpper(filepath.Base(ibd)), "#P#") {
				return fmt.Sprintf("%s: a partition's file without its table's .par beside %s", ibd, g.frm)
			}
		}
		return ""
	}
	parts := schema.ParPartitions(g.par)
	if parts == nil {
		return fmt.Sprintf("%s: not a readable .par file", g.par)
	}
	have := map[string]bool{}
	for _, ibd := range g.ibds {
		n := strings.TrimSuffix(filepath.Base(ibd), ".ibd")
		if i := strings.Index(strings.ToUpper(n), "#P#"); i > 0 {
			have[strings.ToLower(n[i+3:])] = true
		}
	}
	var missing []string
	for _, p := range parts {
		if !have[strings.ToLower(p)] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("%s: partition(s) %s have no file here (%s#P#%s.ibd): IMPORT TABLESPACE needs every partition", g.par, strings.Join(missing, ", "), g.table, missing[0])
	}
	if len(have) != len(parts) {
		return fmt.Sprintf("%s names %d partitions, %d partition files were given", g.par, len(parts), len(have))
	}
	return ""
}

var (
	dataDirOpt = regexp.MustCompile(` (DATA|INDEX) DIRECTORY ?= ?'(?:[^'\\]|\\.|'')*'`)
	partByOpt  = regexp.MustCompile(`\s*(/\*!50100 )?PARTITION BY [\s\S]*$`)
	rowFmtOpt  = regexp.MustCompile(`ROW_FORMAT=[A-Z]+`)
)

// kitStatement is the CREATE TABLE of the kit: without DATA DIRECTORY (the table goes to the
// target's data directory), with the row format stated when the file says it and the
// statement does not (the target's innodb_default_row_format may be another).
func kitStatement(create string, t *Table) string {
	create = dataDirOpt.ReplaceAllString(create, "")
	if m := rowFmtOpt.FindString(create); m != "" {
		if t.RowFormat == "" {
			t.RowFormat = strings.TrimPrefix(m, "ROW_FORMAT=")
		}
		return create
	}
	if t.RowFormat == "" {
		t.RowFormat = "DYNAMIC"
		t.Notes = append(t.Notes, "neither the .frm nor the full_crc32 flags give the row format: DYNAMIC (innodb_default_row_format's default) stated; COMPACT records read alike, only new long values are stored otherwise")
	}
	if i := strings.Index(create, "ENGINE=InnoDB"); i >= 0 {
		j := i + len("ENGINE=InnoDB")
		return create[:j] + " ROW_FORMAT=" + t.RowFormat + create[j:]
	}
	return create
}

// staging names the staging table of each partition file (the table's name, "__adopt_" and
// the partition's) and makes the statement of those tables: the table's without its
// partitioning. A subpartitioned table is refused (EXCHANGE PARTITION takes no subpartition of
// it here).
func staging(t *Table) string {
	loc := partByOpt.FindStringIndex(t.Create)
	if loc == nil {
		return fmt.Sprintf("%s: a .par beside the .frm, but no PARTITION BY in the table's statement", t.Par)
	}
	for i := range t.Files {
		f := &t.Files[i]
		n := strings.TrimSuffix(filepath.Base(f.Source), ".ibd")
		p := n[strings.Index(strings.ToUpper(n), "#P#")+3:]
		if strings.Contains(strings.ToUpper(p), "#SP#") {
			return fmt.Sprintf("%s: a subpartition: the kit attaches partitioned tables by EXCHANGE PARTITION, which takes no subpartitioned table", f.Source)
		}
		f.Partition = discovery.SQLName(p)
		f.Staging = t.Name + "__adopt_" + f.Partition
		f.Target = filepath.Join(filepath.Dir(f.Target), schema.FileName(f.Staging)+".ibd")
	}
	head := t.Create[:loc[0]]
	if i := strings.Index(head, "CREATE TABLE "); i >= 0 {
		if j := strings.Index(head[i:], " ("); j >= 0 {
			t.StagingCreate = "CREATE TABLE @STAGING@" + head[i+j:]
		}
	}
	if t.StagingCreate == "" {
		return fmt.Sprintf("%s: the table's statement does not read as CREATE TABLE name (...)", t.Frm)
	}
	return ""
}

// splitKeys takes the secondary keys out of a CREATE TABLE statement (one key a line, as
// schema writes it), all but the one InnoDB clusters the table by (clustered: its name), and
// returns them as ALTER TABLE ... ADD clauses.
func splitKeys(create, clustered string) (string, []string) {
	lines := strings.Split(create, "\n")
	var keep, adds []string
	for _, l := range lines {
		k := strings.TrimSuffix(strings.TrimPrefix(l, "  "), ",")
		isKey := false
		for _, p := range []string{"KEY `", "UNIQUE KEY `", "SPATIAL KEY `"} {
			if strings.HasPrefix(k, p) && keyName(k[len(p)-1:]) != clustered {
				isKey = true
			}
		}
		if isKey {
			adds = append(adds, "ADD "+k)
			continue
		}
		keep = append(keep, l)
	}
	// The line before the closing parenthesis of the definitions has no comma.
	for i := 1; i < len(keep); i++ {
		if strings.HasPrefix(keep[i], ")") {
			keep[i-1] = strings.TrimSuffix(keep[i-1], ",")
			break
		}
	}
	return strings.Join(keep, "\n"), adds
}

// keyName reads the quoted name at the start of s.
func keyName(s string) string {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] == '`' {
			if i+1 < len(s) && s[i+1] == '`' {
				b.WriteByte('`')
				i++
				continue
			}
			break
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// frmDir is where the table's .frm goes: beside its .ibd, or for a DATA DIRECTORY table beside
// its .isl link in the database directory.
func frmDir(g *group) string {
	if isl := g.isl[g.ibds[0]]; isl != "" {
		return filepath.Dir(isl)
	}
	return filepath.Dir(g.ibds[0])
}
