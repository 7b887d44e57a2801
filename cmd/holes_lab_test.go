package cmd

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"innoscope/internal/lab"
)

// holeTail is how far the test extends ibdata1: by a hole, or by written zero bytes.
const holeTail = 1 << 30

// readBytes is rchar of /proc/self/io: the bytes this process has read through read and pread
// (page cache hits included), so that reading a hole counts as much as reading data.
func readBytes(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/io")
	if err != nil {
		t.Skipf("no /proc/self/io: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "rchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Skip("no rchar in /proc/self/io")
	return 0
}

// allocated is the bytes of disk a file takes (st_blocks).
func allocated(t *testing.T, path string) int64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

// TestSparseSystemTablespace: the dml crash with ibdata1 extended by a 1 GiB hole (what
// autoextend on a sparse file system leaves; the server starts on it, recovering the crash) and
// the same crash extended by 1 GiB of written zero bytes give the same `pages --verify`,
// `diagnose` and `verify` results; on the sparse one they read far less than the hole (they
// read every byte of it before), and `recover`'s copy stays sparse and is accepted by the server
// without crash recovery, with the server's own CHECKSUM TABLE.
func TestSparseSystemTablespace(t *testing.T) {
	s := lab.Get(t, "dml")
	sparse, dense := copyScenario(t, s), copyScenario(t, s)
	if err := os.Truncate(filepath.Join(sparse, "ibdata1"), fileSize(t, filepath.Join(sparse, "ibdata1"))+holeTail); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dense, "ibdata1"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]byte, 1<<20)
	for n := 0; n < holeTail; n += len(zero) {
		if _, err := f.Write(zero); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	if a := allocated(t, filepath.Join(sparse, "ibdata1")); a >= holeTail/2 {
		t.Skipf("the file system did not leave a hole: %d bytes allocated", a)
	}
	// The same output on both, the directory's name aside.
	same := func(what string, args ...string) {
		t.Helper()
		var outs [2]string
		var reads [2]int64
		for i, d := range []string{sparse, dense} {
			a := make([]string, len(args))
			for j, x := range args {
				a[j] = strings.ReplaceAll(x, "DIR", d)
			}
			r0 := readBytes(t)
			out, errs, code := run(a...)
			reads[i] = readBytes(t) - r0
			if code == ExitError {
				t.Fatalf("%s on %s: exit %d\n%s", what, d, code, errs)
			}
			outs[i] = strings.ReplaceAll(out, d, "DIR")
		}
		if outs[0] != outs[1] {
			t.Errorf("%s: sparse and dense outputs differ:\n%s\n---\n%s", what, outs[0], outs[1])
		}
		t.Logf("%s: read %d bytes on the sparse copy, %d on the dense one", what, reads[0], reads[1])
		if reads[0] >= holeTail/4 {
			t.Errorf("%s read %d bytes of the sparse directory: the 1 GiB hole was read", what, reads[0])
		}
	}
	same("pages --verify", "pages", "--verify", "--summary", "--json", "DIR/ibdata1")
	same("diagnose", "diagnose", "--json", "DIR")
	same("verify", "verify", "--json", "DIR")

	into := filepath.Join(t.TempDir(), "copy")
	if out, errs, code := run("recover", sparse, "--into", into); code != ExitClean {
		t.Fatalf("recover: exit %d\n%s\n%s", code, out, errs)
	}
	if a := allocated(t, filepath.Join(into, "ibdata1")); a >= holeTail/2 {
		t.Errorf("the copy's ibdata1 takes %d bytes of disk: the hole was filled", a)
	}
	if got, want := fileSize(t, filepath.Join(into, "ibdata1")), fileSize(t, filepath.Join(sparse, "ibdata1")); got != want {
		t.Errorf("the copy's ibdata1 has %d bytes, the source %d", got, want)
	}
	v := s.ServerVerdict(t, into)
	if !v.Started || v.CrashRecovery {
		t.Fatalf("the server on the copy: started %v, crash recovery %v\n%s", v.Started, v.CrashRecovery, serverLines(t, v.ErrLog))
	}
	if v.Checksums != s.Checksums(t) {
		t.Errorf("CHECKSUM TABLE on the copy:\n%s\nafter the server's own recovery:\n%s", v.Checksums, s.Checksums(t))
	}
	if out, err := exec.Command("du", "-k", filepath.Join(into, "ibdata1")).Output(); err == nil {
		t.Logf("du of the copy's ibdata1: %s", out)
	}
}

// fileSize is the size of path.
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
