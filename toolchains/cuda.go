package toolchains

import (
	"os"
	"path/filepath"
)

// CUDA is what gozyme uses of a CUDA toolkit, when there is one.
type CUDA struct {
	Path      string // the installation (clang's --cuda-path), "" without one
	Libdevice string // libdevice.10.bc, "" when none is known
	Ptxas     string // ptxas, "" when absent
	Fatbinary string // fatbinary, "" when absent
}

// FindCUDA locates a CUDA toolkit: flagPath (a --cuda-path the compile
// gives), else cfg.CUDAPath (CUDA_PATH), else /usr/local/cuda; an
// installation counts when it has include/cuda_runtime.h (what clang's
// CUDA headers include). libdevice is cfg.Libdevice (GOZYME_LIBDEVICE),
// else the toolkit's nvvm/libdevice/libdevice.10.bc.
func (cfg Config) FindCUDA(flagPath string) CUDA {
	var c CUDA
	for _, p := range []string{flagPath, cfg.CUDAPath, "/usr/local/cuda"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(p, "include", "cuda_runtime.h")); err == nil {
			c.Path = p
			break
		}
	}
	if c.Path != "" {
		for _, t := range []struct {
			name string
			dst  *string
		}{{"ptxas", &c.Ptxas}, {"fatbinary", &c.Fatbinary}} {
			p := filepath.Join(c.Path, "bin", t.name)
			if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
				*t.dst = p
			}
		}
		lib := filepath.Join(c.Path, "nvvm", "libdevice", "libdevice.10.bc")
		if _, err := os.Stat(lib); err == nil {
			c.Libdevice = lib
		}
	}
	if cfg.Libdevice != "" {
		c.Libdevice = cfg.Libdevice
	}
	return c
}
