package report

import (
	"fmt"
	"html/template"

	"innoscope/finding"
)

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"lsn": func(p *uint64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	},
	"space": func(p *uint32) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	},
	"thousands": func(n int64) string { return finding.Thousands(n) },
	"n":         func(n int) string { return finding.Thousands(int64(n)) },
	"path":      breakable,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>innoscope report: {{.Title}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#111827;max-width:1200px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid #e5e7eb}
.verdict{font-size:18px;font-weight:600;padding:12px 16px;border-radius:6px;margin:12px 0}
.verdict.ok{background:#dcfce7;color:#14532d}.verdict.warn{background:#fef3c7;color:#78350f}.verdict.bad{background:#fee2e2;color:#7f1d1d}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #e5e7eb;padding:4px 8px;text-align:left;vertical-align:top}td.w{overflow-wrap:break-word}td.n{white-space:nowrap}
td.r,th.r{text-align:right}tfoot td{font-weight:600;background:#f9fafb}
svg{max-width:100%;height:auto}
th{background:#f9fafb}td.sev-error{color:#b91c1c;font-weight:600}td.sev-warning{color:#b45309;font-weight:600}
code{font-family:ui-monospace,monospace}.muted{color:#6b7280}
.lbl{font:12px sans-serif;fill:#111827}.tick{font:11px ui-monospace,monospace;fill:#374151}.ev{font:11px ui-monospace,monospace;fill:#374151}
td.st-committed{color:#16a34a}td.st-open{color:#b45309}h3{font-size:15px;margin:18px 0 6px;color:#7f1d1d}
td.op-create{color:#16a34a}td.op-delete{color:#dc2626}td.op-rename{color:#9333ea}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:16px}.space{margin:12px 0}
dl.counts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0}dl.counts dt{font-weight:600;text-align:right}dl.counts dd{margin:0}
.nw{white-space:nowrap}div.scroll{overflow-x:auto}
@media (max-width:900px){body{margin:12px}#findings thead{display:none}#findings tr{display:block;border:1px solid #e5e7eb;margin-bottom:8px}
#findings td{display:block;border:none;padding:2px 8px}#findings td::before{content:attr(data-label);display:inline-block;min-width:5em;color:#6b7280}#findings td[data-label=""]::before{display:none}}
ol.next li{margin:6px 0}ol.next code{display:block;background:#f3f4f6;padding:6px 8px;border-radius:4px;overflow-wrap:break-word;margin-top:2px}
</style>
</head>
<body>
<h1>innoscope report</h1>
<div class="muted"><code>{{path .Title}}</code> · innoscope {{.Version}} · {{index .Summary "error"}} errors, {{index .Summary "warning"}} warnings, {{index .Summary "info"}} info</div>
<div class="verdict {{.Tone}}" id="verdict">{{.Verdict.Sentence}}</div>
{{if not .Page.Timeline.NoLog}}<dl class="counts" id="counts">
{{if .Counts.Known}}<dt id="to-recover">{{n .Counts.ToRecover}}</dt><dd>pages to recover: the count mariadbd prints as “InnoDB: To recover: N pages” when it recovers this log in one batch{{if .Refused}}, had it not refused first{{else}} (the verdict's number){{end}}</dd>
{{end}}<dt id="with-records">{{n .Counts.PagesWithRecords}}</dt><dd>pages with log records after the checkpoint (the sum of the table below){{if .Counts.Known}}{{if gt .Counts.PagesWithRecords .Counts.ToRecover}}: more than the server's count, which leaves out the pages of tablespaces the log deletes, those an undo truncation discards, page 0 of a tablespace rebuilt early and the pages its start-up reads before the batch{{end}}{{end}}</dd>
<dt>{{n .Counts.PageRecords}}</dt><dd>page records after the checkpoint</dd>
{{if .Corrupt}}<dt>{{n .Corrupt}}</dt><dd>corrupt pages found in the datafiles (black on the heat map)</dd>
{{end}}</dl>{{end}}

{{if .Next}}<h2>What to do next</h2>
<ol class="next" id="next">
{{range .Next}}<li>{{.Why}}<code>{{path .Command}}</code></li>
{{end}}</ol>{{end}}

<h2>Findings</h2>
{{if .Sorted}}<div class="scroll"><table id="findings"><thead><tr><th>Severity</th><th>Code</th><th>Space</th><th>File</th><th>LSN</th><th>Message</th></tr></thead><tbody>
{{range .Sorted}}<tr><td class="sev-{{.Severity}}" data-label="severity">{{.Severity}}</td><td class="n" data-label="code"><code>{{.Code}}</code></td><td class="n" data-label="space">{{space .SpaceID}}</td><td class="w" data-label="file"><code>{{path .File}}</code></td><td class="n" data-label="LSN">{{lsn .LSN}}</td><td class="w" data-label="">{{path .Message}}</td></tr>
{{end}}</tbody></table></div>{{else}}<p>No findings.</p>{{end}}

{{with .Trx}}<h2>Transactions in the log after the checkpoint</h2>
{{if .Note}}<p class="muted" id="trx-note">{{path .Note}}</p>{{else if .Rows}}<div class="scroll"><table id="trx"><thead><tr><th>Table</th><th>State at the end of the log</th><th class="r">Transactions</th><th class="r">Inserts</th><th class="r">Updates</th><th class="r">Deletes</th><th class="r">Not decoded exactly</th></tr></thead><tbody>
{{range .Rows}}<tr><td class="w"><code>{{.Table}}</code></td><td class="n st-{{.State}}">{{.State}}</td><td class="r">{{n .Trxs}}</td><td class="r">{{n .Inserts}}</td><td class="r">{{n .Updates}}</td><td class="r">{{n .Deletes}}</td><td class="r">{{if .Inexact}}{{n .Inexact}}{{end}}</td></tr>
{{end}}</tbody></table></div>
<p class="muted">To the end of the log the server's recovery reads; open transactions are rolled back by it; row by row: <code>{{path .Command}}</code></p>{{else}}<p>No row change in the log after the checkpoint.</p>{{end}}
{{with .Ledger}}<h3 id="ledger">Lost where recovery stops: LSN {{.CutLSN}} ({{.Finding}})</h3>
{{if .Error}}<p>Not known: {{path .Error}}</p>{{else}}<p>{{n (len .Transactions)}} committed transactions after LSN {{.CutLSN}}{{if .ReadToLSN}} (the log read on to LSN {{.ReadToLSN}}){{end}}: the server's recovery finds them open and rolls them back.{{if .MaybeLost}} {{n (len .MaybeLost)}} more were open where the log could not be read on: lost too if their commit lay there.{{end}}</p>{{end}}
{{end}}{{if .LostRows}}<div class="scroll"><table id="lost"><thead><tr><th class="r">Transaction</th><th>Committed at LSN</th><th>Table</th><th class="r">Inserts</th><th class="r">Updates</th><th class="r">Deletes</th></tr></thead><tbody>
{{range .LostRows}}<tr><td class="r">{{.Trx}}</td><td class="n">{{if .CommitLSN}}{{.CommitLSN}}{{else}}maybe lost{{end}}</td><td class="w"><code>{{.Table}}</code></td><td class="r">{{n .Inserts}}</td><td class="r">{{n .Updates}}</td><td class="r">{{n .Deletes}}</td></tr>
{{end}}</tbody></table></div>{{end}}
{{with .Ledger}}{{if .Unknown}}<p class="muted">{{path .Unknown}}</p>{{end}}{{if .Command}}<p>Their changes row by row: <code>{{path .Command}}</code></p>{{end}}{{end}}
{{end}}
<h2>Redo log timeline</h2>
{{.Timeline}}
{{if .Page.Timeline.Events}}<div class="scroll"><table id="fileops"><thead><tr><th>LSN</th><th>File operation</th><th>Space</th><th>Name</th></tr></thead><tbody>
{{range .Page.Timeline.Events}}<tr><td class="n">{{.LSN}}</td><td class="op-{{.Kind}}">{{.Kind}}</td><td>{{.Space}}</td><td class="w"><code>{{path .Name}}</code></td></tr>
{{end}}</tbody></table></div>{{end}}

<h2>Pages with log records per tablespace</h2>
<div class="scroll"><table id="pages"><thead><tr><th>Space</th><th>File</th><th class="r">Pages in the file</th><th class="r">Pages with log records</th><th class="r">Corrupt pages</th><th>Note</th></tr></thead><tbody>
{{range .Spaces}}<tr><td>{{if .Unknown}}?{{else}}{{.ID}}{{end}}</td><td class="w"><code>{{path .Name}}</code></td><td class="r">{{thousands .Pages}}</td><td class="r">{{n .PagesWithRecords}}</td><td class="r">{{if .CorruptPages}}{{n .CorruptPages}}{{end}}</td><td class="w">{{path .Note}}</td></tr>
{{end}}</tbody><tfoot><tr><td colspan="3">total</td><td class="r" id="pages-total">{{n .Total}}</td><td class="r">{{if .Corrupt}}{{n .Corrupt}}{{end}}</td><td></td></tr></tfoot></table></div>

<h2>Page LSN heat map</h2>
{{.Legend}}
{{range .Heat}}<div class="space"><div><b>space {{if .Unknown}}?{{else}}{{.ID}}{{end}}</b> <code>{{path .Name}}</code> <span class="muted">{{thousands .Pages}} pages{{if gt .PagesPerCell 1}}, {{.PagesPerCell}} pages per cell{{end}}{{if .Note}}; {{path .Note}}{{end}}</span></div>{{.SVG}}</div>
{{end}}
</body>
</html>
`))
