package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"innoscope/analysis"
	"innoscope/discovery"
	"innoscope/finding"
	"innoscope/internal/lab"
	"innoscope/logformat"
)

// TestReportInChromium writes the HTML report of lab crashes and renders it in headless
// Chromium (Debian's chromium; scripts/test.sh installs it): the DOM Chromium builds holds the
// verdict and every finding code of the case's diagnosis, the screenshot is a real image, and
// the file names no external URL and runs no script (it must open offline, in a ticket).
//
// Item 12 of issue 28 (each failed before): the banner said one page count and the table summed
// to another (dml: 112 and 127, unlabelled); each number is now labelled, the table's total is
// the diagnosis's pages with records and the banner's the verdict's, the server's "To recover"
// on the dml crash. Tablespaces recovery rebuilds (page 0 blank, created by the log: ddl_churn)
// and corrupt pages ("salvage": a page of db/t1.ibd or db/t2.ibd recovery needs, flipped) are
// drawn on the heat map (they were not). Paths wrap only after a '/' (they broke mid-name). The timeline's
// axis is labelled (LSN, with ticks). "What to do next" gives the commands that apply; each is
// run here with COPY a new directory, none exits 2, and the real server starts on the copy the
// recover (or salvage) it advises makes, without crash recovery: on dml, ddl_churn, the
// salvage case and a damaged log ("damaged_log": a byte of a mini-transaction in the middle of
// the log flipped). INNOSCOPE_KEEP_REPORTS=DIR keeps each case's report and screenshots there.
func TestReportInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (scripts/test.sh installs it: apt-get install chromium)")
	}
	for _, name := range []string{"ddl_churn", "dml", "salvage", "damaged_log"} {
		t.Run(name, func(t *testing.T) {
			scenario := name
			if name == "salvage" || name == "damaged_log" {
				scenario = "dml"
			}
			s := lab.Get(t, scenario)
			where, onCopy := splitOptions(s.Options)
			dir := s.Crashed
			// A mutated copy goes where a DBA's path would: a short one (the test's own temporary
			// directory has a 40-letter name, which no layout wraps within 800 pixels).
			short, err := os.MkdirTemp("", "innoscope-report-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(short) })
			switch name {
			case "salvage":
				dir = filepath.Join(short, "data")
				lab.CopyDir(t, s.Crashed, dir)
				flipNeededPage(t, dir)
			case "damaged_log":
				flipped, _ := flipInLog(t, s, func(l *logformat.Log, cp uint64) uint64 {
					b, _ := midLogWrite(t, l, cp)
					return b
				})
				dir = filepath.Join(short, "data")
				lab.CopyDir(t, flipped, dir)
			}
			before := lab.HashTree(t, dir)
			tmp := t.TempDir()
			html := filepath.Join(tmp, "report.html")
			out, errs, code := run(append([]string{"report", dir, "--out", html}, where...)...)
			if code == ExitError {
				t.Fatalf("report: exit %d\n%s\n%s", code, out, errs)
			}
			var d diagnoseJSON
			dout, _, _ := run(append([]string{"diagnose", "--json", dir}, where...)...)
			if err := json.Unmarshal([]byte(dout), &d); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(html)
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range []string{"http://", "https://", "<script", " src=", "url("} {
				if bytes.Contains(raw, []byte(bad)) {
					t.Errorf("the report holds %q: it must be self-contained", bad)
				}
			}
			dom := runChromium(t, chromium, tmp, "--dump-dom", "file://"+html)
			verdict := strings.SplitN(out, "\n", 2)[0]
			if !strings.Contains(dom, verdict) {
				t.Errorf("the rendered DOM lacks the verdict %q", verdict)
			}
			if len(d.Findings) == 0 {
				t.Fatal("the case has no finding to look for")
			}
			for _, f := range d.Findings {
				if !strings.Contains(dom, ">"+f.Code+"<") {
					t.Errorf("the rendered DOM lacks finding %s", f.Code)
				}
			}
			for _, id := range []string{`id="findings"`, `class="timeline"`, `id="pages"`, `class="heat"`, `id="next"`, `class="tick"`, `>LSN</text>`} {
				if !strings.Contains(dom, id) {
					t.Errorf("the rendered DOM lacks %s", id)
				}
			}
			reportCounts(t, dom, d, s, name == "dml")
			reportHeat(t, dom, dir, name)
			reportNextSteps(t, dom, dir, s, where, onCopy)
			reportFits(t, chromium, tmp, raw)
			for _, width := range []string{"1280", "700"} {
				shot := filepath.Join(tmp, "report-"+width+".png")
				runChromium(t, chromium, tmp, "--screenshot="+shot, "--window-size="+width+",2400", "--hide-scrollbars", "file://"+html)
				f, err := os.Open(shot)
				if err != nil {
					t.Fatalf("no screenshot: %v", err)
				}
				img, err := png.Decode(f)
				f.Close()
				if err != nil {
					t.Fatalf("screenshot: %v", err)
				}
				colours := map[[3]uint32]bool{}
				b := img.Bounds()
				for y := b.Min.Y; y < b.Max.Y; y += 7 {
					for x := b.Min.X; x < b.Max.X; x += 7 {
						r, g, bl, _ := img.At(x, y).RGBA()
						colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
					}
				}
				if fmt.Sprint(b.Dx()) != width || len(colours) < 10 {
					t.Errorf("screenshot %v with %d colours: nothing rendered", b, len(colours))
				}
				t.Logf("%s: %d findings, screenshot %s (%v, %d colours)", name, len(d.Findings), shot, b.Size(), len(colours))
			}
			if keep := os.Getenv("INNOSCOPE_KEEP_REPORTS"); keep != "" { // to look at them
				for _, f := range []string{"report.html", "report-1280.png", "report-700.png"} {
					if b, err := os.ReadFile(filepath.Join(tmp, f)); err == nil {
						os.WriteFile(filepath.Join(keep, name+"-"+f), b, 0o644)
					}
				}
			}
			if !mapsEqual(before, lab.HashTree(t, dir)) {
				t.Error("report changed the source")
			}
		})
	}
}

