package replay

import (
	"fmt"
	"path/filepath"
	"sync"

	"innoscope/analysis"
	"innoscope/changes"
	"innoscope/discovery"
	"innoscope/logformat"
	"innoscope/logformat/logcheck"
	"innoscope/logformat/redo"
	"innoscope/rows"
	"innoscope/schema"
)

// ChangesOptions choose the window and the table of LogChanges.
type ChangesOptions struct {
	From, To  uint64 // the window: from From (0: the checkpoint) to before To (0: the end of the log)
	DB, Table string // only this table ("": every table)
	// PastDamage reads on past a damaged mini-transaction to the whole ones after it
	// (logcheck.Damaged): what a recovery that stops at the damage loses. Pages the damaged one
	// changed are as the log left them before it.
	PastDamage bool
}

// maxDamageHops bounds how many damaged mini-transactions PastDamage reads past.
const maxDamageHops = 16

// LogChanges lists the row changes of the log of s in the window: the log is replayed in memory
// from the checkpoint (or From, below it) over the system and undo tablespaces, the undo records
// it appends are followed to their transactions (package changes), then decoded with the
// tables' definitions from the dictionary. Only MariaDB 10.8+ logs are read.
func LogChanges(s discovery.Layout, opt ChangesOptions) ([]*changes.Trx, error) {
	trxs, _, err := logChanges(s, opt)
	return trxs, err
}

// LogChangesTo is LogChanges handing each transaction to emit, in the same order, as soon as
// nothing later in the log changes what is said of it (a finished one once the row images of
// its changes are found), and the unfinished ones at the end: memory holds only the
// transactions still open. emit may Release the transaction once it has written it.
func LogChangesTo(s discovery.Layout, opt ChangesOptions, emit func(*changes.Trx) error) error {
	_, err := streamChanges(s, opt, emit)
	return err
}

