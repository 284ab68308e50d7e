// A block reduction whose tree depth depends on blockDim.x (known only at
// run time; blocks of up to 1024 threads): the gradient caches each level's partial sums for up to
// GOZYME_GPU_LOOP_RECORDS levels per thread, checked as it runs.
#include "gpucheck.h"

__device__ void blocknorm(const double *x, double *out, int n) {
  __shared__ double s[1024];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  double v = i < n ? x[i] : 0.0;
  s[t] = v * v;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride] * s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void primal(const double *x, double *out, int n) { blocknorm(x, out, n); }
__global__ void gradient(const double *x, double *dx, double *out, double *dout, int n) {
  __enzyme_autodiff((void *)blocknorm, enzyme_dup, x, dx, enzyme_dup, out, dout, enzyme_const, n);
}

int main() {
  int n = 700, block = 64, grid = (n + block - 1) / block;
  std::vector<double> x = randoms<double>(n, 71, -1, 1), w = randoms<double>(grid, 73, -1, 1);
  double *x_ = dev(x), *dx_ = dev(std::vector<double>(n, 0)), *o_ = dev(std::vector<double>(grid, 0)), *do_ = dev(w);
  gradient<<<grid, block>>>(x_, dx_, o_, do_, n);
  std::vector<double> dx = get(dx_, n);
  auto loss = [&] {
    primal<<<grid, block>>>(x_, o_, n);
    std::vector<double> o = get(o_, grid);
    double l = 0;
    for (int j = 0; j < grid; j++) l += w[j] * o[j];
    return l;
  };
  std::vector<double> got, want;
  for (int i : {0, 1, 63, 64, 350, n - 1}) {
    got.push_back(dx[i]);
    want.push_back(central(x, i, loss, [&](const std::vector<double> &v) { put(x_, v); }));
  }
  report("reduce-dynamic", got, want, 1e-7);
  return finish();
}
