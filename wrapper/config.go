package wrapper

import (
	"os"
	"strconv"

	"github.com/gozyme/gozyme/lto"
)

// Config is what the environment tells gozyme-cc, gozyme-c++ and
// gozyme-fc. ConfigFromEnv reads it once, at the command's entry (Main's
// caller); from there it is passed down, and nothing else in package
// wrapper reads gozyme's variables.
type Config struct {
	// LTO is the link-time configuration (lto.ConfigFromEnv): the
	// wrapper's own links and fat objects follow it too (KeepTemps).
	LTO lto.Config
	// Flags is GOZYME_FLAGS, shell-quoted flags added to every compiler
	// call (parsed by Main, which reports a malformed value).
	Flags string
	// IncludeDir is GOZYME_INCLUDE_DIR: the directory under which
	// gozyme's <enzyme/enzyme> header is written ("": gozyme under the
	// user's cache directory).
	IncludeDir string
	// GPULoopRecords is GOZYME_GPU_LOOP_RECORDS (ad.Options.GPULoopRecords:
	// 0 when unset or not a number).
	GPULoopRecords int64
	// GPUReport is GOZYME_GPU_REPORT set: the device pipeline's remarks
	// (bytes each GPU gradient caches per thread) are printed, as they
	// are under GOZYME_VERBOSE.
	GPUReport bool
	// GPUPlainAdjoints is GOZYME_GPU_BENCH_PLAIN_ADJOINTS set
	// (ad.Options.GPUPlainAdjoints, for benchmarks only).
	GPUPlainAdjoints bool
}

// ConfigFromEnv reads the configuration from the environment.
func ConfigFromEnv() Config {
	n, _ := strconv.ParseInt(os.Getenv("GOZYME_GPU_LOOP_RECORDS"), 10, 64)
	return Config{
		LTO:              lto.ConfigFromEnv(),
		Flags:            os.Getenv("GOZYME_FLAGS"),
		IncludeDir:       os.Getenv("GOZYME_INCLUDE_DIR"),
		GPULoopRecords:   n,
		GPUReport:        os.Getenv("GOZYME_GPU_REPORT") != "",
		GPUPlainAdjoints: os.Getenv("GOZYME_GPU_BENCH_PLAIN_ADJOINTS") != "",
	}
}
