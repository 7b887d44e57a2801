// Package view prints the result of each innoscope command as the terminal shows it: a verdict
// line, tables and closing lines over report.Output, or the command's JSON document. It holds
// no analysis: every value it prints comes from the library call the command made.
package view
