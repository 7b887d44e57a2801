package replay

import (
	"fmt"
	"strconv"

	"innoscope/analysis"
	"innoscope/changes"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/logformat/logcheck"
)

// LossLedger is what the cut of the log that a finding of fs says the server's recovery stops
// at loses, in rows (changes.Ledger): for LOG_DAMAGED, the log is read past the damage
// (ChangesOptions.PastDamage) and the transactions committed after it are the loss; for
// LOG_TRUNCATED and LOG_END_DAMAGED, what followed the end cannot be read and the ledger says
// so. nil when no finding cuts the log: nothing is read then. A ledger that cannot be made
// says why in its Error; it changes no finding.
func LossLedger(s discovery.Layout, fs []finding.Finding) *changes.Ledger {
	for _, f := range fs {
		if f.LSN == nil {
			continue
		}
		switch f.Code {
		case "LOG_DAMAGED":
			return damageLedger(s, f.Code, f.File, *f.LSN)
		case "LOG_TRUNCATED", "LOG_END_DAMAGED":
			return endLedger(s, f.Code, f.File, *f.LSN)
		}
	}
	return nil
}

// Ledger is the loss ledger of the salvage's cut of the log (log_truncated: the log read past
// the damage; new_log: a missing log, nothing to read); nil when the salvage cuts no log.
func (p *SalvagePlan) Ledger(s discovery.Layout) *changes.Ledger {
	if p == nil {
		return nil
	}
	for _, a := range p.Actions {
		switch a.Action {
		case SalvageLogTruncated:
			return damageLedger(s, "SALVAGE_LOG_TRUNCATED", a.File, a.LSN)
		case SalvageNewLog:
			return &changes.Ledger{Finding: "SALVAGE_NEW_LOG", File: a.File, CutLSN: a.LSN, Transactions: []changes.LostTrx{},
				Unknown: fmt.Sprintf("the log is missing: what it held (from the datafiles' newest page, LSN %d, on) cannot be read and is unknown", a.LSN)}
		}
	}
	return nil
}

// damageLedger reads the log of s from its checkpoint on past the damage at cut and lists the
// transactions committed after cut. None for damage where recovery starts (the checkpoint's
// FILE_CHECKPOINT mini-transaction alone, which the salvage skips losing nothing, or damage
// nothing can be recovered before).
func damageLedger(s discovery.Layout, code, file string, cut uint64) *changes.Ledger {
	if lg, err := analysis.OpenLog(s, ""); err == nil {
		cp := lg.CheckpointLSN()
		lg.Close()
		if cut <= cp {
			return nil
		}
	}
	l := &changes.Ledger{Finding: code, File: file, CutLSN: cut, Transactions: []changes.LostTrx{}}
	trxs, damages, err := ledgerChanges(s, ChangesOptions{PastDamage: true})
	if err != nil {
		l.Error = fmt.Sprintf("the log past LSN %d could not be read as row changes: %v", cut, err)
		return l
	}
	var unread []string
	first := uint64(0)
	for _, d := range damages {
		if d.At >= cut {
			unread = append(unread, fmt.Sprintf("LSN %d-%d", d.At, d.Resume))
			l.ReadToLSN = d.End
			if first == 0 {
				first = d.At
			}
		}
	}
	if first == 0 {
		first = cut // nothing past the cut was read
	}
	l.Transactions, l.MaybeLost = changes.Lost(trxs, cut, first)
	switch {
	case len(unread) == 0:
		l.Unknown = fmt.Sprintf("the log after LSN %d cannot be read: what it held is unknown", cut)
	case len(unread) == 1:
		l.Unknown = fmt.Sprintf("the damaged mini-transaction at %s cannot be read: what it held is unknown (a commit in it would make one more transaction lost, an undo record one more row change)", unread[0])
	default:
		l.Unknown = fmt.Sprintf("the damaged mini-transactions at %v cannot be read: what they held is unknown", unread)
	}
	l.Command = ledgerCommand(s, l, " --past-damage")
	return l
}

// ledgerCommand is the log changes command that lists the ledger's transactions, lost and maybe
// lost, from the first change of any of them ("": none).
func ledgerCommand(s discovery.Layout, l *changes.Ledger, flags string) string {
	from := l.CutLSN
	for _, t := range append(append([]changes.LostTrx{}, l.Transactions...), l.MaybeLost...) {
		from = min(from, t.FirstLSN)
	}
	if len(l.Transactions)+len(l.MaybeLost) == 0 {
		return ""
	}
	return "innoscope log changes " + quoteArg(s.Datadir) + flags + " --from-lsn " + strconv.FormatUint(from, 10)
}

// endLedger is the ledger of a log that ends at end on something else than its end marker: what
// followed cannot be read; the transactions open at the end may have committed there.
func endLedger(s discovery.Layout, code, file string, end uint64) *changes.Ledger {
	l := &changes.Ledger{Finding: code, File: file, CutLSN: end, Transactions: []changes.LostTrx{},
		Unknown: fmt.Sprintf("the log after LSN %d cannot be read: what it held is unknown", end)}
	trxs, _, err := ledgerChanges(s, ChangesOptions{})
	if err != nil {
		l.Error = fmt.Sprintf("the log before LSN %d could not be read as row changes: %v", end, err)
		return l
	}
	_, l.MaybeLost = changes.Lost(trxs, end, end)
	l.Command = ledgerCommand(s, l, "")
	return l
}

// ledgerChanges is logChanges for a ledger: a failure of it, even a panic, is the ledger's error
// and leaves the command's findings and verdict as they are.
func ledgerChanges(s discovery.Layout, opt ChangesOptions) (trxs []*changes.Trx, damages []*logcheck.Damage, err error) {
	defer func() {
		if r := recover(); r != nil {
			trxs, damages, err = nil, nil, fmt.Errorf("internal error reading the row changes (please report it): %v", r)
		}
	}()
	return logChanges(s, opt)
}
