package cmd

import "innoscope/logformat/redo"

// The --json shapes of the log commands (names the tests decode them into).
type (
	headerJSON     = redo.Description
	checkpointJSON = redo.CheckpointInfo
	blocksJSON     = redo.BlockWalk
	statsJSON      = redo.Stats
	recordJSON     = redo.Record
)
