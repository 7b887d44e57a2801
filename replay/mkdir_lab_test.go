package replay

import (
	"os"
	"path/filepath"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// TestCopyRemovedWhileMade: when the directory holding the copy is removed while the copy is
// being made (verify's clean-up on SIGTERM runs on another goroutine than the copy), the copy
// fails at its next directory or file instead of making the removed directories again. Before,
// MkdirAll made them again, and TestRecoverSignals found verify's temporary directory left
// behind after SIGTERM. On a real crash with subdirectories and DATA DIRECTORY tables.
func TestCopyRemovedWhileMade(t *testing.T) {
	s := lab.Get(t, "data_directory")
	parent := filepath.Join(t.TempDir(), "innoscope-verify-x")
	if err := os.Mkdir(parent, 0o750); err != nil {
		t.Fatal(err)
	}
	c := &Copy{Source: discovery.Layout{Datadir: s.Crashed}, Target: filepath.Join(parent, "copy"), Redirect: map[string]string{}}
	lock, err := c.Lock(false, TargetFlags{})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	removed := false
	_, err = c.Make(func(int64) {
		if !removed {
			removed = true
			if err := os.RemoveAll(parent); err != nil {
				t.Fatal(err)
			}
		}
	})
	if !removed {
		t.Fatal("the copy reported no progress: nothing was removed while it was made")
	}
	if err == nil {
		t.Error("Make succeeded although its target was removed while it ran")
	}
	if _, serr := os.Stat(parent); !os.IsNotExist(serr) {
		t.Errorf("%s was made again after its removal (Make: %v)", parent, err)
	}
}
