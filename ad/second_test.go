package ad

import "testing"

// secondPrelude: Hessian-vector products by forward-over-reverse, checked
// against central differences of the gradient.
const secondPrelude = memoryPrelude + `
extern int enzyme_width;
void __enzyme_fwddiff(void *, ...);
/* HVPCHECK(loss): H·v of loss at the caller's x[N] along v[N]. */
#define HVPCHECK(loss) do { \
		double dx[N] = {0}, hv[N] = {0}, gp[N] = {0}, gm[N] = {0}, xp[N], xm[N], h = 1e-5; \
		__enzyme_fwddiff((void *)grad_##loss, enzyme_dup, x, v, enzyme_dup, dx, hv, enzyme_const, N); \
		for (int i = 0; i < N; i++) { xp[i] = x[i] + h * v[i]; xm[i] = x[i] - h * v[i]; } \
		grad_##loss(xp, gp, N); \
		grad_##loss(xm, gm, N); \
		for (int i = 0; i < N; i++) { \
			char what[64]; snprintf(what, sizeof what, #loss " Hv[%d]", i); \
			check(what, hv[i], (gp[i] - gm[i]) / (2 * h), 1e-5); \
		} \
		double g[N] = {0}; \
		grad_##loss(x, g, N); \
		for (int i = 0; i < N; i++) check(#loss " gradient beside Hv", dx[i], g[i], 1e-12); \
	} while (0)
`

func TestHessianVectorProducts(t *testing.T) {
	t.Parallel()
	src := secondPrelude + testdataC(t, "hessian_vector_products.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

func TestSecondOrderOverForward(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "second_order_over_forward.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestInnerRootsFirst puts the outer root (in main) before the function
// holding the inner one in the module, so only lowering inner-first makes
// forward mode see the generated gradient instead of an Enzyme call.
func TestInnerRootsFirst(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "inner_roots_first.c")
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}
