package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// aliasBase is a directory on a small tmpfs of its own (unmounted at the end): a copy that
// runs away into its own source fills it in a moment instead of the machine's disk.
func aliasBase(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("bind mounts need root")
	}
	for _, tool := range []string{"unshare", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	base := t.TempDir()
	if b, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=400M", "tmpfs", base).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, b)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", base).Run() })
	return base
}

// boundTo is the command line that runs the test binary as innoscope in a private mount
// namespace where alias is a bind mount of dir (mount --bind dir alias): only that process
// sees the alias, and it goes with it.
func boundTo(t *testing.T, dir, alias string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{"unshare", "-m", "--propagation", "private", "sh", "-c", `mount --bind "$1" "$2" && shift 2 && exec "$@"`,
		"sh", dir, alias, exe}
}

// TestSourceAliases: a directory innoscope writes (recover --into, --external-dir, verify
// --tmpdir and --keep, report --out) that is the source or lies inside it under another name
// (a bind mount of the source or of the directory above it, a symbolic link to it or to one
// of its database directories, a bind mount of its DATA DIRECTORY root) is refused before
// anything is written, naming the source location, and the source (and its external
// directory) is byte-identical afterwards. Before, the overlap checks compared path strings:
// `recover S --into alias/copy` copied S into itself, level after level, and `report S --out
// alias/r.html` wrote S/r.html.
func TestSourceAliases(t *testing.T) {
	s := lab.Get(t, "data_directory")
	base := aliasBase(t)
	src := filepath.Join(base, "up", "S")
	lab.CopyDir(t, s.Crashed, src)
	// The external directory copied too, and the .isl files pointed at the copy.
	ext := filepath.Join(base, "ext")
	lab.CopyDir(t, filepath.Join(s.Dir, "ext-crashed"), ext)
	isls, _ := filepath.Glob(filepath.Join(src, "*", "*.isl"))
	if len(isls) == 0 {
		t.Fatal("the data_directory scenario has no .isl file")
	}
	for _, isl := range isls {
		rel := filepath.Join(filepath.Base(filepath.Dir(isl)), strings.TrimSuffix(filepath.Base(isl), ".isl")+".ibd")
		if err := os.WriteFile(isl, []byte(filepath.Join(ext, rel)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before, extBefore := lab.HashTree(t, src), lab.HashTree(t, ext)
	mkdir := func(p string) string {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	alias := mkdir(filepath.Join(base, "alias"))     // bind of S
	upAlias := mkdir(filepath.Join(base, "upalias")) // bind of S's parent
	extAlias := mkdir(filepath.Join(base, "extalias"))
	link := filepath.Join(base, "link")
	dbLink := filepath.Join(base, "dblink")
	os.Symlink(src, link)
	os.Symlink(filepath.Join(src, "db"), dbLink)
	fresh := func() string { return filepath.Join(t.TempDir(), "new") }
	cases := []struct {
		name   string
		argv0  []string
		args   []string
		output string // what must not exist afterwards
	}{
		{"bind: recover --into", boundTo(t, src, alias), []string{"recover", src, "--into", filepath.Join(alias, "copy")}, filepath.Join(src, "copy")},
		{"bind: recover --external-dir", boundTo(t, src, alias), []string{"recover", src, "--into", fresh(), "--external-dir", filepath.Join(alias, "ext")}, filepath.Join(src, "ext")},
		{"bind: verify --tmpdir", boundTo(t, src, alias), []string{"verify", src, "--tmpdir", alias}, ""},
		{"bind: verify --keep", boundTo(t, src, alias), []string{"verify", src, "--keep", filepath.Join(alias, "k")}, filepath.Join(src, "k")},
		{"bind: report --out", boundTo(t, src, alias), []string{"report", src, "--out", filepath.Join(alias, "r.html")}, filepath.Join(src, "r.html")},
		{"bind of the parent: recover --into", boundTo(t, filepath.Dir(src), upAlias), []string{"recover", src, "--into", filepath.Join(upAlias, "S", "copy")}, filepath.Join(src, "copy")},
		{"bind of the DATA DIRECTORY root: recover --into", boundTo(t, ext, extAlias), []string{"recover", src, "--into", filepath.Join(extAlias, "copy")}, filepath.Join(ext, "copy")},
		{"link: recover --into", nil, []string{"recover", src, "--into", filepath.Join(link, "copy")}, filepath.Join(src, "copy")},
		{"link: report --out", nil, []string{"report", src, "--out", filepath.Join(link, "r.html")}, filepath.Join(src, "r.html")},
		{"link to a database directory: recover --into", nil, []string{"recover", src, "--into", filepath.Join(dbLink, "copy")}, filepath.Join(src, "db", "copy")},
		{"link to a database directory: verify --tmpdir", nil, []string{"verify", src, "--tmpdir", dbLink}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := cliIn(t, base, hangLimit, c.argv0, c.args...)
			if r.code != ExitError || !strings.Contains(r.stderr, "overlaps the source location") {
				t.Errorf("innoscope %v: exit %d, want 2 and a refusal naming the source location\n%.3000s", c.args, r.code, r.stdout+r.stderr)
			}
			if c.output != "" {
				if _, err := os.Lstat(c.output); err == nil {
					t.Errorf("%s was written", c.output)
				}
			}
		})
	}
	if !mapsEqual(before, lab.HashTree(t, src)) {
		t.Error("the source changed")
	}
	if !mapsEqual(extBefore, lab.HashTree(t, ext)) {
		t.Error("the source's external directory changed")
	}
}

// TestReportOutHardLink: `report --out` onto a hard link of a source file (ln S/ib_logfile0
// x.html) is refused before anything is written and the log is untouched; onto a hard link of
// a file outside the source, the report replaces the name (a new file renamed into place) and
// the other name keeps its content. Before, report opened --out with O_TRUNC and wrote the
// HTML into the redo log.
func TestReportOutHardLink(t *testing.T) {
	s := lab.Get(t, "dml")
	base := t.TempDir()
	src := filepath.Join(base, "S")
	lab.CopyDir(t, s.Crashed, src)
	before := lab.HashTree(t, src)
	out := filepath.Join(base, "x.html")
	if err := os.Link(filepath.Join(src, "ib_logfile0"), out); err != nil {
		t.Fatal(err)
	}
	r := cliIn(t, base, hangLimit, nil, "report", src, "--out", out)
	if r.code != ExitError || !strings.Contains(r.stderr, "ib_logfile0 under another name (a hard link)") {
		t.Errorf("report --out onto a hard link of ib_logfile0: exit %d\n%s", r.code, r.stderr)
	}
	if !mapsEqual(before, lab.HashTree(t, src)) {
		t.Fatal("the source changed")
	}
	other := filepath.Join(base, "other.txt")
	os.WriteFile(other, []byte("keep me\n"), 0o644)
	out2 := filepath.Join(base, "y.html")
	os.Link(other, out2)
	r = cliIn(t, base, hangLimit, nil, "report", src, "--out", out2)
	got, _ := os.ReadFile(other)
	html, _ := os.ReadFile(out2)
	if r.code == ExitError || string(got) != "keep me\n" || !strings.Contains(string(html), "<html") {
		t.Errorf("report --out onto a hard link of another file: exit %d, the other name holds %.40q, --out %.40q\n%s", r.code, got, html, r.stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(base, ".y.html.innoscope-*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
