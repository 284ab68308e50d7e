/* The program of TestIntPairsThroughWalkingPointer (intstore_test.go),
   compiled after checkPrelude: kiss_fft's state layout. One allocation
   holds a header of integers, the twiddles (doubles) and a buffer of
   doubles carrying derivatives; the factors are written through an int
   pointer that walks the header, two ints per step, so the analysis knows
   doubles, not only integers, at the places it may point to. With
   -DSINGLE each step writes one int: half a double may be overwritten,
   and the link stops. */
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double r, i; } cpx;
struct state { int nfft; int inverse; int factors[16]; cpx tw[1]; };
struct rstate { struct state *sub; cpx *tmp; };
static void factor(int n, int *facbuf) {
	int p = 4;
	do {
		while (n % p)
			p = p == 4 ? 2 : p + 1;
		n /= p;
		*facbuf++ = p;
#ifndef SINGLE
		*facbuf++ = n;
#endif
	} while (n > 1);
}
static struct state *alloc(int nfft, void *mem, size_t *lenmem) {
	struct state *st = NULL;
	size_t need = sizeof(struct state) + sizeof(cpx) * (nfft - 1);
	if (lenmem == NULL)
		st = malloc(need);
	else {
		if (mem && *lenmem >= need)
			st = mem;
		*lenmem = need;
	}
	if (st) {
		st->nfft = nfft;
		for (int i = 0; i < nfft; i++) {
			st->tw[i].r = cos(i * 0.1);
			st->tw[i].i = sin(i * 0.1);
		}
		factor(nfft, st->factors);
	}
	return st;
}
static struct rstate *ralloc(int nfft) {
	size_t subsize = 0;
	alloc(nfft, NULL, &subsize);
	struct rstate *st = malloc(sizeof(struct rstate) + subsize + sizeof(cpx) * nfft);
	st->sub = (struct state *)(st + 1);
	st->tmp = (cpx *)((char *)st->sub + subsize);
	alloc(nfft, st->sub, &subsize);
	return st;
}
static double f(double *x) {
	struct rstate *st = ralloc(6);
	for (int i = 0; i < 6; i++) {
		st->tmp[i].r = x[i] * st->sub->tw[i].r;
		st->tmp[i].i = x[i] * st->sub->tw[i].i;
	}
	double s = 0;
	for (int i = 0; i < 6; i++)
		s += st->tmp[i].r * st->tmp[i].r * st->sub->factors[i % 2] + st->tmp[i].i;
	free(st);
	return s;
}
int main(void) {
	double x[6] = {1, 2, 3, 4, 5, 6}, g[6] = {0};
	__enzyme_autodiff((void *)f, x, g);
	/* s = sum_i fac(i%2) x_i^2 cos^2(0.1 i) + x_i sin(0.1 i); 6 = 2*3: factors {2, 3, 3, 1} */
	for (int i = 0; i < 6; i++) {
		double c = cos(0.1 * i), want = 2 * (i % 2 ? 3 : 2) * x[i] * c * c + sin(0.1 * i);
		double dx[6] = {0};
		dx[i] = 1;
		CHECK("reverse", g[i], want);
		CHECK("forward", __enzyme_fwddiff((void *)f, x, dx), want);
	}
	return failures != 0;
}
