package irutil

import (
	"io"
	"log"
)

// QuietParser drops what llir writes to the standard logger while it
// parses (a deprecation notice for every getelementptr indexing into a
// vector, as optimized SSE code has): gozyme's processes
// print only their own diagnostics into the user's build log, and gozyme
// itself does not use the standard logger.
func QuietParser() { log.SetOutput(io.Discard) }
