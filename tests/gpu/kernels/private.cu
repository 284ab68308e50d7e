// Thread-private adjoints: each thread reads and writes only x[gid] (gid
// the global thread index), and x is the only memory the function
// touches, so no two threads add into the same element of dx. The
// gradient adds plainly where the launch is one-dimensional (checked on
// entry; atomically otherwise).
#include "gpucheck.h"

__device__ void damp(double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * exp(-x[i] * x[i]);
}

__global__ void gradient(double *x, double *dx, int n) { __enzyme_autodiff((void *)damp, enzyme_dup, x, dx, enzyme_const, n); }
__global__ void primal(double *x, int n) { damp(x, n); }

// damp for blocks of any height, row 0 working: launched two rows high,
// the gradient takes the atomic path (threads of other rows have the same
// x index), one row high the plain one.
__device__ void dampRow(double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.y == 0 && i < n) x[i] = x[i] * exp(-x[i] * x[i]);
}
__global__ void gradientRow(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)dampRow, enzyme_dup, x, dx, enzyme_const, n);
}

int main(int argc, char **argv) {
  bool timing = argc > 1 && !strcmp(argv[1], "bench");
  int n = timing ? 1 << 24 : 1000, block = 128, grid = (n + block - 1) / block;
  std::vector<double> x = randoms<double>(n, 61, -2, 2), w = randoms<double>(n, 67, -1, 1);
  double *x_ = dev(x), *dx_ = dev(w);
  gradient<<<grid, block>>>(x_, dx_, n);
  std::vector<double> dx = get(dx_, n), want(n);
  for (int i = 0; i < n; i++) want[i] = w[i] * exp(-x[i] * x[i]) * (1 - 2 * x[i] * x[i]);
  report("private", dx, want, 1e-12);
  put(x_, x), put(dx_, w);
  gradientRow<<<grid, dim3(block, 2)>>>(x_, dx_, n);
  report("private-2d-launch", get(dx_, n), want, 1e-12);
  if (timing) {
    double tp = timeit([&] { primal<<<grid, block>>>(x_, n); }, 20);
    bench("private", tp, timeit([&] { gradient<<<grid, block>>>(x_, dx_, n); }, 20));
    bench("private-row-1d", tp, timeit([&] { gradientRow<<<grid, block>>>(x_, dx_, n); }, 20));
    bench("private-row-2d", tp, timeit([&] { gradientRow<<<grid, dim3(block, 2)>>>(x_, dx_, n); }, 20));
  }
  return finish();
}
