package cmd

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// purgeByHand takes every delete-marked record of the leaf pages of the file at path out of
// its page's record list, as purge does, but leaves its bytes as they are (what MariaDB before
// 10.5 and MySQL do; MariaDB 10.5 and later zero them): onto the page's free list (toFree), or
// nowhere (garbage: the space the free list loses when a freed record is reused by a shorter
// one, or that page reorganisation leaves). The pages are resealed. It returns how many records
// it took out.
func purgeByHand(t *testing.T, path string, toFree bool) int {
	t.Helper()
	f, err := discovery.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fl, ps, pages := f.FSP.Flags, f.Physical, f.Pages()
	f.Close()
	if fl.ZipSize != 0 {
		t.Fatalf("%s: ROW_FORMAT=COMPRESSED pages are not purged by hand", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	be := binary.BigEndian
	n := 0
	for no := int64(0); no < pages; no++ {
		p := b[no*int64(ps) : (no+1)*int64(ps)]
		ip, err := discovery.ParseIndexPage(p)
		if be.Uint16(p[discovery.FilPageType:]) != 17855 || err != nil || ip.Level != 0 {
			continue
		}
		next := func(o int) int { // the next record of the list
			if ip.Compact {
				if rel := be.Uint16(p[o-2:]); rel != 0 {
					return (o + int(rel)) & (ps - 1)
				}
				return 0
			}
			return int(be.Uint16(p[o-2:]))
		}
		link := func(o, to int) { // o's next-record field pointing to to (0: none)
			v := to
			if ip.Compact && to != 0 {
				v = (to - o) & 0xffff
			}
			be.PutUint16(p[o-2:], uint16(v))
		}
		infoAt, prev, changed := 6, 101, false
		if ip.Compact {
			infoAt, prev = 5, 99
		}
		for o := next(prev); o != 0 && o != 112 && o != 116; o = next(prev) {
			if p[o-infoAt]&0x30 != 0x20 { // live, or the instant metadata record
				prev = o
				continue
			}
			link(prev, next(o))
			if toFree {
				link(o, int(be.Uint16(p[discovery.FilPageData+6:])))
				be.PutUint16(p[discovery.FilPageData+6:], uint16(o))
			}
			n++
			changed = true
		}
		if changed {
			discovery.SealPage(p, fl, be.Uint64(p[discovery.FilPageLSN:]))
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return n
}

// deletedCarved: on copies of dir (the unpurged crash of TestRowsDeleted) whose delete-marked
// records were purged by hand without zeroing their bytes (purgeByHand), `rows --deleted`
// finds them on the free list, or carves them from the garbage, and prints exactly the
// deleted rows the server's SELECT gave (want), every one from that source.
func deletedCarved(t *testing.T, dir string, formats []string, want map[string]string) {
	for _, toFree := range []bool{true, false} {
		src := map[bool]string{true: "free_list", false: "carved"}[toFree]
		cp := filepath.Join(t.TempDir(), "copy")
		lab.CopyDir(t, dir, cp)
		for _, f := range formats {
			if f == "compressed" {
				continue
			}
			tb := "db.t_" + f
			if n, w := purgeByHand(t, filepath.Join(cp, "db", "t_"+f+".ibd"), toFree), strings.Count(want[f], "\n"); n != w {
				t.Fatalf("%s: %d delete-marked records taken out, the test deleted %d rows", tb, n, w)
			}
			out, errs, code := run("rows", cp, tb, "--deleted")
			if code != ExitClean || out != want[f] {
				t.Errorf("rows %s --deleted (purged by hand, %s): exit %d, %s\n%s", tb, src, code, errs, firstDiff(want[f], out))
			}
			t.Logf("%s (%s): %s", tb, src, strings.TrimSpace(errs))
			js, _, _ := run("rows", cp, tb, "--deleted", "--json")
			for _, line := range strings.Split(strings.TrimSpace(js), "\n") {
				var d deletedJSON
				if err := json.Unmarshal([]byte(line), &d); err != nil || d.Sum == nil && d.Source != src {
					t.Errorf("rows %s --deleted --json (purged by hand): want source %s: %s", tb, src, line)
					break
				}
			}
		}
	}
}
