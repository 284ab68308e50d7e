// A copy of variable length between untyped pointers whose bytes the type
// analysis cannot tell apart: a key's characters (and its terminator)
// copied into a new entry that also holds an active double, the length
// known only at run time (as std::string's characters are copied into a
// hash node). The entry's first byte is read as an integer, nothing
// types the rest. The bytes carry no derivative: the gradient is exact.
// With a second argument the copy also covers the entry's double (copied
// from another entry whose double is active): its adjoint cannot move,
// and the program must stop rather than drop it. With UNTYPED_START,
// nothing says what the first byte is: the link stops.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern double __enzyme_autodiff(void *, ...);
int enzyme_const, enzyme_out;

struct entry {
	char name[16];
	double value;
};

__attribute__((noinline)) static size_t keylen(const char *key) { return strlen(key); }

static double lookup_square(double x, const char *key, size_t extra) {
	struct entry *e = malloc(sizeof *e);
	struct entry *f = malloc(sizeof *f);
	f->value = 3 * x;
	memcpy(f->name, key, keylen(key) + 1);
	memcpy(e->name, f->name, keylen(key) + 1 + extra); /* extra 20: the double too */
	if (extra == 0)
		e->value = x;
#ifndef UNTYPED_START
	int w = e->name[0] - 'j'; /* 1 for "key" */
#else
	int w = 1; /* nothing reads the characters: nothing types them */
#endif
	double r = w * e->value * e->value;
	free(e);
	free(f);
	return r;
}

int main(int argc, char **argv) {
	size_t extra = argc > 1 ? 20 : 0;
	double x = 1.5;
	double dx = __enzyme_autodiff((void *)lookup_square, enzyme_out, x, enzyme_const, "key", enzyme_const, extra);
	double want = extra ? 18 * x : 2 * x;
	printf("%s %g %g\n", dx == want ? "ok" : "wrong", dx, want);
	return 0;
}
