/* Timing shared by the benchmark kernels and workloads: repeat until a batch
 * takes 0.5 s, minimum over 5 batches. */
#ifndef GOZYME_TIMING_H
#define GOZYME_TIMING_H
#include <time.h>

static double bench_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* bench_barrier is an empty asm that may read and write any memory: it keeps
 * the optimizer from hoisting a call whose inputs do not change (a readonly,
 * argmemonly primal) out of the timing loop. */
#define bench_barrier() __asm__ volatile("" ::: "memory")

/* bench_time returns the minimum seconds per call of fn(arg) over 5 batches,
 * each repeated until it lasts at least 0.5 s. */
static double bench_time(void (*fn)(void *), void *arg) {
	long reps = 1;
	for (;;) {
		double t0 = bench_now();
		for (long i = 0; i < reps; i++) { fn(arg); bench_barrier(); }
		if (bench_now() - t0 >= 0.5) break;
		reps *= 2;
	}
	double best = 1e300;
	for (int b = 0; b < 5; b++) {
		double t0 = bench_now();
		for (long i = 0; i < reps; i++) { fn(arg); bench_barrier(); }
		double t = (bench_now() - t0) / reps;
		if (t < best) best = t;
	}
	return best;
}

/* Keeps results alive so the optimizer cannot drop the timed work. */
static volatile double bench_sink;
#endif
