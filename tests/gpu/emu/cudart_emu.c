// A CPU stand-in for the CUDA runtime and an NVIDIA GPU, for testing
// gozyme's GPU derivatives on a machine without one. The device code of a
// CUDA program (its differentiated LLVM module, retargeted to x86-64 by
// the tests: address spaces dropped, NVVM intrinsics renamed to the
// gzemu_* functions here, libdevice math to libm) runs one POSIX thread
// per CUDA thread, a block at a time; __syncthreads is a barrier of the
// block's threads, __shared__ variables are ordinary globals (blocks run
// one after another), atomics are the CPU's. Warps do not exist:
// activemask reports a partial warp, so warp-synchronous code takes its
// per-thread path. The host side is the program's own host object, whose
// registration and launch calls land here.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { unsigned x, y, z; } dim3;
typedef int cudaError_t;
typedef struct CUevent_st { double t; } *cudaEvent_t;
typedef void *cudaStream_t;

// Kernel registry: host stub address -> device function name.
enum { maxKernels = 256 };
static struct { const void *stub; const char *name; } kernels[maxKernels];
static int nkernels;

void **__cudaRegisterFatBinary(void *fatbin) { static void *handle; return &handle; }
void __cudaRegisterFatBinaryEnd(void **h) {}
void __cudaUnregisterFatBinary(void **h) {}
void __cudaRegisterFunction(void **h, const char *stub, char *devFun, const char *devName, int limit, void *tid,
                            void *bid, void *bdim, void *gdim, int *wsize) {
  if (nkernels < maxKernels) {
    kernels[nkernels].stub = stub;
    kernels[nkernels].name = devName;
    nkernels++;
  }
}
void __cudaRegisterVar(void **h, char *hostVar, char *devAddr, const char *devName, int ext, size_t size, int constant,
                       int global) {}
void __cudaRegisterManagedVar(void **h, void **hostVar, char *devAddr, const char *devName, int ext, size_t size,
                              int constant, int global) {}
void __cudaRegisterTexture(void) {}
void __cudaRegisterSurface(void) {}

// Launch configuration (<<<grid, block>>>), pushed by the caller and
// popped by the kernel's host stub.
static __thread struct { dim3 grid, block; size_t shmem; void *stream; } config;
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem, void *stream) {
  config.grid = grid, config.block = block, config.shmem = shmem, config.stream = stream;
  return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem, void *stream) {
  *grid = config.grid, *block = config.block, *shmem = config.shmem;
  *(void **)stream = config.stream;
  return 0;
}
cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shmem, void *stream) {
  return __cudaPushCallConfiguration(grid, block, shmem, stream);
}

// The running thread's indices.
static __thread unsigned tid[3], ctaid[3], ntid[3], nctaid[3];
static pthread_barrier_t *blockBarrier;

#define SREG(n, v, i) unsigned gzemu_nvvm_read_ptx_sreg_##n(void) { return v[i]; }
SREG(tid_x, tid, 0) SREG(tid_y, tid, 1) SREG(tid_z, tid, 2)
SREG(ctaid_x, ctaid, 0) SREG(ctaid_y, ctaid, 1) SREG(ctaid_z, ctaid, 2)
SREG(ntid_x, ntid, 0) SREG(ntid_y, ntid, 1) SREG(ntid_z, ntid, 2)
SREG(nctaid_x, nctaid, 0) SREG(nctaid_y, nctaid, 1) SREG(nctaid_z, nctaid, 2)
unsigned gzemu_nvvm_read_ptx_sreg_laneid(void) { return (tid[0] + ntid[0] * (tid[1] + ntid[1] * tid[2])) % 32; }
unsigned gzemu_nvvm_read_ptx_sreg_warpsize(void) { return 32; }
void gzemu_nvvm_barrier0(void) { pthread_barrier_wait(blockBarrier); }
void gzemu_nvvm_barrier_sync(unsigned id) { pthread_barrier_wait(blockBarrier); }
void gzemu_nvvm_bar_warp_sync(unsigned mask) {}
unsigned gzemu_activemask(void) { return 1u << gzemu_nvvm_read_ptx_sreg_laneid(); }
unsigned gzemu_nvvm_shfl_sync_bfly_i32(unsigned mask, unsigned v, unsigned lanes, unsigned c) { return v; }
float gzemu_nvvm_shfl_sync_bfly_f32(unsigned mask, float v, unsigned lanes, unsigned c) { return v; }
unsigned gzemu_nvvm_shfl_sync_idx_i32(unsigned mask, unsigned v, unsigned lane, unsigned c) { return v; }
_Bool gzemu_nvvm_vote_all_sync(unsigned mask, _Bool p) { return p; }
void gzemu_trap(void) {
  fprintf(stderr, "emulated GPU: trap\n");
  abort();
}
double rsqrt(double x) { return 1 / sqrt(x); }
float rsqrtf(float x) { return 1 / sqrtf(x); }

