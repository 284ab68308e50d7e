/* Buffers aligned by masking the low bits of their addresses
 * (TestAlignedByMask in retype_test.go), as Eigen carves its aligned stack
 * variables out of a larger alloca: (p + A-1) & -A. stack: an alloca of
 * n doubles + 15 bytes aligned to 16; stack32: a fixed array of 32-byte
 * alignment carved at 32; heap: a malloc'd block (16-aligned) aligned to
 * 16 after an odd offset into it, its alignment checked first (the
 * urem of its bits must leave them a pointer's). Each writes products of x into the
 * aligned buffer, reads them back, against central differences. */
#include <stdint.h>
#include <stdlib.h>
#define ALIGN_UP(p, a) ((double *)(((uintptr_t)(p) + (a) - 1) & -(uintptr_t)(a)))
__attribute__((noinline)) static double sweep(double *buf, const double *x, int n) {
	for (int i = 0; i < n; i++) buf[i] = x[i] * x[(i + 1) % n];
	double s = 0;
	for (int i = 0; i < n; i++) s += buf[i] * buf[(i + 2) % n];
	return s;
}
static double stack(double *x, int n) {
	char *raw = __builtin_alloca(n * sizeof(double) + 15);
	return sweep(ALIGN_UP(raw, 16), x, n);
}
static double stack32(double *x, int n) {
	_Alignas(32) char raw[64 * sizeof(double) + 31];
	double *buf = ALIGN_UP(raw + 8, 32); /* past the first boundary */
	return sweep(buf, x, n) + buf[0] * x[1];
}
static double heap(double *x, int n) {
	char *raw = malloc(n * sizeof(double) + 24);
	if ((uintptr_t)raw % 16 != 0) /* as Eigen's aligned_malloc asserts */
		abort();
	double *buf = ALIGN_UP(raw + 1, 16);
	double r = sweep(buf, x, n);
	free(raw);
	return r;
}
/* Eigen's aligned stack variable: an aligned alloca when small, else a
 * block from an allocator that checks its bits are aligned (a urem of
 * them), one pointer chosen between the two. */
__attribute__((noinline)) static void *checked_malloc(size_t size) {
	void *p = malloc(size);
	if ((uintptr_t)p % 16 != 0)
		abort();
	return p;
}
static double either(double *x, int n) {
	size_t size = n * sizeof(double);
	int small = size <= 4096;
	double *buf = small ? ALIGN_UP(__builtin_alloca(size + 15), 16) : checked_malloc(size);
	double r = sweep(buf, x, n);
	if (!small)
		free(buf);
	return r;
}
int main(void) {
	enum { N = 7 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.11 * i;
	GRADCHECK(stack);
	GRADCHECK(stack32);
	GRADCHECK(heap);
	GRADCHECK(either);
	return failures != 0;
}
