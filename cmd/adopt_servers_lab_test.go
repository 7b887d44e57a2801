package cmd

import (
	"testing"

	"innoscope/internal/lab"
)

// TestAdoptOtherServers is TestAdoptLab's attachment with MariaDB 10.5 (Debian bullseye's) and
// 11.8 (trixie's): the tables made by that server, the kit run against a fresh server of the
// same version (the kit takes the target's major version from the .frm files). On 10.5 the
// instant-altered a_inst is refused (10.5 imports it as a corrupt B-tree) and the kit sets the
// AUTO_INCREMENT counter, which 10.5's IMPORT leaves at 1.
func TestAdoptOtherServers(t *testing.T) {
	for _, srv := range []*lab.Server{lab.MariaDB105, lab.MariaDB118} {
		t.Run(srv.Version, func(t *testing.T) {
			srv.Require(t)
			adoptCheck(t, srv, false)
		})
	}
}
