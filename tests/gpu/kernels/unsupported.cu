// Constructs the GPU derivatives do not support, one per CASE: each is an
// error naming the function, the kernel and the line.
#include "gpucheck.h"

extern "C" __device__ void *cudaGetParameterBuffer(size_t align, size_t size);
extern "C" __device__ cudaError_t cudaLaunchDevice(void *f, void *params, dim3 grid, dim3 block, unsigned shmem,
                                                   cudaStream_t s);
extern "C" __device__ unsigned long long cudaCGGetIntrinsicHandle(int scope);
extern "C" __device__ cudaError_t cudaCGSynchronizeGrid(unsigned long long handle, unsigned flags);


__device__ void f(double *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = x[i] * x[i];
#if CASE == 1
  v += __shfl_down_sync(0xffffffff, v, 1); // a warp shuffle of a derivative
#elif CASE == 2
  void *p = cudaGetParameterBuffer(8, 8); // a kernel launched from device code
  *(double **)p = x;
  cudaLaunchDevice(nullptr, p, dim3(1), dim3(32), 0, 0);
#elif CASE == 3
  cudaCGSynchronizeGrid(cudaCGGetIntrinsicHandle(1), 0); // a grid-wide barrier (cooperative groups)
#elif CASE == 4
  v = sin(v); // device math, without libdevice
#elif CASE == 5
  extern __shared__ double dyn[]; // dynamic shared memory
  dyn[threadIdx.x] = v;
  __syncthreads();
  v = dyn[(threadIdx.x + 1) % blockDim.x];
#endif
  x[i] = v;
}

__global__ void grad(double *x, double *dx) { __enzyme_autodiff((void *)f, enzyme_dup, x, dx); }

int main() { return 0; }