// domNumber is the number (commas allowed) in the element with id in dom, or -1.
func domNumber(dom, id string) int {
	_, after, ok := strings.Cut(dom, `id="`+id+`">`)
	if !ok {
		return -1
	}
	v, _, _ := strings.Cut(after, "<")
	n, err := strconv.Atoi(strings.ReplaceAll(v, ",", ""))
	if err != nil {
		return -1
	}
	return n
}

// reportCounts: the report's counts are the diagnosis's, each labelled: the banner's (and the
// #to-recover line's) the verdict's "To recover" count, and on an unmutated crash the server's
// (server); the table's total the pages with records.
func reportCounts(t *testing.T, dom string, d diagnoseJSON, s *lab.Scenario, server bool) {
	t.Helper()
	recover, with, total := domNumber(dom, "to-recover"), domNumber(dom, "with-records"), domNumber(dom, "pages-total")
	t.Logf("report: to recover %d, with records %d, table total %d; diagnose: %d, %d; the server's To recover on the unmutated crash: %d",
		recover, with, total, d.ToRecoverPages, d.PagesWithRecords, s.Verdict.ToRecoverPages)
	if with != d.PagesWithRecords || total != d.PagesWithRecords {
		t.Errorf("pages with records %d, table total %d; the diagnosis's %d", with, total, d.PagesWithRecords)
	}
	if recover != d.ToRecoverPages {
		t.Errorf("pages to recover %d; the diagnosis's %d", recover, d.ToRecoverPages)
	}
	if strings.Contains(d.Verdict.Sentence, "apply ") && !strings.Contains(d.Verdict.Sentence, fmt.Sprintf("apply %s page", finding.Thousands(int64(recover)))) {
		t.Errorf("the verdict %q does not give the labelled count %d", d.Verdict.Sentence, recover)
	}
	if server && s.Verdict.CrashRecovery && s.Verdict.ToRecoverPages >= 0 && recover != s.Verdict.ToRecoverPages {
		t.Errorf("pages to recover %d; the server said To recover: %d pages", recover, s.Verdict.ToRecoverPages)
	}
}

// reportHeat: every tablespace whose page 0 is blank and which the log creates (recovery
// rebuilds it) has a heat map, and in the salvage case the flipped page's cell is drawn
// corrupt.
func reportHeat(t *testing.T, dom, dir, name string) {
	t.Helper()
	var ts []struct {
		Path string `json:"path"`
		Note string `json:"note"`
	}
	if out, _, _ := run("spaces", "--json", dir); json.Unmarshal([]byte(out), &ts) != nil {
		t.Fatal("spaces --json")
	}
	// map exits 1 on a damaged log whose damage is an error (whole mini-transactions after it:
	// how many depends on the crash); its map up to the damage is what the report draws.
	out, errs, code := run("map", "--json", dir)
	var spaces []analysis.Space
	if err := json.Unmarshal([]byte(out), &spaces); err != nil || code == ExitError {
		t.Fatalf("map %s: exit %d %v\n%s", dir, code, err, errs)
	}
	created := map[string]uint32{}
	for _, sp := range spaces {
		for _, e := range sp.Events {
			if e.Kind == "create" && !sp.Deleted {
				p := sp.Name
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				created[filepath.Clean(p)] = sp.ID
			}
		}
	}
	rebuilt := 0
	for _, x := range ts {
		id, ok := created[x.Path]
		if x.Note != discovery.NotePage0Zero || !ok {
			continue
		}
		rebuilt++
		if !strings.Contains(dom, fmt.Sprintf(`aria-label="page LSNs of space %d"`, id)) {
			t.Errorf("no heat map for %s (space %d), which recovery rebuilds", x.Path, id)
		}
	}
	if name == "ddl_churn" && rebuilt == 0 {
		t.Log("this ddl_churn crash left no blank page 0 of a tablespace the log creates")
	}
	if name == "salvage" && !strings.Contains(dom, `class="corrupt"`) {
		t.Error("the corrupt page is not drawn on the heat map")
	}
	if name != "salvage" && strings.Contains(dom, `class="corrupt"`) {
		t.Error("a corrupt cell on a crash with no corrupt page")
	}
}

