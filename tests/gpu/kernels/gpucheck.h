// Host-side helpers of the GPU test programs: device buffers, launches
// timed with CUDA events, and the check of a gradient against central
// differences of the primal kernel (the CPU reference: the differences
// are taken on the host from primal runs in double precision).
//
// Every program prints "CHECK <name> maxerr=<e> tol=<t> ok|FAIL" per
// gradient and, with "bench" as its first argument, "BENCH <name>
// primal_ms=<p> grad_ms=<g>" per kernel pair; it exits 1 on a failure.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CU(call)                                                                      \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(2);                                                                        \
    }                                                                                 \
  } while (0)

static int failures = 0;

// Device copy of a host vector.
template <typename T> static T *dev(const std::vector<T> &h) {
  T *p = nullptr;
  CU(cudaMalloc((void **)&p, h.size() * sizeof(T) + 1));
  CU(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

template <typename T> static void put(T *d, const std::vector<T> &h) {
  CU(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
}

template <typename T> static std::vector<T> get(const T *d, size_t n) {
  CU(cudaGetLastError()); // a kernel that failed to launch
  std::vector<T> h(n);
  CU(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// Deterministic pseudo-random numbers in [lo, hi).
static double rnd(unsigned &s, double lo, double hi) {
  s = s * 1664525u + 1013904223u;
  return lo + (hi - lo) * ((s >> 8) / 16777216.0);
}

template <typename T> static std::vector<T> randoms(size_t n, unsigned seed, double lo, double hi) {
  std::vector<T> v(n);
  for (auto &x : v) x = (T)rnd(seed, lo, hi);
  return v;
}

// Reports one gradient check: got against want, error relative to the
// largest |want| (gradients mix large and near-zero entries).
static void report(const char *name, const std::vector<double> &got, const std::vector<double> &want, double tol) {
  double scale = 1e-30, err = 0;
  for (double w : want) scale = fmax(scale, fabs(w));
  for (size_t i = 0; i < want.size(); i++) {
    double e = fabs(got[i] - want[i]) / scale;
    if (!(e <= err)) err = e; // NaN counts as a failure
  }
  // A reference of zeros checks nothing (a primal that did not run).
  bool ok = err <= tol && got.size() == want.size() && scale > 1e-30;
  if (!ok) failures++;
  printf("CHECK %s maxerr=%.3g tol=%.3g %s\n", name, err, tol, ok ? "ok" : "FAIL");
  if (!ok)
    for (size_t i = 0; i < want.size() && i < 8; i++) printf("  [%zu] got %.17g want %.17g\n", i, got[i], want[i]);
}

// Central difference of loss() along one coordinate of a host vector that
// set() copies to the device before each evaluation.
template <typename Loss, typename Set>
static double central(std::vector<double> &x, size_t i, Loss loss, Set set) {
  double x0 = x[i], h = 1e-5 * (1 + fabs(x0));
  x[i] = x0 + h;
  set(x);
  double up = loss();
  x[i] = x0 - h;
  set(x);
  double down = loss();
  x[i] = x0;
  set(x);
  return (up - down) / (2 * h);
}

// Milliseconds per launch of f, over reps launches after one warm-up.
template <typename F> static double timeit(F f, int reps) {
  f();
  CU(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  CU(cudaEventCreate(&a));
  CU(cudaEventCreate(&b));
  CU(cudaEventRecord(a, 0));
  for (int r = 0; r < reps; r++) f();
  CU(cudaEventRecord(b, 0));
  CU(cudaEventSynchronize(b));
  float ms = 0;
  CU(cudaEventElapsedTime(&ms, a, b));
  CU(cudaGetLastError());
  return ms / reps;
}

static void bench(const char *name, double primal, double grad) {
  printf("BENCH %s primal_ms=%.6g grad_ms=%.6g ratio=%.4g\n", name, primal, grad, grad / primal);
}

static int finish() {
  CU(cudaDeviceSynchronize());
  if (failures) printf("FAILED %d check(s)\n", failures);
  return failures ? 1 : 0;
}

// Enzyme's entry points and markers, as GPU code declares them (device
// code cannot declare C variadic functions).
template <typename... Args> __device__ void __enzyme_autodiff(void *, Args...);
template <typename R, typename... Args> __device__ R __enzyme_fwddiff(void *, Args...);
__device__ int enzyme_dup, enzyme_const, enzyme_out;
