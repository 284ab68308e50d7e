/* Pointers moved as vectors: at -O2 the SLP vectorizer turns the swap of a
   struct's two pointer fields, the copy of a struct of two pointers and a
   select between two pointer pairs into load/shufflevector/select/store of
   <2 x double*>. The shadows must move as the pointers do, lane by lane.
   Reverse, forward, split and batch forward mode against analytic values
   (the swap) and central differences. */
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_width;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
typedef struct { double a, b; } two;
two __enzyme_fwddiff_batch(void *, ...);

struct pair { double *cur, *other; };

/* Swapping the two pointers: load <2 x double*>, shuffle, store. */
__attribute__((noinline)) static void swap(struct pair *p) {
	double *t = p->cur;
	p->cur = p->other;
	p->other = t;
}
int loopN = 4;
double swapped(struct pair *p) {
	double s = 0;
	for (int k = 0; k < loopN; k++) {
		s += sin(p->cur[k]) * (k + 1);
		swap(p);
	}
	return s;
}

/* A struct of two pointers copied field by field into memory with a
   shadow (load and store <2 x double*>), and one built from two pointers
   stepped by a vector getelementptr (insertelement, vector GEP, store). */
__attribute__((noinline)) static void put(struct pair *dst, const struct pair *src) {
	dst->cur = src->cur;
	dst->other = src->other;
}
__attribute__((noinline)) static void stepped(struct pair *dst, double *x, double *y) {
	dst->cur = x + 1;
	dst->other = y + 1;
}
__attribute__((noinline)) static double use(const struct pair *q) {
	return q->cur[0] * q->other[1] + cos(q->cur[1]) * q->other[0];
}
double copied(double *x, double *y) {
	struct pair slots[3];
	struct pair a = {x, y}, b = {y, x};
	put(&slots[0], &a);
	put(&slots[1], &b);
	stepped(&slots[2], x - 1, y - 1);
	return use(&slots[0]) + 2 * use(&slots[1]) + exp(use(&slots[2]));
}

/* A select between two pointer pairs (select <2 x i1>, <2 x double*>),
   stored as a pair. */
__attribute__((noinline)) static void choose(struct pair *out, const struct pair *l, const struct pair *r, int c) {
	double *a = l->cur, *b = l->other, *x = r->cur, *y = r->other;
	out->cur = c ? a : x;
	out->other = c ? b : y;
}
int chooseLeft;
double selected(double *x, double *y) {
	struct pair l = {x, y}, r = {y, x}, out;
	choose(&out, &l, &r, chooseLeft);
	return out.cur[0] * out.cur[0] * out.other[1] + sin(out.other[0]);
}

static int failures;
static void check(const char *what, double got, double want) {
	double err = fabs(got - want) / fmax(1.0, fabs(want));
	if (!(err <= 1e-6)) {
		printf("FAIL %s: got %.17g want %.17g\n", what, got, want);
		failures++;
	} else
		printf("ok %s\n", what);
}

/* Each derivative of FN(x, y) against central differences:
   reverse, split, forward (one direction per input) and batch forward. */
