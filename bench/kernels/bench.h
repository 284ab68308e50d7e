/* Shared harness of gozyme's benchmark kernels: timing (repeat until a batch
 * takes 0.5 s, minimum over 5 batches) and heap accounting (peak bytes in use,
 * through the linker's --wrap of malloc, calloc, realloc and free). */
#ifndef GOZYME_BENCH_H
#define GOZYME_BENCH_H
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "timing.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

static size_t bench_in_use, bench_peak;
void *__real_malloc(size_t), *__real_calloc(size_t, size_t), *__real_realloc(void *, size_t);
void __real_free(void *);
static void bench_count(void *p, long sign) {
	if (!p) return;
	bench_in_use += sign * (long)malloc_usable_size(p);
	if (bench_in_use > bench_peak) bench_peak = bench_in_use;
}
void *__wrap_malloc(size_t n) { void *p = __real_malloc(n); bench_count(p, 1); return p; }
void *__wrap_calloc(size_t n, size_t m) { void *p = __real_calloc(n, m); bench_count(p, 1); return p; }
void *__wrap_realloc(void *q, size_t n) {
	if (q) bench_count(q, -1);
	void *p = __real_realloc(q, n);
	bench_count(p ? p : q, 1);
	return p;
}
void __wrap_free(void *p) { bench_count(p, -1); __real_free(p); }

struct bench_job {
	void (*fn)(void *);
	void *arg;
};
static void *bench_run_job(void *j) {
	struct bench_job *b = j;
	b->fn(b->arg);
	return NULL;
}

/* bench_peak_bytes runs fn(arg) once and returns the peak heap bytes it had
 * in use beyond what was in use before. It runs fn on a fresh thread:
 * gradients keep their cache buffers per thread from one call to the next
 * (ad/retain.go), so only a thread's first call allocates the whole tape. */
static size_t bench_peak_bytes(void (*fn)(void *), void *arg) {
	size_t base = bench_in_use;
	bench_peak = base;
	struct bench_job job = {fn, arg};
	pthread_t t;
	if (pthread_create(&t, NULL, bench_run_job, &job) == 0)
		pthread_join(t, NULL);
	else
		fn(arg);
	return bench_peak - base;
}

/* One result line, parsed by bench/main.go. */
static void bench_report(const char *name, double primal, double grad, size_t primal_bytes, size_t grad_bytes) {
	printf("BENCH %s %.9g %.9g %zu %zu\n", name, primal, grad, primal_bytes, grad_bytes);
	fflush(stdout);
}

/* bench_report for a kernel that allocates nothing itself, so that the
 * gradient's heap peak is its tape (the values it caches), reported next to
 * overwritten: the bytes of values the primal overwrites, counted by hand. */
static void bench_report_tape(const char *name, double primal, double grad, size_t grad_bytes, size_t overwritten) {
	printf("BENCH %s %.9g %.9g %zu %zu %zu\n", name, primal, grad, (size_t)0, grad_bytes, overwritten);
	fflush(stdout);
}
#endif
