package lto

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gozyme/gozyme/toolchains"
)

// Config is what the environment tells gozyme-ld (and gozyme-cc's link
// path). ConfigFromEnv reads it once, at a command's entry; from there it
// is passed down, and nothing else in package lto reads the environment.
// The zero Config is an unset environment with the link cache off.
type Config struct {
	// RealLD is GOZYME_REAL_LD: the linker gozyme-ld drives, a path or a
	// name looked up on PATH ("": ld on PATH; see RealLinker).
	RealLD string
	// OptLevel is GOZYME_OPT_LEVEL: the -O level (0-3, s, z, g or fast,
	// with or without the -O) at which every module is optimized before
	// and after AD, instead of its compile's ("": the compile's).
	OptLevel string
	// Jobs is GOZYME_JOBS: how many modules are rewritten at once (0:
	// GOMAXPROCS; a value that is not a positive number counts as unset).
	Jobs int
	// ADStage is GOZYME_AD_STAGE: "pre" differentiates before optimizing
	// (at -O0, locals promoted only), for benchmarks of AD after
	// optimization; anything else, after.
	ADStage string
	// Times is GOZYME_TIMES set and not "0": each link prints the time
	// each of its stages took to stderr.
	Times bool
	// CPUProfile is GOZYME_CPUPROFILE: a file to which each link writes
	// a Go CPU profile of the gozyme-ld process (go tool pprof reads it;
	// "": none).
	CPUProfile string
	// PrintTypes is GOZYME_PRINT_TYPES set: AD prints the type analysis
	// of the functions it reaches to stderr (ad.Options.TypeReport); a
	// job asked for it is not answered from the link cache.
	PrintTypes bool
	// KeepTemps is GOZYME_KEEP_TEMPS: a directory under which each link
	// (and each gozyme-cc run) keeps its intermediate files ("": they go
	// to a temporary directory, removed afterwards).
	KeepTemps string
	// CacheDir is the link cache's directory, "" when the cache is off:
	// GOZYME_CACHE when it is an absolute path; off when it is "off" or
	// "0", or while KeepTemps asks for the intermediate files; else
	// gozyme/link under the user's cache directory.
	CacheDir string
	// ObjectSources is GOZYME_OBJECT_SOURCES (ObjectSourcesEnv): the
	// source each temporary object of a compile-and-link line comes from,
	// for messages (nil when unset or malformed).
	ObjectSources map[string]string
	// WholeModule is GOZYME_CUT=off (or 0): every rewrite group's module
	// is optimized and compiled whole, instead of the roots' cut of it
	// (cut.go).
	WholeModule bool

	// Tools is the toolchain's configuration (toolchains.ConfigFromEnv:
	// GOZYME_LLVM_BIN, GOZYME_FLANG_BIN, GOZYME_VERBOSE, CUDA_PATH,
	// GOZYME_LIBDEVICE). Link puts it in the context of its work, where
	// toolchains.Run finds it.
	Tools toolchains.Config

	// cacheEnv holds, for each variable of cacheEnv, its name, whether it
	// is set and its value: they go into every link-cache key.
	cacheEnv []string
}

// ConfigFromEnv reads the configuration from the environment.
func ConfigFromEnv() Config {
	cfg := Config{
		RealLD:     os.Getenv("GOZYME_REAL_LD"),
		OptLevel:   os.Getenv("GOZYME_OPT_LEVEL"),
		ADStage:    os.Getenv("GOZYME_AD_STAGE"),
		KeepTemps:  os.Getenv("GOZYME_KEEP_TEMPS"),
		CPUProfile: os.Getenv("GOZYME_CPUPROFILE"),
		Tools:      toolchains.ConfigFromEnv(),
	}
	if n, err := strconv.Atoi(os.Getenv("GOZYME_JOBS")); err == nil && n > 0 {
		cfg.Jobs = n
	}
	v := os.Getenv("GOZYME_TIMES")
	cfg.Times = v != "" && v != "0"
	cfg.PrintTypes = os.Getenv("GOZYME_PRINT_TYPES") != ""
	if v := os.Getenv("GOZYME_CUT"); v == "off" || v == "0" {
		cfg.WholeModule = true
	}
	switch v := os.Getenv("GOZYME_CACHE"); {
	case v == "off" || v == "0" || cfg.KeepTemps != "":
	case filepath.IsAbs(v):
		cfg.CacheDir = v
	default:
		if dir, err := os.UserCacheDir(); err == nil {
			cfg.CacheDir = filepath.Join(dir, "gozyme", "link")
		}
	}
	if v := os.Getenv(ObjectSourcesEnv); v != "" {
		if json.Unmarshal([]byte(v), &cfg.ObjectSources) != nil {
			cfg.ObjectSources = nil
		}
	}
	for _, e := range cacheEnv {
		v, ok := os.LookupEnv(e)
		cfg.cacheEnv = append(cfg.cacheEnv, fmt.Sprintf("%s %v %s", e, ok, v))
	}
	return cfg
}
