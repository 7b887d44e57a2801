package finding

// Codes is the list of finding codes, each with what it says in a few words. The README's
// diagnose table gives each in full (when it is raised, at what severity, as the server
// behaves); TestCodes keeps this list, the codes the sources raise and that table in step.
var Codes = map[string]string{
	// The redo log.
	"UNCLEAN_SHUTDOWN":        "records to apply after the checkpoint: crash recovery runs",
	"NO_VALID_CHECKPOINT":     "no checkpoint block is valid: the server refuses the log",
	"CHECKPOINT_REJECTED":     "one checkpoint block is invalid; the other is used",
	"MISSING_FILE_CHECKPOINT": "no FILE_CHECKPOINT record at the checkpoint: the server refuses the log",
	"MISSING_MLOG_CHECKPOINT": "no MLOG_CHECKPOINT record at the checkpoint (MLOG formats)",
	"CORRUPT_LOG":             "the log is damaged before the end its checkpoint promises",
	"LOG_DAMAGED":             "the scan stopped at a damaged mini-transaction with whole ones after it",
	"LOG_UNREADABLE":          "the redo log cannot be used: absent, unreadable or an unreadable format",
	"MISSING_REDO_FILE":       "a file of the log's chain or ring is absent",
	"OLDER_LOG_FORMAT":        "a MySQL or pre-10.8 MariaDB log: read, checked by 10.11's rules, not replayed",
	"CRASH_UPGRADE_REFUSED":   "a crashed log of an older server, which MariaDB 10.8+ refuses to upgrade",
	// Files and tablespaces.
	"SPACE_ID_MISMATCH":    "page 0 carries another space id than the dictionary or the log gives its file",
	"MISSING_FILE":         "a file the log modifies or the dictionary lists is absent",
	"PENDING_RENAME":       "a FILE_RENAME whose target is not on disk",
	"DUPLICATE_SPACE_ID":   "files share a space id",
	"ORPHAN_FILE":          "a datafile nothing refers to by its name",
	"ORPHANS_NOT_CHECKED":  "the dictionary could not be read: files no log record names are listed",
	"UNREADABLE_DATAFILE":  "a datafile cannot be read",
	"UNPROTECTED_LOCATION": "a datafile outside the directories the server knows",
	"UNDO_DIR_DATAFILE":    "a datafile in the undo directory",
	"STALE_ISL":            "an .isl naming no file",
	"MISLINKED_TABLE":      "a DATA DIRECTORY table whose .isl names no file while the log gives it one",
	"ENCRYPTED_TABLESPACE": "an encrypted tablespace the log changes: the server needs its keys",
	"SERVER_RUNNING":       "a server is running on the directory",
	// Pages.
	"CORRUPT_PAGE":          "a corrupt page recovery does not touch",
	"CORRUPT_PAGE_NEEDED":   "a corrupt page recovery must read",
	"FILE_AHEAD_OF_LOG":     "pages with LSNs beyond the end of the log",
	"PAGES_NOT_CHECKED":     "pages not judged (page 0 blank and rebuilt by the log, or --skip-pages)",
	"INNOCHECKSUM_REJECTS":  "pages innochecksum rejects that the server accepts",
	"DICTIONARY_UNREADABLE": "the data dictionary could not be read",
	// The dictionary, DDL and undo.
	"MISSING_FRM":                   "a dictionary table without its .frm",
	"DDL_RECOVERY":                  "ddl_recovery.log holds actions the server completes or reverts",
	"DDL_RECOVERY_FAILS":            "the server's DDL recovery cannot complete an action: a table loses a partition",
	"INSTANT_METADATA_UNRECOGNIZED": "instant ALTER metadata the server rejects as recovery leaves it",
	"UNCOMMITTED_DDL":               "the crash cut a DDL transaction, which recovery rolls back",
	"UNDO_UNREADABLE":               "the undo logs could not be read",
	"ROLLBACK_PENDING":              "transactions the server rolls back at start",
	// recover, verify and salvage.
	"REPLAY_FAILED":                     "the replay into a copy failed",
	"COPY_CORRUPT_PAGE":                 "a page of the replayed copy fails its checksum",
	"COPY_LOG_NOT_CLEAN":                "the replayed copy's log is not clean",
	"COPY_PAGE_AHEAD_OF_LOG":            "a page of the replayed copy is newer than its log",
	"SALVAGE_RELOCATED":                 "salvage placed a file at the name the log gives its space",
	"SALVAGE_SKIPPED_RECORDS":           "salvage skipped the records of a tablespace whose file is nowhere",
	"SALVAGE_QUARANTINED":               "salvage moved a file with an unrecoverable page out of the copy",
	"SALVAGE_LOG_TRUNCATED":             "salvage stopped the replay before a damaged mini-transaction",
	"SALVAGE_IGNORED_DUPLICATE":         "salvage moved a second file with a space id out of the copy",
	"SALVAGE_CHECKPOINT_RECORD_SKIPPED": "salvage started after a damaged FILE_CHECKPOINT mini-transaction",
	"SALVAGE_NEW_LOG":                   "salvage gave the copy a new empty log for a missing or empty one",
}
