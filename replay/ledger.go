package replay

import (
	"fmt"
	"strconv"

	"innoscope/changes"
	"innoscope/discovery"
	"innoscope/finding"
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
			return &changes.Ledger{Finding: f.Code, File: f.File, CutLSN: *f.LSN, Transactions: []changes.LostTrx{},
				Unknown: fmt.Sprintf("the log after LSN %d cannot be read: what it held is unknown", *f.LSN)}
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
// transactions committed after cut.
func damageLedger(s discovery.Layout, code, file string, cut uint64) *changes.Ledger {
	l := &changes.Ledger{Finding: code, File: file, CutLSN: cut, Transactions: []changes.LostTrx{}}
	trxs, damages, err := logChanges(s, ChangesOptions{PastDamage: true})
	if err != nil {
		l.Error = fmt.Sprintf("the log past LSN %d could not be read as row changes: %v", cut, err)
		return l
	}
	l.Transactions = changes.Lost(trxs, cut)
	var unread []string
	for _, d := range damages {
		if d.At >= cut {
			unread = append(unread, fmt.Sprintf("LSN %d-%d", d.At, d.Resume))
			l.ReadToLSN = d.End
		}
	}
	switch {
	case len(unread) == 0:
		l.Unknown = fmt.Sprintf("the log after LSN %d cannot be read: what it held is unknown", cut)
	case len(unread) == 1:
		l.Unknown = fmt.Sprintf("the damaged mini-transaction at %s cannot be read: what it held is unknown (a commit in it would make one more transaction lost)", unread[0])
	default:
		l.Unknown = fmt.Sprintf("the damaged mini-transactions at %v cannot be read: what they held is unknown", unread)
	}
	from := cut
	for _, t := range l.Transactions {
		from = min(from, t.FirstLSN)
	}
	if len(l.Transactions) > 0 {
		l.Command = "innoscope log changes " + quoteArg(s.Datadir) + " --past-damage --from-lsn " + strconv.FormatUint(from, 10)
	}
	return l
}
