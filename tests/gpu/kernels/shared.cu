// __shared__ memory and __syncthreads(): a block reduction (a tree of
// partial sums in shared memory, a barrier after each level) and a 1-D
// stencil (a tile of u with its halo loaded into shared memory, a barrier,
// then each thread combining three neighbours). Their gradients add into
// __shared__ shadows, atomically (several threads read each element), and
// mirror every barrier.
#include "gpucheck.h"

constexpr int BS = 128;

// out[b] = (Σ_{i in block b} x_i²)², as a tree in shared memory.
__device__ void blocknorm(const double *x, double *out, int n) {
  __shared__ double s[BS];
  int t = threadIdx.x, i = blockIdx.x * BS + t;
  double v = i < n ? x[i] : 0.0;
  s[t] = v * v;
  __syncthreads();
#pragma unroll
  for (int stride = BS / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0] * s[0];
}

// v[i] = u[i-1]·u[i] + sin(u[i+1]) (clamped at the ends).
__device__ void stencil(const double *u, double *v, int n) {
  __shared__ double tile[BS + 2];
  int t = threadIdx.x, i = blockIdx.x * BS + t;
  int c = i < n ? i : n - 1;
  tile[t + 1] = u[c];
  if (t == 0) tile[0] = u[c > 0 ? c - 1 : 0];
  if (t == BS - 1) tile[BS + 1] = u[c + 1 < n ? c + 1 : n - 1];
  __syncthreads();
  if (i < n) v[i] = tile[t] * tile[t + 1] + sin(tile[t + 2]);
}

__global__ void normPrimal(const double *x, double *out, int n) { blocknorm(x, out, n); }
__global__ void normGradient(const double *x, double *dx, double *out, double *dout, int n) {
  __enzyme_autodiff((void *)blocknorm, enzyme_dup, x, dx, enzyme_dup, out, dout, enzyme_const, n);
}
__global__ void stencilPrimal(const double *u, double *v, int n) { stencil(u, v, n); }
__global__ void stencilGradient(const double *u, double *du, double *v, double *dv, int n) {
  __enzyme_autodiff((void *)stencil, enzyme_dup, u, du, enzyme_dup, v, dv, enzyme_const, n);
}

// Checks d/dx Σ w_b out_b against central differences at sampled inputs.
template <typename Primal, typename Grad>
static void check(const char *name, int n, int outs, Primal primal, Grad grad, bool timing) {
  int grid = (n + BS - 1) / BS;
  std::vector<double> x = randoms<double>(n, 3, -1, 1), w = randoms<double>(outs, 5, -1, 1);
  double *x_ = dev(x), *dx_ = dev(std::vector<double>(n, 0)), *o_ = dev(std::vector<double>(outs, 0)), *do_ = dev(w);
  grad<<<grid, BS>>>(x_, dx_, o_, do_, n);
  std::vector<double> dx = get(dx_, n);
  auto loss = [&] {
    primal<<<grid, BS>>>(x_, o_, n);
    std::vector<double> o = get(o_, outs);
    double l = 0;
    for (int j = 0; j < outs; j++) l += w[j] * o[j];
    return l;
  };
  auto set = [&](const std::vector<double> &v) { put(x_, v); };
  std::vector<double> got, want;
  for (int i : {0, 1, BS - 1, BS, BS + 1, n / 2, n - 2, n - 1}) {
    if (timing) break; // checked at the small size
    got.push_back(dx[i]);
    want.push_back(central(x, i, loss, set));
  }
  if (!timing) report(name, got, want, 1e-7);
  if (timing) {
    put(do_, w);
    double tp = timeit([&] { primal<<<grid, BS>>>(x_, o_, n); }, 20);
    bench(name, tp, timeit([&] { grad<<<grid, BS>>>(x_, dx_, o_, do_, n); }, 20));
  }
}

int main(int argc, char **argv) {
  bool timing = argc > 1 && !strcmp(argv[1], "bench");
  int n = timing ? 1 << 22 : 1000;
  check("blocknorm", n, (n + BS - 1) / BS, normPrimal, normGradient, timing);
  check("stencil", n, n, stencilPrimal, stencilGradient, timing);
  return finish();
}
