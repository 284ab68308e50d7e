package toolchains

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestConfigFromEnv: each variable lands in its field, read once; a
// context carries the Config to Run, and one without carries the zero
// Config.
func TestConfigFromEnv(t *testing.T) {
	t.Setenv("GOZYME_LLVM_BIN", "/llvm")
	t.Setenv("GOZYME_FLANG_BIN", "/flang")
	t.Setenv("GOZYME_VERBOSE", "1")
	t.Setenv("CUDA_PATH", "/cuda")
	t.Setenv("GOZYME_LIBDEVICE", "/libdevice.10.bc")
	want := Config{LLVMBin: "/llvm", FlangBin: "/flang", Verbose: true, CUDAPath: "/cuda", Libdevice: "/libdevice.10.bc"}
	cfg := ConfigFromEnv()
	if cfg != want {
		t.Errorf("ConfigFromEnv() = %+v, want %+v", cfg, want)
	}
	t.Setenv("GOZYME_VERBOSE", "0")
	if ConfigFromEnv().Verbose {
		t.Error("GOZYME_VERBOSE=0 is verbose")
	}
	if got := ConfigOf(WithConfig(context.Background(), cfg)); got != cfg {
		t.Errorf("ConfigOf(WithConfig(cfg)) = %+v", got)
	}
	if got := ConfigOf(context.Background()); got != (Config{}) {
		t.Errorf("ConfigOf(a bare context) = %+v", got)
	}
}

// TestConfigTool: a tool in LLVMBin is taken before the installed one;
// FindCUDA takes Libdevice over the toolkit's.
func TestConfigTool(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fake := filepath.Join(dir, "opt")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := (Config{LLVMBin: dir}).Tool("opt"); err != nil || p != fake {
		t.Errorf("Tool(opt) with LLVMBin = %q, %v; want %q", p, err, fake)
	}
	if c := (Config{Libdevice: "/x/libdevice.10.bc"}).FindCUDA(dir); c.Libdevice != "/x/libdevice.10.bc" {
		t.Errorf("FindCUDA = %+v", c)
	}
}
