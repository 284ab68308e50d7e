/* reallocCounter is C source defining the program's own realloc, which
 * counts its calls in reallocs and forwards them to the C library's.
 * (reallocCounter in tripcount_test.go) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <math.h>
static long reallocs;
void *realloc(void *p, size_t n) {
	static void *(*real)(void *, size_t);
	if (!real) real = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	reallocs++;
	return real(p, n);
}
