/* The program of TestZeroAdjointSkips (zeroskip_test.go), compiled after
 * checkPrelude: loops whose result only a select or fmin/fmax passes on,
 * so that their reverse receives a zero adjoint wherever the other value
 * was picked (zeroskip.go). nearest is k-means' cost (the minimum by a
 * select, the loop's value its true arm), farthest a maximum with the
 * loop's value the false arm, relu a sum of fmax(dot, 0) and of
 * fmin(0, dot), shared a minimum whose distances are also summed (no skip:
 * the sum needs every loop's reverse), expdist a distance through exp
 * starting from an active value, scratch a distance over a buffer
 * rewritten in every outer iteration (the inner loop's values cached per
 * iteration, the skipped reverse leaves the counters indexing them right),
 * early a loop leaving on its data, and via_call the first two as
 * callees (their pairs, split mode). Each gradient against central
 * differences, and nearest's Hessian times a vector by forward over
 * reverse against central differences of its gradient. */
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

enum { K = 5, N = 7, D = 3, P = K * D };
/* Not constants: the loops stay loops. */
int k = K, n = N, d = D;
double pts[N * D];

__attribute__((noinline)) double nearest(const double *c) {
	double cost = 0;
	for (int i = 0; i < n; i++) {
		double best = 0;
		for (int j = 0; j < k; j++) {
			double s = 0;
			for (int l = 0; l < d; l++) {
				double t = pts[i * d + l] - c[j * d + l];
				s += t * t;
			}
			if (j == 0 || s < best) best = s;
		}
		cost += best;
	}
	return cost;
}

__attribute__((noinline)) double farthest(const double *c) {
	double cost = 0;
	for (int i = 0; i < n; i++) {
		double best = -1;
		for (int j = 0; j < k; j++) {
			double s = 0;
			for (int l = 0; l < d; l++) {
				double t = pts[i * d + l] * c[j * d + l];
				s += t * t * c[l];
			}
			best = best > s ? best : s;
		}
		cost += best * best;
	}
	return cost;
}

double relu(const double *c) {
	double y = 0;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < k; j++) {
			double s = c[j];
			for (int l = 0; l < d; l++) s += pts[i * d + l] * c[j * d + l] * c[l];
			y += (j + 1) * fmax(s, 0.0) + fmin(0.0, s - 0.5);
		}
	}
	return y;
}

double shared(const double *c) {
	double cost = 0, all = 0;
	for (int i = 0; i < n; i++) {
		double best = 0;
		for (int j = 0; j < k; j++) {
			double s = 0;
			for (int l = 0; l < d; l++) {
				double t = pts[i * d + l] - c[j * d + l];
				s += t * t;
			}
			all += s;
			if (j == 0 || s < best) best = s;
		}
		cost += best;
	}
	return cost + 0.01 * all;
}

double expdist(const double *c) {
	double cost = 0;
	for (int i = 0; i < n; i++) {
		double best = 0;
		for (int j = 0; j < k; j++) {
			double s = c[j * d];
			for (int l = 0; l < d; l++) s += exp(-pts[i * d + l] * c[j * d + l]);
			if (j == 0 || s < best) best = s;
		}
		cost += sin(best);
	}
	return cost;
}

double scratch(const double *c) {
	double buf[D], cost = 0;
	for (int i = 0; i < n; i++) {
		for (int l = 0; l < d; l++) buf[l] = sin(pts[i * d + l] * c[l]);
		double best = 0;
		for (int j = 0; j < k; j++) {
			double s = 0;
			for (int l = 0; l < d; l++) {
				double t = buf[l] - c[j * d + l];
				s += t * t * t;
			}
			if (j == 0 || s < best) best = s;
		}
		cost += best;
	}
	return cost;
}

double early(const double *c) {
	double cost = 0;
	for (int i = 0; i < n; i++) {
		double best = 0;
		for (int j = 0; j < k; j++) {
			double s = 0;
			int l = 0;
			do {
				double t = pts[i * d + l] - c[j * d + l];
				s += t * t;
				l++;
			} while (l < d && s < 1.5);
			if (j == 0 || s < best) best = s;
		}
		cost += best;
	}
	return cost;
}

/* via_call differentiates nearest and farthest as callees: their
 * augmented forward and reverse pairs (split mode). */
double via_call(const double *c) { return nearest(c) * c[1] + farthest(c); }

static void nearest_grad(const double *c, double *dc) {
	for (int i = 0; i < P; i++) dc[i] = 0;
	__enzyme_autodiff((void *)nearest, enzyme_dup, c, dc);
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

int main(void) {
	double c0[P], v[P];
	unsigned s = 12345;
	for (int i = 0; i < N * D; i++) {
		s = s * 1103515245u + 12345u;
		pts[i] = (double)(s >> 8) / (1u << 24) * 2 - 1;
	}
	for (int i = 0; i < P; i++) {
		s = s * 1103515245u + 12345u;
		c0[i] = (double)(s >> 8) / (1u << 24) * 2 - 1;
		v[i] = 0.5 + 0.25 * (i % 3);
	}
	GRADIENT_CHECK("nearest", nearest, c0);
	GRADIENT_CHECK("farthest", farthest, c0);
	GRADIENT_CHECK("relu", relu, c0);
	GRADIENT_CHECK("shared", shared, c0);
	GRADIENT_CHECK("expdist", expdist, c0);
	GRADIENT_CHECK("scratch", scratch, c0);
	GRADIENT_CHECK("early", early, c0);
	GRADIENT_CHECK("via_call", via_call, c0);
	/* H v by forward over reverse, against central differences of the
	 * gradient along v. */
	double c[P], dc[P], hv[P], gp[P], gm[P], h = 1e-5;
	for (int i = 0; i < P; i++) c[i] = c0[i], hv[i] = 0;
	__enzyme_fwddiff((void *)nearest_grad, enzyme_dup, c, v, enzyme_dup, dc, hv);
	for (int i = 0; i < P; i++) c[i] = c0[i] + h * v[i];
	nearest_grad(c, gp);
	for (int i = 0; i < P; i++) c[i] = c0[i] - h * v[i];
	nearest_grad(c, gm);
	for (int i = 0; i < P; i++) check("nearest Hv", hv[i], (gp[i] - gm[i]) / (2 * h), 1e-6);
	return failures != 0;
}
