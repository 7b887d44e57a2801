// Command innoscope is an offline crash-recovery and redo-log forensic tool for InnoDB data
// directories. See README.md.
package main

import "innoscope/cmd"

func main() { cmd.Main() }
