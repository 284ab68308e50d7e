#ifndef CHECK_H
#define CHECK_H
#include <math.h>
#include <stdio.h>
/* Prints "what got want" and counts a failure unless they agree to 1e-12
   (relative, absolute below 1). */
static int failures;
static void check(const char *what, double got, double want) {
	printf("%s %.17g %.17g\n", what, got, want);
	if (!(fabs(got - want) <= 1e-12 * fmax(1, fabs(want)))) failures++;
}
#endif
