package analysis

import (
	"fmt"

	"innoscope/logformat"
)

// ServerSupport is whether a range of MariaDB versions recovers (or starts on) a data
// directory's redo log, judged from its format, its creator and whether it has log after its
// checkpoint; the verdict and the findings say what else the server will meet. What each says
// was measured with the lab's servers (10.5, 10.11, 11.8) on their own crashes and each other's.
type ServerSupport struct {
	Versions string `json:"versions"` // "10.5-10.7", "10.8-10.11", "11.x"
	Recovers bool   `json:"recovers"`
	Note     string `json:"note,omitempty"`
}

// Servers says which MariaDB versions start on the directory's log (nil when the log is unusable or of a
// format other than MariaDB 10.5+):
//
//   - a 10.8+ log ("Phys"): 10.8 and later recover it; 10.5-10.7 refuse it ("Unsupported redo
//     log format", measured with 10.5 on 10.11 and 11.8 crashes). A crash of an 11.x server
//     started by 10.8-10.11: 10.11 recovers it with CHECK TABLE and CHECKSUM TABLE as 11.8's own
//     recovery, and logs "[ERROR] InnoDB: The change buffer is corrupted or has been removed on
//     upgrade to MariaDB 11.0 or later" (11 removed the change buffer). A 10.11 crash started by
//     11.8: recovered, tables as 10.11's own recovery ("Upgraded the change buffer").
//   - a 10.5-10.7 log ("PHYS") with log after its checkpoint: 10.5-10.7 recover it; 10.8 and
//     later refuse it ("Upgrade after a crash is not supported", measured with 10.11 and 11.8),
//     and start on `innoscope recover`'s copy (TestCrashUpgrade105). Without log after the
//     checkpoint every version starts it.
func (d *Diagnosis) Servers() []ServerSupport {
	if d.Input.Analysis == nil {
		return nil
	}
	l, err := OpenLog(d.Layout, "")
	if err != nil {
		return nil
	}
	defer l.Close()
	h := l.Header
	crashed := d.Analysis.Map.EndLSN > d.CheckpointLSN
	switch h.Format &^ logformat.FormatEncrypted {
	case logformat.FormatMariaDB108:
		old := ServerSupport{Versions: "10.8-10.11", Recovers: true}
		if CreatorMajor(h.Creator) >= 11 {
			old.Note = fmt.Sprintf("written by %s: 10.11 recovers it, logging \"The change buffer is corrupted or has been removed on upgrade to MariaDB 11.0 or later\" (11.0 removed the change buffer)", h.Creator)
		}
		return []ServerSupport{
			{Versions: "10.5-10.7", Note: "they do not read the 10.8 log format (\"Unsupported redo log format\")"},
			old, {Versions: "11.x", Recovers: true}}
	case logformat.FormatMariaDB105:
		if !crashed {
			return []ServerSupport{{Versions: "10.5-10.7", Recovers: true}, {Versions: "10.8-10.11", Recovers: true}, {Versions: "11.x", Recovers: true}}
		}
		refused := "\"Upgrade after a crash is not supported\" (CRASH_UPGRADE_REFUSED); they start on the copy `innoscope recover` makes"
		return []ServerSupport{{Versions: "10.5-10.7", Recovers: true},
			{Versions: "10.8-10.11", Note: refused}, {Versions: "11.x", Note: refused}}
	}
	return nil
}

// ServersLine is Servers as text: "servers: MariaDB 10.8-10.11 and 11.x recover this log;
// 10.5-10.7 refuse it", then a line per note.
func ServersLine(ss []ServerSupport) string {
	var yes, no, notes []string
	for _, s := range ss {
		if s.Recovers {
			yes = append(yes, s.Versions)
		} else {
			no = append(no, s.Versions)
		}
		if s.Note != "" {
			notes = append(notes, s.Versions+": "+s.Note)
		}
	}
	line := "servers: MariaDB " + join(yes) + " recover this log"
	if len(yes) == 0 {
		line = "servers: no MariaDB version recovers this log"
	}
	if len(no) > 0 {
		line += "; " + join(no) + " refuse it"
	}
	for _, n := range notes {
		line += "\n  " + n
	}
	return line
}

func join(v []string) string {
	switch len(v) {
	case 0:
		return ""
	case 1:
		return v[0]
	}
	s := v[0]
	for _, x := range v[1 : len(v)-1] {
		s += ", " + x
	}
	return s + " and " + v[len(v)-1]
}