typedef void (*trampoline)(void **args);
struct thread { trampoline run; void **args; unsigned t[3], b[3]; dim3 grid, block; };

static void *runThread(void *p) {
  struct thread *th = p;
  memcpy(tid, th->t, sizeof tid);
  memcpy(ctaid, th->b, sizeof ctaid);
  ntid[0] = th->block.x, ntid[1] = th->block.y, ntid[2] = th->block.z;
  nctaid[0] = th->grid.x, nctaid[1] = th->grid.y, nctaid[2] = th->grid.z;
  th->run(th->args);
  return NULL;
}

cudaError_t cudaLaunchKernel(const void *stub, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t s) {
  const char *name = NULL;
  for (int i = 0; i < nkernels; i++)
    if (kernels[i].stub == stub) name = kernels[i].name;
  if (!name) {
    fprintf(stderr, "emulated GPU: launch of an unregistered kernel\n");
    return 98;
  }
  char sym[512];
  snprintf(sym, sizeof sym, "gozyme_emu_%s", name);
  trampoline run = (trampoline)dlsym(RTLD_DEFAULT, sym);
  if (!run) {
    fprintf(stderr, "emulated GPU: no %s\n", sym);
    return 98;
  }
  unsigned n = block.x * block.y * block.z;
  struct thread *ths = calloc(n, sizeof *ths);
  pthread_t *ids = calloc(n, sizeof *ids);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 20);
  pthread_barrier_t bar;
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) {
        pthread_barrier_init(&bar, NULL, n);
        blockBarrier = &bar;
        for (unsigned k = 0; k < n; k++) {
          struct thread *th = &ths[k];
          th->run = run, th->args = args, th->grid = grid, th->block = block;
          th->t[0] = k % block.x, th->t[1] = k / block.x % block.y, th->t[2] = k / (block.x * block.y);
          th->b[0] = bx, th->b[1] = by, th->b[2] = bz;
          if (pthread_create(&ids[k], &attr, runThread, th)) {
            fprintf(stderr, "emulated GPU: pthread_create failed\n");
            abort();
          }
        }
        for (unsigned k = 0; k < n; k++) pthread_join(ids[k], NULL);
        pthread_barrier_destroy(&bar);
      }
  free(ths);
  free(ids);
  return 0;
}

cudaError_t cudaMalloc(void **p, size_t n) { return (*p = calloc(1, n ? n : 1)) ? 0 : 2; }
cudaError_t cudaFree(void *p) { free(p); return 0; }
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int kind) { memmove(d, s, n); return 0; }
cudaError_t cudaMemset(void *p, int v, size_t n) { memset(p, v, n); return 0; }
cudaError_t cudaDeviceSynchronize(void) { return 0; }
cudaError_t cudaDeviceReset(void) { return 0; }
cudaError_t cudaGetLastError(void) { return 0; }
cudaError_t cudaPeekAtLastError(void) { return 0; }
const char *cudaGetErrorString(cudaError_t e) { return e ? "emulated error" : "no error"; }
const char *cudaGetErrorName(cudaError_t e) { return e ? "cudaErrorEmulated" : "cudaSuccess"; }
cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return 0; }
cudaError_t cudaSetDevice(int d) { return 0; }
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = calloc(1, sizeof **e); return 0; }
cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return 0; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { e->t = now(); return 0; }
cudaError_t cudaEventSynchronize(cudaEvent_t e) { return 0; }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) { *ms = (float)(b->t - a->t); return 0; }
