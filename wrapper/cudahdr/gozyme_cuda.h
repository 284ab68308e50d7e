/* gozyme's CUDA header, included in every CUDA compile (as clang includes
   its __clang_cuda_runtime_wrapper.h) when no CUDA toolkit is installed:
   what CUDA sources use of the toolkit's headers. Device side: the
   qualifiers (__global__, __device__, __shared__, ...), the builtin
   variables (threadIdx, blockIdx, ...), clang's own device functions and
   math (sin -> libdevice's __nv_sin, __syncthreads, __shfl_*_sync,
   __ldg, ...) and atomicAdd & co. Host side: dim3 and the CUDA runtime's
   types and functions (cudaMalloc, cudaMemcpy, kernel launches), which a
   program links from libcudart. */
#ifndef GOZYME_CUDA_H
#define GOZYME_CUDA_H
#if defined(__CUDA__) && defined(__clang__)
#include <__clang_cuda_math_forward_declares.h>
#define __CUDACC__
#include <climits>
#include <cmath>
#include <cstdlib>
#include <stdlib.h>
#include <string.h>
#undef __CUDACC__
#ifndef CUDA_VERSION
#define CUDA_VERSION 11050
#endif
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#include "__clang_cuda_builtin_vars.h"
/* CUDA's vector types (vector_types.h) and their make_ functions. */
struct __attribute__((aligned(1))) char1 { signed char x; };
static __host__ __device__ __inline__ char1 make_char1(signed char x) { char1 r = {x}; return r; }
struct __attribute__((aligned(2))) char2 { signed char x, y; };
static __host__ __device__ __inline__ char2 make_char2(signed char x, signed char y) { char2 r = {x, y}; return r; }
struct __attribute__((aligned(1))) char3 { signed char x, y, z; };
static __host__ __device__ __inline__ char3 make_char3(signed char x, signed char y, signed char z) { char3 r = {x, y, z}; return r; }
struct __attribute__((aligned(4))) char4 { signed char x, y, z, w; };
static __host__ __device__ __inline__ char4 make_char4(signed char x, signed char y, signed char z, signed char w) { char4 r = {x, y, z, w}; return r; }
struct __attribute__((aligned(1))) uchar1 { unsigned char x; };
static __host__ __device__ __inline__ uchar1 make_uchar1(unsigned char x) { uchar1 r = {x}; return r; }
struct __attribute__((aligned(2))) uchar2 { unsigned char x, y; };
static __host__ __device__ __inline__ uchar2 make_uchar2(unsigned char x, unsigned char y) { uchar2 r = {x, y}; return r; }
struct __attribute__((aligned(1))) uchar3 { unsigned char x, y, z; };
static __host__ __device__ __inline__ uchar3 make_uchar3(unsigned char x, unsigned char y, unsigned char z) { uchar3 r = {x, y, z}; return r; }
struct __attribute__((aligned(4))) uchar4 { unsigned char x, y, z, w; };
static __host__ __device__ __inline__ uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) { uchar4 r = {x, y, z, w}; return r; }
struct __attribute__((aligned(2))) short1 { short x; };
static __host__ __device__ __inline__ short1 make_short1(short x) { short1 r = {x}; return r; }
struct __attribute__((aligned(4))) short2 { short x, y; };
static __host__ __device__ __inline__ short2 make_short2(short x, short y) { short2 r = {x, y}; return r; }
struct __attribute__((aligned(2))) short3 { short x, y, z; };
static __host__ __device__ __inline__ short3 make_short3(short x, short y, short z) { short3 r = {x, y, z}; return r; }
struct __attribute__((aligned(8))) short4 { short x, y, z, w; };
static __host__ __device__ __inline__ short4 make_short4(short x, short y, short z, short w) { short4 r = {x, y, z, w}; return r; }
struct __attribute__((aligned(2))) ushort1 { unsigned short x; };
static __host__ __device__ __inline__ ushort1 make_ushort1(unsigned short x) { ushort1 r = {x}; return r; }
struct __attribute__((aligned(4))) ushort2 { unsigned short x, y; };
static __host__ __device__ __inline__ ushort2 make_ushort2(unsigned short x, unsigned short y) { ushort2 r = {x, y}; return r; }
struct __attribute__((aligned(2))) ushort3 { unsigned short x, y, z; };
static __host__ __device__ __inline__ ushort3 make_ushort3(unsigned short x, unsigned short y, unsigned short z) { ushort3 r = {x, y, z}; return r; }
struct __attribute__((aligned(8))) ushort4 { unsigned short x, y, z, w; };
static __host__ __device__ __inline__ ushort4 make_ushort4(unsigned short x, unsigned short y, unsigned short z, unsigned short w) { ushort4 r = {x, y, z, w}; return r; }
struct __attribute__((aligned(4))) int1 { int x; };
static __host__ __device__ __inline__ int1 make_int1(int x) { int1 r = {x}; return r; }
struct __attribute__((aligned(8))) int2 { int x, y; };
static __host__ __device__ __inline__ int2 make_int2(int x, int y) { int2 r = {x, y}; return r; }
struct __attribute__((aligned(4))) int3 { int x, y, z; };
static __host__ __device__ __inline__ int3 make_int3(int x, int y, int z) { int3 r = {x, y, z}; return r; }
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
static __host__ __device__ __inline__ int4 make_int4(int x, int y, int z, int w) { int4 r = {x, y, z, w}; return r; }
struct __attribute__((aligned(4))) uint1 { unsigned int x; };
static __host__ __device__ __inline__ uint1 make_uint1(unsigned int x) { uint1 r = {x}; return r; }
struct __attribute__((aligned(8))) uint2 { unsigned int x, y; };
static __host__ __device__ __inline__ uint2 make_uint2(unsigned int x, unsigned int y) { uint2 r = {x, y}; return r; }
struct __attribute__((aligned(4))) uint3 { unsigned int x, y, z; };
static __host__ __device__ __inline__ uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { uint3 r = {x, y, z}; return r; }
struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; };
static __host__ __device__ __inline__ uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { uint4 r = {x, y, z, w}; return r; }
struct __attribute__((aligned(8))) long1 { long x; };
static __host__ __device__ __inline__ long1 make_long1(long x) { long1 r = {x}; return r; }
struct __attribute__((aligned(16))) long2 { long x, y; };
static __host__ __device__ __inline__ long2 make_long2(long x, long y) { long2 r = {x, y}; return r; }
struct __attribute__((aligned(8))) long3 { long x, y, z; };
static __host__ __device__ __inline__ long3 make_long3(long x, long y, long z) { long3 r = {x, y, z}; return r; }
struct __attribute__((aligned(16))) long4 { long x, y, z, w; };
static __host__ __device__ __inline__ long4 make_long4(long x, long y, long z, long w) { long4 r = {x, y, z, w}; return r; }
struct __attribute__((aligned(8))) ulong1 { unsigned long x; };
static __host__ __device__ __inline__ ulong1 make_ulong1(unsigned long x) { ulong1 r = {x}; return r; }
struct __attribute__((aligned(16))) ulong2 { unsigned long x, y; };
static __host__ __device__ __inline__ ulong2 make_ulong2(unsigned long x, unsigned long y) { ulong2 r = {x, y}; return r; }
struct __attribute__((aligned(8))) ulong3 { unsigned long x, y, z; };
static __host__ __device__ __inline__ ulong3 make_ulong3(unsigned long x, unsigned long y, unsigned long z) { ulong3 r = {x, y, z}; return r; }
struct __attribute__((aligned(16))) ulong4 { unsigned long x, y, z, w; };
static __host__ __device__ __inline__ ulong4 make_ulong4(unsigned long x, unsigned long y, unsigned long z, unsigned long w) { ulong4 r = {x, y, z, w}; return r; }
struct __attribute__((aligned(8))) longlong1 { long long x; };
static __host__ __device__ __inline__ longlong1 make_longlong1(long long x) { longlong1 r = {x}; return r; }
struct __attribute__((aligned(16))) longlong2 { long long x, y; };
static __host__ __device__ __inline__ longlong2 make_longlong2(long long x, long long y) { longlong2 r = {x, y}; return r; }
struct __attribute__((aligned(8))) longlong3 { long long x, y, z; };
static __host__ __device__ __inline__ longlong3 make_longlong3(long long x, long long y, long long z) { longlong3 r = {x, y, z}; return r; }
struct __attribute__((aligned(16))) longlong4 { long long x, y, z, w; };
static __host__ __device__ __inline__ longlong4 make_longlong4(long long x, long long y, long long z, long long w) { longlong4 r = {x, y, z, w}; return r; }
struct __attribute__((aligned(8))) ulonglong1 { unsigned long long x; };
static __host__ __device__ __inline__ ulonglong1 make_ulonglong1(unsigned long long x) { ulonglong1 r = {x}; return r; }
struct __attribute__((aligned(16))) ulonglong2 { unsigned long long x, y; };
static __host__ __device__ __inline__ ulonglong2 make_ulonglong2(unsigned long long x, unsigned long long y) { ulonglong2 r = {x, y}; return r; }
struct __attribute__((aligned(8))) ulonglong3 { unsigned long long x, y, z; };
static __host__ __device__ __inline__ ulonglong3 make_ulonglong3(unsigned long long x, unsigned long long y, unsigned long long z) { ulonglong3 r = {x, y, z}; return r; }
struct __attribute__((aligned(16))) ulonglong4 { unsigned long long x, y, z, w; };
static __host__ __device__ __inline__ ulonglong4 make_ulonglong4(unsigned long long x, unsigned long long y, unsigned long long z, unsigned long long w) { ulonglong4 r = {x, y, z, w}; return r; }
struct __attribute__((aligned(4))) float1 { float x; };
static __host__ __device__ __inline__ float1 make_float1(float x) { float1 r = {x}; return r; }
struct __attribute__((aligned(8))) float2 { float x, y; };
static __host__ __device__ __inline__ float2 make_float2(float x, float y) { float2 r = {x, y}; return r; }
struct __attribute__((aligned(4))) float3 { float x, y, z; };
static __host__ __device__ __inline__ float3 make_float3(float x, float y, float z) { float3 r = {x, y, z}; return r; }
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
static __host__ __device__ __inline__ float4 make_float4(float x, float y, float z, float w) { float4 r = {x, y, z, w}; return r; }
struct __attribute__((aligned(8))) double1 { double x; };
static __host__ __device__ __inline__ double1 make_double1(double x) { double1 r = {x}; return r; }
struct __attribute__((aligned(16))) double2 { double x, y; };
static __host__ __device__ __inline__ double2 make_double2(double x, double y) { double2 r = {x, y}; return r; }
struct __attribute__((aligned(8))) double3 { double x, y, z; };
static __host__ __device__ __inline__ double3 make_double3(double x, double y, double z) { double3 r = {x, y, z}; return r; }
struct __attribute__((aligned(16))) double4 { double x, y, z, w; };
static __host__ __device__ __inline__ double4 make_double4(double x, double y, double z, double w) { double4 r = {x, y, z, w}; return r; }
#include <__clang_cuda_libdevice_declares.h>
#include <__clang_cuda_device_functions.h>
#include <__clang_cuda_math.h>
#include <__clang_cuda_cmath.h>
typedef unsigned int cuuint32_t;
typedef unsigned long long cuuint64_t;
#include <__clang_cuda_intrinsics.h>
#define __GZ_DEV__ static __device__ __inline__ __attribute__((always_inline))
__GZ_DEV__ int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
__GZ_DEV__ unsigned atomicAdd(unsigned *p, unsigned v) { return __nvvm_atom_add_gen_i((int *)p, v); }
__GZ_DEV__ unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { return __nvvm_atom_add_gen_ll((long long *)p, v); }
__GZ_DEV__ float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
__GZ_DEV__ double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
__GZ_DEV__ int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
__GZ_DEV__ int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
__GZ_DEV__ int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
__GZ_DEV__ int atomicCAS(int *p, int c, int v) { return __nvvm_atom_cas_gen_i(p, c, v); }
#undef __GZ_DEV__
#endif /* __CUDA__ */
#if defined(__CUDA__) || defined(__cplusplus)
/* The CUDA runtime's API (libcudart), as much as programs commonly call. */
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 } cudaError_t;
typedef enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 } cudaMemcpyKind;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
struct dim3;
cudaError_t cudaMalloc(void **p, size_t n);
cudaError_t cudaFree(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
cudaError_t cudaMemset(void *p, int v, size_t n);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
#ifdef __cplusplus
}
#endif
#ifdef __cplusplus
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ constexpr dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};
extern "C" cudaError_t cudaLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t s);
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem = 0, void *stream = 0);
extern "C" cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shmem = 0, cudaStream_t stream = 0);
#endif
#endif
#endif
