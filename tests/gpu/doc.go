// Package gpu holds gozyme's tests of CUDA derivatives. The programs in
// kernels/ (daxpy with a shared scalar, shared-memory reductions and a
// stencil with __syncthreads, a per-thread loop overwriting its values, an
// XSBench-style cross-section lookup and a LULESH-style hexahedron energy)
// are built with gozyme-c++ as for a GPU: device code differentiated and
// lowered to PTX by llc-14, embedded in the host object. The tests check
// the differentiated device IR (atomics exactly where threads may share
// memory, mirrored barriers, __shared__ shadows), that llc made PTX, and
// the gradients themselves: each program checks its gradients against
// central differences of its primal kernel, run here on an emulated GPU
// (emu/: the differentiated device module retargeted to the CPU, a POSIX
// thread per CUDA thread) and, where a GPU and the CUDA runtime are
// reachable, on the GPU (TestOnGPU; skipped with a message elsewhere).
// libdevice (NVIDIA's device math) comes from $GOZYME_LIBDEVICE or
// ../shared/cuda/libdevice.10.bc beside the checkout; tests that need it
// skip without it.
package gpu
