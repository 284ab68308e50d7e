/* The program of TestMinChain (minchain_test.go), compiled after
 * checkPrelude: running minima and maxima carried by a loop (best =
 * select(c, s, best)) whose candidates come from loops the reverse skips
 * where their adjoint is zero (zeroskip.go); the chain's flag
 * (minchain.go) skips the candidates a later one replaced. argmin is
 * k-means' cost (the first candidate outside the loop, as std::min over
 * j >= 1 leaves it), argmax keeps its running value in the select's true
 * arm, flipping picks by < or > by the parity of j (the condition changes
 * across iterations), twice takes two running minima of the same
 * distances. No chain: leaky also sums the running minimum inside the
 * loop, stored writes it to memory in every iteration, after reads the
 * last minimum after the loop through memory and a product. via_call
 * calls argmin and flipping (their pairs, split mode). Each gradient
 * against central differences, and argmin's and flipping's Hessian times a
 * vector by forward over reverse against central differences of their
 * gradients. */
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

enum { K = 6, N = 9, D = 3, P = K * D };
/* Not constants: the loops stay loops. */
int k = K, n = N, d = D;
double pts[N * D];

static double dist(const double *c, int i, int j) {
	double s = 0;
	for (int l = 0; l < d; l++) {
		double t = pts[i * d + l] - c[j * d + l];
		s += t * t;
	}
	return s;
}

__attribute__((noinline)) double argmin(const double *c) {
	double cost = 0;
	for (int i = 0; i < n; i++) {
		double best = dist(c, i, 0);
		for (int j = 1; j < k; j++) {
			double s = dist(c, i, j);
			best = s < best ? s : best;
		}
		cost += best;
	}
	return cost;
}

__attribute__((noinline)) double argmax(const double *c) {
	double cost = 0;
	for (int i = 0; i < n; i++) {
		double best = -1;
		for (int j = 0; j < k; j++) {
			double s = dist(c, i, j) * c[j];
			best = best >= s ? best : s;
		}
		cost += best * best;
	}
	return cost;
}

__attribute__((noinline)) double flipping(const double *c) {
	double cost = 0;
	for (int i = 0; i < n; i++) {
		double best = dist(c, i, 0);
		for (int j = 1; j < k; j++) {
			double s = dist(c, i, j);
			int take = (j + i) & 1 ? s > best : s < best;
			best = take ? s : best;
		}
		cost += best;
	}
	return cost;
}

__attribute__((noinline)) double twice(const double *c) {
	double cost = 0;
	for (int i = 0; i < n; i++) {
		double lo = 1e30, hi = -1e30;
		for (int j = 0; j < k; j++) {
			double s = dist(c, i, j);
			lo = s < lo ? s : lo;
			hi = s > hi ? s : hi;
		}
		cost += lo * hi;
	}
	return cost;
}

__attribute__((noinline)) double leaky(const double *c) {
	double cost = 0;
	for (int i = 0; i < n; i++) {
		double best = dist(c, i, 0), acc = 0;
		for (int j = 1; j < k; j++) {
			double s = dist(c, i, j);
			acc += best;
			best = s < best ? s : best;
		}
		cost += best + 0.125 * acc;
	}
	return cost;
}

__attribute__((noinline)) double stored(const double *c) {
	double cost = 0, trace[K];
	for (int i = 0; i < n; i++) {
		double best = dist(c, i, 0);
		for (int j = 1; j < k; j++) {
			double s = dist(c, i, j);
			best = s < best ? s : best;
			trace[j] = best;
		}
		for (int j = 1; j < k; j++) cost += 0.25 * trace[j];
		cost += best;
	}
	return cost;
}

__attribute__((noinline)) double after(const double *c) {
	double cost = 0, trace[1];
	for (int i = 0; i < n; i++) {
		double best = dist(c, i, 0);
		for (int j = 1; j < k; j++) {
			double s = dist(c, i, j);
			best = s < best ? s : best;
		}
		trace[0] = best;
		cost += trace[0] * best;
	}
	return cost;
}

/* via_call differentiates argmin and flipping as callees: their augmented
 * forward and reverse pairs (split mode). */
double via_call(const double *c) { return argmin(c) * c[1] + flipping(c); }

static void argmin_grad(const double *c, double *dc) {
	for (int i = 0; i < P; i++) dc[i] = 0;
	__enzyme_autodiff((void *)argmin, enzyme_dup, c, dc);
}

static void flipping_grad(const double *c, double *dc) {
	for (int i = 0; i < P; i++) dc[i] = 0;
	__enzyme_autodiff((void *)flipping, enzyme_dup, c, dc);
}

/* GRADIENT_CHECK checks f's gradient at c0 (a macro: the function
 * differentiated is known at each call). */
#define GRADIENT_CHECK(what, f, c0)                                        \
	do {                                                                 \
		double c[P], dc[P];                                              \
		for (int i = 0; i < P; i++) c[i] = (c0)[i], dc[i] = 0;           \
		__enzyme_autodiff((void *)f, enzyme_dup, c, dc);                 \
		for (int i = 0; i < P; i++) {                                    \
			double save = c[i], h = 1e-6;                                \
			c[i] = save + h;                                             \
			double fp = f(c);                                            \
			c[i] = save - h;                                             \
			double fm = f(c);                                            \
			c[i] = save;                                                 \
			check(what, dc[i], (fp - fm) / (2 * h), 1e-6);               \
		}                                                                \
	} while (0)

/* HV_CHECK checks H v by forward over reverse of g (f's gradient) against
 * central differences of the gradient along v. */
#define HV_CHECK(what, g, c0, v)                                           \
	do {                                                                 \
		double c[P], dc[P], hv[P], gp[P], gm[P], h = 1e-5;               \
		for (int i = 0; i < P; i++) c[i] = (c0)[i], hv[i] = 0;           \
		__enzyme_fwddiff((void *)g, enzyme_dup, c, v, enzyme_dup, dc, hv); \
		for (int i = 0; i < P; i++) c[i] = (c0)[i] + h * (v)[i];         \
		g(c, gp);                                                        \
		for (int i = 0; i < P; i++) c[i] = (c0)[i] - h * (v)[i];         \
		g(c, gm);                                                        \
		for (int i = 0; i < P; i++)                                      \
			check(what, hv[i], (gp[i] - gm[i]) / (2 * h), 1e-6);         \
	} while (0)

int main(void) {
	double c0[P], v[P];
	unsigned s = 4242;
	for (int i = 0; i < N * D; i++) {
		s = s * 1103515245u + 12345u;
		pts[i] = (double)(s >> 8) / (1u << 24) * 2 - 1;
	}
	for (int i = 0; i < P; i++) {
		s = s * 1103515245u + 12345u;
		c0[i] = (double)(s >> 8) / (1u << 24) * 2 - 1;
		v[i] = 0.5 + 0.25 * (i % 3);
	}
	GRADIENT_CHECK("argmin", argmin, c0);
	GRADIENT_CHECK("argmax", argmax, c0);
	GRADIENT_CHECK("flipping", flipping, c0);
	GRADIENT_CHECK("twice", twice, c0);
	GRADIENT_CHECK("leaky", leaky, c0);
	GRADIENT_CHECK("stored", stored, c0);
	GRADIENT_CHECK("after", after, c0);
	GRADIENT_CHECK("via_call", via_call, c0);
	HV_CHECK("argmin Hv", argmin_grad, c0, v);
	HV_CHECK("flipping Hv", flipping_grad, c0, v);
	return failures != 0;
}
