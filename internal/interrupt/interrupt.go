// Package interrupt is what a SIGINT, SIGTERM or SIGHUP does to a running command: the
// clean-ups registered with On run, one line on stderr says what is left, and the process exits
// 128+signal.
package interrupt

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// interrupts are what a SIGINT, SIGTERM or SIGHUP does before innoscope exits: each registered
// function cleans up what it can and says what is left, in the order of registration (an
// outer clean-up, such as verify's removal of its temporary copy, runs before the inner one
// says what it leaves).
var interrupts struct {
	sync.Mutex
	fns []func() string
}

// On registers fn for a SIGINT/SIGTERM/SIGHUP during the command; the returned function
// unregisters it.
func On(fn func() string) (remove func()) {
	interrupts.Lock()
	defer interrupts.Unlock()
	interrupts.fns = append(interrupts.fns, fn)
	n := len(interrupts.fns)
	return func() {
		interrupts.Lock()
		defer interrupts.Unlock()
		if len(interrupts.fns) >= n {
			interrupts.fns = interrupts.fns[:n-1]
		}
	}
}

// Handle makes SIGINT, SIGTERM and SIGHUP (the terminal closed, the session ended) run
// the registered clean-ups, print one line on stderr naming what is left, and exit 128+signal
// (130, 143, 129). The returned function stops it.
func Handle(stderr io.Writer) (stop func()) {
	sigs := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case sig := <-sigs:
			interrupts.Lock() // held until exit: nothing registers or unregisters any more
			var msgs []string
			for _, fn := range interrupts.fns {
				if m := fn(); m != "" {
					msgs = append(msgs, m)
				}
			}
			name := map[os.Signal]string{os.Interrupt: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}[sig]
			line := "innoscope: interrupted by " + name
			if len(msgs) > 0 {
				line += ": " + strings.Join(msgs, "; ")
			}
			fmt.Fprintln(stderr, line)
			code := 130
			if s, ok := sig.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// RemoveAll removes dir while other goroutines of the interrupted command may still be
// creating files in it: dir is first renamed aside (their later creations by its name fail:
// the copy never makes its root again), then removed, again while an entry is still being
// made in it (ENOTEMPTY), for a bounded number of tries.
func RemoveAll(dir string) error {
	target := dir
	if err := os.Rename(dir, dir+".removing"); err == nil {
		target = dir + ".removing"
	}
	var err error
	for i := 0; i < 100; i++ {
		if err = os.RemoveAll(target); err == nil {
			if _, serr := os.Lstat(target); os.IsNotExist(serr) {
				return nil
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}
