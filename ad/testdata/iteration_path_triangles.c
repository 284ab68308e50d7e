/* Triangles whose vectorized inner loop's bounds depend on the outer index
 * in several ways (start i, end i, both, an end chosen by a select, 32-
 * and 64-bit != tests, two inner loops on either side of a data branch).
 * At -O2/-O3 tri2, tri3 and tri4's joins after the vector loop are decided
 * by conditions computed per outer iteration, tri3's and tri4's through
 * phis their paths fix. d is $DIM where set (TestIterationPathTriangleRun,
 * pathiter_test.go; compiled after loopRunPrelude). */
#include <stdlib.h>
int DIM = 5;
#define BODY(J) q[J] += x[(i * 7 + (J)) % n] * c
#define TRI(name, LOOP) __attribute__((noinline)) double name(double *x, int n) { \
	int d = DIM; double q[64], e = 0; \
	for (int j = 0; j < 2 * d + 2; j++) q[j] = x[j % n]; \
	for (int i = 0; i < d; i++) { double c = x[(i + 3) % n] * x[(i + 5) % n]; LOOP; e += q[i] * c; } \
	for (int j = 0; j < 2 * d + 2; j++) e += q[j] * q[j]; \
	return e; }
TRI(tri1, for (int j = i; j < d; j++) BODY(j))
TRI(tri2, for (int j = 0; j < i; j++) BODY(j))
TRI(tri3, for (int j = 2 * i; j < d + i; j++) BODY(j))
TRI(tri4, int ee = (i & 1) ? d : d - 1; for (int j = i; j < ee; j++) BODY(j))
TRI(tri5, for (unsigned j = i; j != (unsigned)d; j++) BODY(j))
TRI(tri6, for (long j = i; j != 2 * d - i; j++) BODY(j))
TRI(tri7, if (x[i % n] > 0.345) { for (int j = i; j < d; j++) BODY(j); } else { for (int j = 0; j < i; j++) BODY(j + 1); })
#define ALL(X) X(tri1) X(tri2) X(tri3) X(tri4) X(tri5) X(tri6) X(tri7)
#define CAL(f) CALLEE(f)
ALL(CAL)
#define COPY(f) static double f##_copy(double *x, int n) { double y[128]; memcpy(y, x, n * sizeof *x); return f(y, n); } \
	static double f##_callee_copy(double *x, int n) { double y[128]; memcpy(y, x, n * sizeof *x); return f##_callee(y, n); }
ALL(COPY)
#define RUN(f) FDRUN(f, 41); FDRUN(f##_callee, 41);
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	ALL(RUN)
	return failures != 0;
}
