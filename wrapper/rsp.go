package wrapper

import "github.com/gozyme/gozyme/lto"

// ExpandResponseFiles replaces each @file argument by the arguments the
// file holds, recursively, as the clang driver does on Linux (GNU
// tokenization, lto.RspClang; nested file names relative to the working
// directory). An @file that cannot be read stays as it is, as clang then
// reports it as a missing input; nesting deeper than lto.MaxRspDepth (a
// file that includes itself) is an error.
func ExpandResponseFiles(args []string) ([]string, error) {
	return lto.ExpandResponseFilesAs(args, lto.RspClang)
}

// TokenizeGNU splits response-file text into arguments as LLVM's
// cl::TokenizeGNUCommandLine does.
func TokenizeGNU(s string) []string {
	return lto.SplitResponseFile(s, lto.RspClang)
}

// QuoteGNU quotes one non-empty argument so that TokenizeGNU reads it
// back (an empty argument cannot be written to a response file).
func QuoteGNU(a string) string {
	return lto.QuoteResponseArg(a)
}