#define CHECK_XY(NAME, FN)                                                                          \
	do {                                                                                             \
		double x[2] = {0.3, -0.7}, y[2] = {1.1, 0.45}, gx[2], gy[2], h = 1e-6;                    \
		for (int i = 0; i < 2; i++) {                                                            \
			double s = x[i], fp, fm;                                                         \
			x[i] = s + h; fp = FN(x, y); x[i] = s - h; fm = FN(x, y); \
			x[i] = s; gx[i] = (fp - fm) / (2 * h);                                           \
			s = y[i];                                                                        \
			y[i] = s + h; fp = FN(x, y); y[i] = s - h; fm = FN(x, y); \
			y[i] = s; gy[i] = (fp - fm) / (2 * h);                                           \
		}                                                                                        \
		double dx[2] = {0}, dy[2] = {0}, sx[2] = {0}, sy[2] = {0};                                \
		__enzyme_autodiff((void *)FN, enzyme_dup, x, dx, enzyme_dup, y, dy);   \
		void *tape = __enzyme_augmentfwd((void *)FN, enzyme_dup, x, sx, enzyme_dup, y, sy); \
		__enzyme_reverse((void *)FN, enzyme_dup, x, sx, enzyme_dup, y, sy, 1.0, tape); \
		for (int i = 0; i < 2; i++) {                                                            \
			report(NAME, "reverse dx", i, dx[i], gx[i]);                                     \
			report(NAME, "reverse dy", i, dy[i], gy[i]);                                     \
			report(NAME, "split dx", i, sx[i], gx[i]);                                       \
			report(NAME, "split dy", i, sy[i], gy[i]);                                       \
		}                                                                                        \
		for (int i = 0; i < 4; i++) {                                                            \
			double tx[2] = {0}, ty[2] = {0};                                                 \
			(i < 2 ? tx : ty)[i % 2] = 1;                                                    \
			double got = __enzyme_fwddiff((void *)FN, enzyme_dup, x, tx, enzyme_dup, y, ty); \
			report(NAME, "forward", i, got, i < 2 ? gx[i] : gy[i - 2]);                      \
		}                                                                                        \
		double ax[2] = {1, 0}, ay[2] = {0, 0}, bx[2] = {0, 0}, by[2] = {0, 1};                    \
		two t = __enzyme_fwddiff_batch((void *)FN, enzyme_width, 2, enzyme_dup, x, ax, bx, enzyme_dup, y, ay, by); \
		report(NAME, "batch", 0, t.a, gx[0]);                                                    \
		report(NAME, "batch", 1, t.b, gy[1]);                                                    \
	} while (0)
static void report(const char *name, const char *what, int i, double got, double want) {
	char buf[96];
	snprintf(buf, sizeof buf, "%s %s %d", name, what, i);
	check(buf, got, want);
}

int main(void) {
	/* The swap: lane k of the loop reads u at even k, w at odd k. */
	double u[4] = {0.1, 0.7, -0.4, 1.3}, w[4] = {0.9, -0.2, 0.5, 0.25};
	double du[4] = {0}, dw[4] = {0};
	struct pair p = {u, w}, dp = {du, dw};
	__enzyme_autodiff((void *)swapped, enzyme_dup, &p, &dp);
	/* an even number of swaps leaves p and dp as they were */
	if (p.cur != u || dp.cur != du || dp.other != dw) {
		printf("FAIL swap: the pairs moved\n");
		failures++;
	}
	for (int k = 0; k < 4; k++) {
		char what[64];
		double eu = k % 2 == 0 ? cos(u[k]) * (k + 1) : 0, ew = k % 2 ? cos(w[k]) * (k + 1) : 0;
		snprintf(what, sizeof what, "swap reverse du[%d]", k); check(what, du[k], eu);
		snprintf(what, sizeof what, "swap reverse dw[%d]", k); check(what, dw[k], ew);
	}
	double tu[4] = {1, 2, 3, 4}, tw[4] = {-1, 0.5, 2, -3};
	struct pair tp = {tu, tw};
	double want = 0;
	for (int k = 0; k < 4; k++)
		want += cos(k % 2 ? w[k] : u[k]) * (k + 1) * (k % 2 ? tw[k] : tu[k]);
	check("swap forward", __enzyme_fwddiff((void *)swapped, enzyme_dup, &p, &tp), want);
	double su[4] = {0}, sw[4] = {0};
	struct pair sp = {su, sw};
	void *tape = __enzyme_augmentfwd((void *)swapped, enzyme_dup, &p, &sp);
	__enzyme_reverse((void *)swapped, enzyme_dup, &p, &sp, 1.0, tape);
	for (int k = 0; k < 4; k++) {
		char what[64];
		snprintf(what, sizeof what, "swap split du[%d]", k); check(what, su[k], k % 2 == 0 ? cos(u[k]) * (k + 1) : 0);
		snprintf(what, sizeof what, "swap split dw[%d]", k); check(what, sw[k], k % 2 ? cos(w[k]) * (k + 1) : 0);
	}
	CHECK_XY("copy", copied);
	chooseLeft = 1;
	CHECK_XY("select left", selected);
	chooseLeft = 0;
	CHECK_XY("select right", selected);
	printf("%s\n", failures ? "FAILED" : "all ok");
	return failures != 0;
}
