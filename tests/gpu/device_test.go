package gpu

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// gpuRuntime returns the CUDA runtime's library directory where an NVIDIA
// GPU is reachable, skipping the test (with the reason) where not.
func gpuRuntime(t *testing.T) string {
	t.Helper()
	if err := exec.Command("nvidia-smi", "-L").Run(); err != nil {
		t.Skip("no GPU reachable (nvidia-smi lists none): the programs run on the emulated GPU only (see bench/gpu for running them on a GPU machine)")
	}
	cuda := os.Getenv("CUDA_HOME")
	if cuda == "" {
		cuda = "/usr/local/cuda"
	}
	lib := filepath.Join(cuda, "lib64")
	if m, _ := filepath.Glob(filepath.Join(lib, "libcudart.so*")); len(m) == 0 {
		t.Skipf("a GPU is reachable but there is no CUDA runtime in %s (set CUDA_HOME)", lib)
	}
	return lib
}

// TestOnGPU builds every program as for the GPU, links it with libcudart
// and checks its gradients on the GPU.
func TestOnGPU(t *testing.T) {
	lib := gpuRuntime(t)
	dev := libdevice(t)
	for _, p := range []struct {
		name string
		env  []string
	}{
		{"daxpy", nil}, {"shared", nil}, {"loop", nil}, {"xsbench", nil}, {"lulesh", nil}, {"private", nil},
		{"loop_dynamic", []string{"GOZYME_GPU_LOOP_RECORDS=32"}},
		{"reduce_dynamic", []string{"GOZYME_GPU_LOOP_RECORDS=16"}},
	} {
		t.Run(p.name, func(t *testing.T) {
			b := buildCUDA(t, p.name, append([]string{"GOZYME_LIBDEVICE=" + dev}, p.env...))
			exe := filepath.Join(filepath.Dir(b.obj), p.name)
			link := exec.Command("g++", b.obj, "-L"+lib, "-Wl,-rpath,"+lib, "-lcudart", "-lm", "-o", exe)
			if out, err := link.CombinedOutput(); err != nil {
				t.Fatalf("linking with libcudart: %v\n%s", err, out)
			}
			runChecks(t, exe)
		})
	}
}
