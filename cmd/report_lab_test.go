package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"innoscope/internal/lab"
)

// TestReportInChromium writes the HTML report of lab crashes and renders it in headless
// Chromium (Debian's chromium; scripts/test.sh installs it): the DOM Chromium builds holds the
// verdict and every finding code of the case's diagnosis, the screenshot is a real image, and
// the file names no external URL and runs no script (it must open offline, in a ticket).
func TestReportInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (scripts/test.sh installs it: apt-get install chromium)")
	}
	for _, name := range []string{"ddl_churn", "dml"} {
		t.Run(name, func(t *testing.T) {
			s := lab.Get(t, name)
			where, _ := splitOptions(s.Options)
			before := lab.HashTree(t, s.Crashed)
			tmp := t.TempDir()
			html := filepath.Join(tmp, "report.html")
			out, errs, code := run(append([]string{"report", s.Crashed, "--out", html}, where...)...)
			if code == ExitError {
				t.Fatalf("report: exit %d\n%s\n%s", code, out, errs)
			}
			var d diagnoseJSON
			dout, _, _ := run(append([]string{"diagnose", "--json", s.Crashed}, where...)...)
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
			for _, id := range []string{`id="findings"`, `class="timeline"`, `id="pages"`, `class="heat"`} {
				if !strings.Contains(dom, id) {
					t.Errorf("the rendered DOM lacks %s", id)
				}
			}
			reportFits(t, chromium, tmp, raw)
			shot := filepath.Join(tmp, "report.png")
			runChromium(t, chromium, tmp, "--screenshot="+shot, "--window-size=1280,2400", "--hide-scrollbars", "file://"+html)
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
			if b.Dx() != 1280 || len(colours) < 10 {
				t.Errorf("screenshot %v with %d colours: nothing rendered", b, len(colours))
			}
			t.Logf("%s: %d findings, screenshot %s (%v, %d colours)", name, len(d.Findings), shot, b.Size(), len(colours))
			if !mapsEqual(before, lab.HashTree(t, s.Crashed)) {
				t.Error("report changed the source")
			}
		})
	}
}

// reportFits renders a copy of the report (raw) with a measuring script added (the report
// itself runs none) at 1280 and 800 pixels wide: no table may reach past the page's body (long
// file names wrap). Before, the findings table of ddl_churn ran some 50 pixels past it at 1280.
func reportFits(t *testing.T, chromium, dir string, raw []byte) {
	t.Helper()
	const probe = `<script>addEventListener("load",()=>{let r=document.body.getBoundingClientRect().right,w=0;` +
		`for(const e of document.querySelectorAll("table,svg"))w=Math.max(w,e.getBoundingClientRect().right-r);` +
		`document.body.setAttribute("data-overflow",Math.round(w))})</script></body>`
	page := filepath.Join(dir, "measure.html")
	if err := os.WriteFile(page, bytes.Replace(raw, []byte("</body>"), []byte(probe), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, width := range []string{"1280", "800"} {
		dom := runChromium(t, chromium, dir, "--dump-dom", "--window-size="+width+",2000", "file://"+page)
		_, after, ok := strings.Cut(dom, `data-overflow="`)
		over, _, _ := strings.Cut(after, `"`)
		if !ok || over != "0" && !strings.HasPrefix(over, "-") {
			t.Errorf("at %s pixels wide a table reaches %q pixels past the page (measured: %v)", width, over, ok)
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
