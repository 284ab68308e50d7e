/* Shared harness of gozyme's benchmark kernels: timing (repeat until a batch
 * takes 0.5 s, minimum over 5 batches) and heap accounting (peak bytes in use,
 * as requested, through the linker's --wrap of malloc, calloc, realloc and
 * free). */
#ifndef GOZYME_BENCH_H
#define GOZYME_BENCH_H
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "timing.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

static size_t bench_in_use, bench_peak;
void *__real_malloc(size_t), *__real_calloc(size_t, size_t), *__real_realloc(void *, size_t);
void __real_free(void *);
/* The bytes each live block was asked for, by address (linear probing):
 * the peak counts requested bytes, not malloc's rounding of each block
 * (malloc_usable_size adds 8 bytes or more), so that a tape of n doubles
 * reads n * 8. */
enum { BENCH_SLOTS = 1 << 16 };
static struct bench_block { void *p; size_t n; } bench_blocks[BENCH_SLOTS];
static size_t bench_live;
static size_t bench_hash(void *p) { return (size_t)(((uint64_t)(uintptr_t)p >> 4) * 0x9E3779B97F4A7C15u >> 48); }
static void bench_add(void *p, size_t n) {
	if (!p) return;
	if (++bench_live == BENCH_SLOTS) { fprintf(stderr, "bench.h: too many live blocks\n"); abort(); }
	size_t i = bench_hash(p);
	while (bench_blocks[i].p) i = (i + 1) % BENCH_SLOTS;
	bench_blocks[i] = (struct bench_block){p, n};
	bench_in_use += n;
	if (bench_in_use > bench_peak) bench_peak = bench_in_use;
}
/* bench_remove forgets block p and returns its size (0: not counted). */
static size_t bench_remove(void *p) {
	if (!p) return 0;
	size_t i = bench_hash(p);
	while (bench_blocks[i].p != p) {
		if (!bench_blocks[i].p) return 0;
		i = (i + 1) % BENCH_SLOTS;
	}
	size_t n = bench_blocks[i].n;
	bench_in_use -= n;
	bench_live--;
	/* Backward-shift deletion: move up the blocks the hole would hide. */
	for (size_t j = i;;) {
		bench_blocks[i].p = NULL;
		for (;;) {
			j = (j + 1) % BENCH_SLOTS;
			if (!bench_blocks[j].p) return n;
			size_t k = bench_hash(bench_blocks[j].p);
			if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) break;
		}
		bench_blocks[i] = bench_blocks[j];
		i = j;
	}
}
void *__wrap_malloc(size_t n) { void *p = __real_malloc(n); bench_add(p, n); return p; }
void *__wrap_calloc(size_t n, size_t m) { void *p = __real_calloc(n, m); bench_add(p, n * m); return p; }
void *__wrap_realloc(void *q, size_t n) {
	size_t old = bench_remove(q);
	void *p = __real_realloc(q, n);
	bench_add(p ? p : q, p ? n : old);
	return p;
}
void __wrap_free(void *p) { bench_remove(p); __real_free(p); }

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