// reportNextSteps runs each command of "what to do next" (COPY a new directory): none exits 2,
// and the copy a recover (or salvage) makes is one the real server starts on without crash
// recovery.
func reportNextSteps(t *testing.T, dom, dir string, s *lab.Scenario, where, onCopy []string) {
	t.Helper()
	_, list, _ := strings.Cut(dom, `id="next"`)
	list, _, _ = strings.Cut(list, "</ol>")
	var cmds []string
	for _, part := range strings.Split(list, "<code>")[1:] {
		c, _, _ := strings.Cut(part, "</code>")
		cmds = append(cmds, html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(c, "")))
	}
	if len(cmds) == 0 {
		t.Fatal("no command in what to do next")
	}
	for _, c := range cmds {
		args := strings.Fields(c)
		if args[0] != "innoscope" {
			t.Errorf("next step %q is not an innoscope command", c)
			continue
		}
		copyDir := filepath.Join(t.TempDir(), "copy")
		for i := range args {
			if args[i] == "COPY" {
				args[i] = copyDir
			}
		}
		out, errs, code := run(args[1:]...)
		t.Logf("next step %s: exit %d", c, code)
		if code == ExitError {
			t.Errorf("next step %q: exit 2\n%s%s", c, out, errs)
			continue
		}
		if args[1] == "recover" && !slices.Contains(args, "--dry-run") {
			sc := *s
			sc.Options = onCopy
			v := sc.ServerVerdict(t, copyDir)
			if !v.Started || v.CrashRecovery {
				t.Errorf("the server on the copy of %q: started=%v crash_recovery=%v\n%s", c, v.Started, v.CrashRecovery, serverLines(t, v.ErrLog))
			}
		}
	}
	if strings.Join(cmds, "\n") == "" || !strings.Contains(strings.Join(cmds, "\n"), dir) {
		t.Errorf("the next steps do not name the directory %s: %q", dir, cmds)
	}
}

// reportFits renders a copy of the report (raw) with a measuring script added (the report
// itself runs none) at 1280 and 800 pixels wide no table may reach past the page's body (long
// file names wrap), at 600 the page may not scroll sideways (a table scrolls in its box), and a path wraps only after a '/' (or a space), never inside a name.
// Before, the findings table of ddl_churn ran some 50 pixels past it at 1280, and paths broke
// anywhere ("ib_logfi|le0").
func reportFits(t *testing.T, chromium, dir string, raw []byte) {
	t.Helper()
	const probe = `<script>addEventListener("load",()=>{let r=document.body.getBoundingClientRect().right,w=0;` +
		`for(const e of document.querySelectorAll("table,svg"))w=Math.max(w,e.getBoundingClientRect().right-r);` +
		`document.body.setAttribute("data-overflow",Math.round(w));` +
		`document.body.setAttribute("data-pagescroll",document.documentElement.scrollWidth-innerWidth);` +
		// every line break inside a path (code) falls after a '/' or a space, never inside a name
		`let bad=[];for(const e of document.querySelectorAll("td code,.space code")){let top=null,prev="";` +
		`const tw=document.createTreeWalker(e,NodeFilter.SHOW_TEXT);while(tw.nextNode()){const n=tw.currentNode;` +
		`for(let i=0;i<n.length;i++){const g=document.createRange();g.setStart(n,i);g.setEnd(n,i+1);const rs=g.getClientRects();` +
		`const c=n.data[i];if(!rs.length){prev=c;continue}if(top!==null&&rs[0].top>top+2&&prev!=="/"&&prev!==" "&&c!==" ")bad.push(e.textContent);top=rs[0].top;prev=c}}}` +
		`document.body.setAttribute("data-midword",bad.length?bad.join("|"):"none")})</script></body>`
	page := filepath.Join(dir, "measure.html")
	if err := os.WriteFile(page, bytes.Replace(raw, []byte("</body>"), []byte(probe), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, width := range []string{"1280", "800", "600"} {
		dom := runChromium(t, chromium, dir, "--dump-dom", "--window-size="+width+",2000", "file://"+page)
		_, after, ok := strings.Cut(dom, `data-overflow="`)
		over, _, _ := strings.Cut(after, `"`)
		if width == "600" { // narrow: a wide table scrolls in its own box, the page does not
			_, after, ok = strings.Cut(dom, `data-pagescroll="`)
			over, _, _ = strings.Cut(after, `"`)
		}
		if !ok || over != "0" && !strings.HasPrefix(over, "-") {
			t.Errorf("at %s pixels wide a table reaches %q pixels past the page (measured: %v)", width, over, ok)
		}
		_, after, ok = strings.Cut(dom, `data-midword="`)
		mid, _, _ := strings.Cut(after, `"`)
		if !ok || mid != "none" {
			t.Errorf("at %s pixels wide paths break inside a name (measured: %v): %s", width, ok, html.UnescapeString(mid))
		}
	}
}

// runChromium runs headless Chromium with a profile in dir and returns its stdout.
func runChromium(t *testing.T, chromium, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + filepath.Join(dir, "chromium-profile")}
	cmd := exec.CommandContext(ctx, chromium, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String()
}
