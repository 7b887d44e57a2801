package view

import (
	"fmt"
	"io"
	"path/filepath"

	"innoscope/adopt"
)

// AdoptKit prints the tables of an adopt kit (the refused ones with the reason and the next
// step) and the steps that attach them.
func AdoptKit(w io.Writer, k *adopt.Kit) {
	att := k.Attached()
	if len(att) == 0 {
		fmt.Fprintf(w, "no table can be attached: nothing written to %s\n", k.Dir)
	} else {
		fmt.Fprintf(w, "kit in %s: %d table(s) to attach to MariaDB %s (innodb_page_size=%d), %d refused\n", k.Dir, len(att), k.Version, k.PageSize, len(k.Tables)-len(att))
	}
	for _, t := range k.Tables {
		if t.Refused != "" {
			fmt.Fprintf(w, "  refused %s.%s: %s\n    instead: %s\n", t.DB, t.Name, t.Refused, t.Next)
			continue
		}
		fmt.Fprintf(w, "  %s.%s: %s, %d file(s)\n", t.DB, t.Name, t.RowFormat, len(t.Files))
		for _, n := range t.Notes {
			fmt.Fprintf(w, "    %s\n", n)
		}
	}
	if len(att) == 0 {
		return
	}
	fmt.Fprintf(w, "steps:\n")
	fmt.Fprintf(w, "  1. start a fresh MariaDB %s server with innodb_page_size=%d (the tables must not exist there)\n", k.Version, k.PageSize)
	fmt.Fprintf(w, "  2. on its host: sh %s [client options, e.g. -uroot -S /run/mysqld/mysqld.sock]\n", filepath.Join(k.Dir, adopt.Script))
	fmt.Fprintf(w, "     it runs %s (CREATE TABLE without the secondary keys, DISCARD TABLESPACE), copies %s into the data directory, runs %s (IMPORT TABLESPACE, the keys added, CHECK TABLE)\n",
		filepath.Join(k.Dir, adopt.CreateSQL), filepath.Join(k.Dir, "files"), filepath.Join(k.Dir, adopt.ImportSQL))
	fmt.Fprintf(w, "  3. compare CHECKSUM TABLE with the source's if you have it; restart the server and CHECK TABLE again\n")
}
