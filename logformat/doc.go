// Package logformat decodes the bytes of InnoDB redo logs into mini-transactions and records:
// MariaDB 10.8+ (ib_logfile0, "Phys"), the 512-byte block formats (MariaDB 10.5-10.7's 10.8
// records in blocks, the MLOG records of MySQL 5.6-8.x and MariaDB 10.0-10.4, rings of
// ib_logfileN), their headers, checkpoints and checksums. Callers open a log through package
// redo, which picks the format.
package logformat
