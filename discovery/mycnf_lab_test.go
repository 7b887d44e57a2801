package discovery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/internal/lab"
)

// TestReadMyCnfAsServer: ReadMyCnf gives the layout options the real mariadbd reads from the same
// my.cnf (`mariadbd --defaults-file=F --print-defaults`, its own option processing, last value
// winning): Debian's layout of !includedir directories, !include (a missing file skipped), the
// groups the server reads and those it does not ([client-server], [galera], versioned groups,
// upper case), comments after values, quotes, loose- prefixes and an !include loop. Before,
// !include and !includedir were ignored, so Debian's /etc/mysql/my.cnf gave no datadir.
func TestReadMyCnfAsServer(t *testing.T) {
	lab.Require(t)
	d := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(d, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("conf.d/50-server.cnf", "[server]\ndatadir=/var/lib/two\n[mysqld]\ninnodb_data_home_dir = 'sys'\n")
	write("conf.d/10-a.cnf", "[mariadbd]\ndatadir=/var/lib/zero\n[client]\ninnodb_undo_directory=/client\n")
	write("conf.d/zz.cnf", "[galera]\ninnodb_directories=/g1;/g2\n[MYSQLD]\ninnodb_log_group_home_dir=/upper\n")
	write("conf.d/notcnf.txt", "[mysqld]\ninnodb_data_file_path=ibdata1:12M:autoextend\n")
	write("extra.cnf", "[mysqld-10.11]\ninnodb_data_file_path=ibdata9:12M\n[mariadb-10.5]\ninnodb_page_size=4k\n")
	write("loop.cnf", "[mysqld]\ninnodb_page_size=16k\n!include "+filepath.Join(d, "loop.cnf")+"\n")
	cases := map[string]string{
		"debian": "[client-server]\nsocket = /tmp/x.sock\n[mysqld]\ndatadir = /var/lib/one   # comment\n" +
			"innodb_log_group_home_dir=\"/logs#dir\"\n!includedir " + filepath.Join(d, "conf.d") + "\n" +
			"[mariadb-10.11]\nloose-innodb-undo-directory = /undo\n!include " + filepath.Join(d, "extra.cnf") + "\n" +
			"!include " + filepath.Join(d, "missing.cnf") + "\n",
		"comments": "[embedded]\ndatadir=/embedded\n[mysqld]\ndatadir=/a#b\n; note\n# note\n[mariadbd-10.11]\ninnodb-page-size = '8k' # c\n",
		"loop":     "[mysqld]\ndatadir=/loop\n!include " + filepath.Join(d, "loop.cnf") + "\n",
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			p := write(name+".cnf", text)
			out, err := exec.Command("mariadbd", "--defaults-file="+p, "--print-defaults").Output()
			if err != nil {
				t.Fatalf("mariadbd --print-defaults: %v", err)
			}
			want := map[string]string{}
			_, args, _ := strings.Cut(string(out), "\n")
			for _, a := range strings.Split(" "+strings.TrimSpace(args), " --")[1:] {
				k, v, _ := strings.Cut(a, "=")
				k = strings.TrimPrefix(strings.ReplaceAll(k, "-", "_"), "loose_")
				want[k] = v
			}
			got, err := ReadMyCnf(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range LayoutOptions {
				if got[k] != want[k] {
					t.Errorf("%s: %q, the server reads %q", k, got[k], want[k])
				}
			}
			t.Logf("the server: %s", strings.TrimSpace(args))
		})
	}
	// A missing !includedir is fatal to the server: an error naming the file and line.
	p := write("nodir.cnf", "[mysqld]\ndatadir=/x\n!includedir "+filepath.Join(d, "nodir")+"\n")
	if err := exec.Command("mariadbd", "--defaults-file="+p, "--print-defaults").Run(); err == nil {
		t.Fatal("the server accepts a missing !includedir")
	}
	if _, err := ReadMyCnf(p); err == nil || !strings.Contains(err.Error(), p+":3") {
		t.Errorf("a missing !includedir: %v, want an error naming %s:3", err, p)
	}
}

// TestMyCnfLongLine: a my.cnf line longer than 4094 bytes is read by mariadbd 4094 bytes at a
// time, the rest taken for a line of its own (`mariadbd --print-defaults` shows it as another
// option); ReadMyCnf refuses it naming the file and the line. A line of exactly 4094 bytes is
// one line for both. Before, the error was "bufio.Scanner: token too long", naming neither.
func TestMyCnfLongLine(t *testing.T) {
	lab.Require(t)
	d := t.TempDir()
	for _, n := range []int{cnfLineMax, cnfLineMax + 1, 70000} {
		value := "/x" + strings.Repeat("a", n-len("datadir=/x"))
		p := filepath.Join(d, "long.cnf")
		if err := os.WriteFile(p, []byte("[mysqld]\ndatadir="+value+"\ninnodb_page_size=8k\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("mariadbd", "--defaults-file="+p, "--print-defaults").Output()
		if err != nil {
			t.Fatalf("mariadbd --print-defaults: %v", err)
		}
		split := !strings.Contains(string(out), "--datadir="+value+" ")
		got, err := ReadMyCnf(p)
		switch {
		case !split && (err != nil || got["datadir"] != value):
			t.Errorf("a line of %d bytes (one line for the server): %v", n, err)
		case split && (err == nil || !strings.Contains(err.Error(), p+":2: a line of") || !strings.Contains(err.Error(), "4094")):
			t.Errorf("a line of %d bytes (the server splits it): %v, want an error naming %s:2", n, err, p)
		}
		if split != (n > cnfLineMax) {
			t.Errorf("a line of %d bytes: the server splits it: %v", n, split)
		}
	}
}
