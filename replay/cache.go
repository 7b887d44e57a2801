package replay

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// minCacheBytes is the least page cache a replay is given by default.
const minCacheBytes = 512 << 20

// defaultCacheBytes is the page cache of a replay whose log changes pages pages of pageSize
// bytes, when none is asked for: room for all of them, so that each page is read and written
// once (one batch), up to half the memory the machine has available (MemAvailable), and never
// less than minCacheBytes.
func defaultCacheBytes(pages, pageSize int) int64 {
	want := int64(pages+1) * int64(pageSize)
	if avail := availableMemory(); avail > 0 {
		want = min(want, avail/2)
	}
	return max(want, minCacheBytes)
}

// availableMemory is MemAvailable of /proc/meminfo in bytes (0: not known).
func availableMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
