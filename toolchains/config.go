package toolchains

import (
	"context"
	"os"
)

// Config is what the environment tells package toolchains: where the tools
// are and whether to print every invocation. A command reads it once, at
// its entry (ConfigFromEnv, through lto.ConfigFromEnv), and passes it
// down: as a value where it calls this package directly, and in the
// context of its work (WithConfig) for Run and RunPath. Nothing else in this
// package reads the environment. The zero Config is an unset environment:
// tools looked up on PATH and in the LLVM installation, nothing printed.
type Config struct {
	// LLVMBin is GOZYME_LLVM_BIN: a directory searched for the LLVM 14
	// tools before PATH (Tool).
	LLVMBin string
	// FlangBin is GOZYME_FLANG_BIN: the same for flang 16's tools
	// (package flang).
	FlangBin string
	// Verbose is GOZYME_VERBOSE set and not "0": every tool invocation is
	// printed to stderr (LogCommand), and messages say more.
	Verbose bool
	// CUDAPath is CUDA_PATH: a CUDA toolkit's installation, looked at
	// when a compile gives no --cuda-path (FindCUDA).
	CUDAPath string
	// Libdevice is GOZYME_LIBDEVICE: NVIDIA's libdevice.10.bc, instead of
	// the CUDA toolkit's (FindCUDA).
	Libdevice string
}

// ConfigFromEnv reads the configuration from the environment.
func ConfigFromEnv() Config {
	v := os.Getenv("GOZYME_VERBOSE")
	return Config{
		LLVMBin:   os.Getenv("GOZYME_LLVM_BIN"),
		FlangBin:  os.Getenv("GOZYME_FLANG_BIN"),
		Verbose:   v != "" && v != "0",
		CUDAPath:  os.Getenv("CUDA_PATH"),
		Libdevice: os.Getenv("GOZYME_LIBDEVICE"),
	}
}

type configKey struct{}

// WithConfig returns ctx carrying cfg, for Run and RunPath below it.
func WithConfig(ctx context.Context, cfg Config) context.Context {
	return context.WithValue(ctx, configKey{}, cfg)
}

// ConfigOf returns the Config ctx carries (WithConfig), the zero Config
// when it carries none.
func ConfigOf(ctx context.Context) Config {
	cfg, _ := ctx.Value(configKey{}).(Config)
	return cfg
}