// logChanges is LogChanges with the damaged mini-transactions it read past (PastDamage).
func logChanges(s discovery.Layout, opt ChangesOptions) ([]*changes.Trx, []*logcheck.Damage, error) {
	var trxs []*changes.Trx
	damages, err := streamChanges(s, opt, func(t *changes.Trx) error {
		trxs = append(trxs, t)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return trxs, damages, nil
}

// streamChanges is LogChangesTo, returning the damaged mini-transactions it read past
// (PastDamage).
func streamChanges(s discovery.Layout, opt ChangesOptions, emit func(*changes.Trx) error) ([]*logcheck.Damage, error) {
	l, err := analysis.OpenLog(s, "")
	if err != nil {
		return nil, err
	}
	defer l.Close()
	if l.V108() == nil {
		return nil, fmt.Errorf("%s: log changes reads MariaDB 10.8+ logs (ib_logfile0 of the 10.8+ format) only; this log is of another format: start the server that wrote it on a copy (innoscope recover) and read its binary log, or use `innoscope log records` for its records", l.Path)
	}
	scan := redo.ScanOptions{To: opt.To}
	if cp := l.CheckpointLSN(); opt.From != 0 && opt.From < cp {
		scan.From = opt.From
	}
	a, _, _, err := analysis.ReadLog(l, scan)
	if err != nil {
		return nil, err
	}
	sc, _, err := l.Scanner(scan)
	if err != nil {
		return nil, err
	}
	var replayed discovery.PageReader // the pages as the log leaves them, while the scan runs
	tables, closeTables, err := dictTables(s, func() discovery.PageReader { return replayed }, l.PageSize)
	if err != nil {
		return nil, err
	}
	defer closeTables()
	// pass decodes transactions with the tables' definitions, keeps those with changes (of
	// opt's table) and emits them.
	pass := func(trxs []*changes.Trx) error {
		trxs = changes.Resolve(trxs, tables)
		if opt.Table != "" {
			trxs = changes.OnlyTable(trxs, opt.DB+"."+opt.Table)
		}
		for _, t := range trxs {
			if err := emit(t); err != nil {
				return err
			}
		}
		return nil
	}
	col := changes.NewCollector(opt.From, tables)
	// The finished transactions are decoded and emitted on another goroutine (core) while the
	// log is read on, in the order the collector gives them.
	finished, resolved := make(chan *changes.Trx, 256), make(chan struct{})
	var emitErr error
	go func() {
		defer close(resolved)
		for t := range finished {
			if emitErr == nil {
				emitErr = pass([]*changes.Trx{t})
			}
		}
	}()
	stopped := false
	stop := func() error { // waits for what was handed over; its emit's first error
		if !stopped {
			close(finished)
			<-resolved
			stopped = true
		}
		return emitErr
	}
	defer stop()
	col.Emit = func(t *changes.Trx) error {
		finished <- t
		return nil
	}
	observe := func(m *logformat.MTR, read discovery.PageReader) error {
		replayed = read
		return col.Observe(m, read)
	}
	var damages []*logcheck.Damage
	cur := (*logformat.Scanner)(nil)
	next := func() (*logformat.Scanner, error) {
		if cur == nil {
			cur = sc
			return sc, nil
		}
		if !opt.PastDamage || len(damages) >= maxDamageHops {
			return nil, nil
		}
		stop, _, _ := cur.Stop()
		d, err := logcheck.Damaged(l.V108(), stop, cur.LSN(), l.PageSize)
		if err != nil || d == nil || opt.To != 0 && d.Resume >= opt.To {
			return nil, err
		}
		damages = append(damages, d)
		cur = l.V108().Scan(d.Resume, logformat.ScanOptions{PageSize: l.PageSize, ToLSN: opt.To})
		return cur, nil
	}
	// at the end the changes still awaiting their row images get the record layout the pages
	// have then, while those are readable
	upTo := func() (*logformat.Scanner, error) {
		sc, err := next()
		if sc == nil && err == nil {
			col.EndOfLog()
		}
		return sc, err
	}
	err = watchScans(upTo, s, l.PageSize, a, nil, observe)
	replayed = nil // its files are closed
	if err != nil {
		stop()
		return nil, err
	}
	if err := stop(); err != nil {
		return nil, err
	}
	trxs := col.Trxs() // those not emitted yet
	// a server with a binary log commits a transaction prepared for it as the binary log says
	bl, err := discovery.FindBinlog(s.Datadir)
	where := s.Datadir
	if err != nil {
		bl, where = nil, fmt.Sprintf("%s (%v)", s.Datadir, err)
	}
	return damages, pass(changes.ByBinlog(trxs, bl, where))
}

// dictTables opens a table's definition by its id when a change first names it: from the
// dictionary of the system tablespace of s as it is on disk, or else, for a table the log
// creates (its SYS_TABLES record is not on disk yet), from the dictionary's pages as the scan
// has replayed them so far (replayed: nil once the scan is over), whose page size is pageSize.
// close releases the files the definitions opened.
func dictTables(s discovery.Layout, replayed func() discovery.PageReader, pageSize int) (tables changes.Tables, close func(), err error) {
	dir, name := s.SystemFile()
	sysPath := filepath.Join(dir, name)
	f, err := discovery.OpenFile(sysPath)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	dict, err := discovery.ReadDictTables(f)
	if err != nil {
		return nil, nil, err
	}
	byID := map[uint64]string{}
	for _, t := range dict {
		if !t.Deleted {
			byID[t.ID] = t.Name
		}
	}
	type got struct {
		t   *rows.Table
		err error
	}
	seen := map[uint64]got{}
	var mu sync.Mutex // the transactions are resolved on another goroutine than the scan's
	tables = func(id uint64) (*rows.Table, error) {
		mu.Lock()
		defer mu.Unlock()
		if g, ok := seen[id]; ok {
			return g.t, g.err
		}
		var g got
		if n, ok := byID[id]; ok {
			db, tb := splitName(n)
			g.t, g.err = rows.Open(s, discovery.SQLName(db), discovery.SQLName(schema.TableOf(tb)))
		} else if read := replayed(); read == nil {
			g.err = fmt.Errorf("not in the dictionary (SYS_TABLES of %s)", sysPath)
		} else {
			g.t, g.err = replayedTable(s, read, pageSize, sysPath, id)
		}
		seen[id] = g
		return g.t, g.err
	}
	close = func() {
		for _, g := range seen {
			if g.t != nil {
				g.t.Close()
			}
		}
	}
	return tables, close, nil
}

// replayedTable opens table id's definition from the system tablespace's pages as read gives
// them (the scan's replay): the dictionary records the log has written so far.
func replayedTable(s discovery.Layout, read discovery.PageReader, pageSize int, sysPath string, id uint64) (*rows.Table, error) {
	sys, err := discovery.NewFile(discovery.SpacePages{Read: read, Size: int64(pageSize)}, 1<<40, sysPath)
	if err != nil {
		return nil, err
	}
	dict, err := discovery.ReadDictTables(sys)
	if err != nil {
		return nil, fmt.Errorf("the dictionary as the log leaves it: %w", err)
	}
	for _, t := range dict {
		if !t.Deleted && t.ID == id {
			db, tb := splitName(t.Name)
			return rows.OpenIn(s, sys, discovery.SQLName(db), discovery.SQLName(schema.TableOf(tb)))
		}
	}
	return nil, fmt.Errorf("not in the dictionary (SYS_TABLES of %s, on disk or as the log leaves it)", sysPath)
}

func splitName(n string) (string, string) {
	for i := 0; i < len(n); i++ {
		if n[i] == '/' {
			return n[:i], n[i+1:]
		}
	}
	return "", n
}
