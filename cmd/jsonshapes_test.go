package cmd

import (
	"innoscope/logformat/redo"
	"innoscope/report/view"
)

// The --json shapes of the commands (names the tests decode them into).
type (
	headerJSON     = redo.Description
	checkpointJSON = redo.CheckpointInfo
	blocksJSON     = redo.BlockWalk
	statsJSON      = redo.Stats
	recordJSON     = redo.Record
	diagnoseJSON   = view.DiagnosisJSON
	recoverJSON    = view.Recovery
	pagesJSON      = view.PagesJSON
)
