package adfuzz

import "fmt"

// harnessCommon is the harness's state: the primal at the point and the
// Jacobian of the outputs (F and x's final values) by central differences.
const harnessCommon = `static int wrong_derivs, wrong_primals;
static double F0, XF[NX];
static double J[NX + 1][ND]; /* J[o][j]: output o (0: F, 1 + i: x[i] after F) along direction j */
`

// harnessFD computes the Jacobian and compares derivatives with it. The
// fourth-order central difference with h = 1e-4 is accurate to about 1e-10
// on the generator's smooth, bounded functions (every branch on the data is
// 0.05 away from flipping), so the tolerance of 1e-6 relative only fails on
// a wrong derivative.
const harnessFD = `/* Outputs at the point moved by d along direction j (x[j], or s for j == NX). */
static void outputs_at(int j, double d, double *out) {
	double x[NX];
	memcpy(x, X0, sizeof x);
	double s = S0;
	if (j < NX)
		x[j] += d;
	else
		s += d;
	out[0] = eval_f(x, s, out + 1);
}

static void jacobian_h(double h, double Jh[NX + 1][ND]) {
	for (int j = 0; j < ND; j++) {
		double p1[NX + 1], m1[NX + 1], p2[NX + 1], m2[NX + 1];
		outputs_at(j, h, p1);
		outputs_at(j, -h, m1);
		outputs_at(j, 2 * h, p2);
		outputs_at(j, -2 * h, m2);
		for (int o = 0; o <= NX; o++)
			Jh[o][j] = (8.0 * (p1[o] - m1[o]) - (p2[o] - m2[o])) / (12.0 * h);
	}
}

static void jacobian(void) { jacobian_h(1e-4, J); }

#ifdef FUZZ_PRIMAL_ONLY
/* The generator's own check: central differences with a step 4 times
   smaller agree, so F is smooth around the point and J is accurate. */
static int fd_unstable(void) {
	static double J2[NX + 1][ND];
	int bad = 0;
	jacobian_h(2.5e-5, J2);
	for (int o = 0; o <= NX; o++)
		for (int j = 0; j < ND; j++)
			if (!(fabs(J[o][j] - J2[o][j]) <= 1e-7 * (1.0 + fabs(J[o][j])))) {
				printf("FD UNSTABLE: output %d direction %d: %.17g with h = 1e-4, %.17g with h = 2.5e-5\n", o, j, J[o][j], J2[o][j]);
				bad++;
			}
	return bad;
}
#endif

/* d(F + SEED . x after F)/d(direction j): what reverse mode returns. */
static double reverse_expected(int j) {
	double e = J[0][j];
	for (int i = 0; i < NX; i++)
		e += SEED[i] * J[1 + i][j];
	return e;
}

static void name_dir(char *buf, size_t n, int j) {
	if (j < NX)
		snprintf(buf, n, "x[%d]", j);
	else if (j < ND)
		snprintf(buf, n, "s");
	else
		snprintf(buf, n, "nothing (padding lane)");
}

static void name_out(char *buf, size_t n, int o) {
	if (o < 0)
		snprintf(buf, n, "F + SEED.x");
	else if (o == 0)
		snprintf(buf, n, "F");
	else
		snprintf(buf, n, "x[%d] after F", o - 1);
}

/* check compares a derivative of output o along direction j with fd. */
static void check(const char *mode, int o, int j, double ad, double fd) {
	double tol = 1e-6 * (1.0 + fabs(ad) + fabs(fd));
	if (!(fabs(ad - fd) <= tol)) {
		char on[32], dn[32];
		name_out(on, sizeof on, o);
		name_dir(dn, sizeof dn, j);
		printf("MISMATCH %s: d(%s)/d(%s): ad=%.17g fd=%.17g\n", mode, on, dn, ad, fd);
		wrong_derivs++;
	}
}

/* check_primal compares x after an AD call with x after F. */
static void check_primal(const char *mode, const double *x) {
	for (int i = 0; i < NX; i++)
		if (!(fabs(x[i] - XF[i]) <= 1e-12 * (1.0 + fabs(XF[i])))) {
			printf("PRIMAL MISMATCH %s: x[%d] after the AD call is %.17g, F leaves %.17g\n", mode, i, x[i], XF[i]);
			wrong_primals++;
		}
}
`

// writeDecls declares the Enzyme entry points and markers the modes use.
func (g *gen) writeDecls(w *block) {
	var d []string
	d = append(d, "extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_width;")
	ret := "double"
	suffix := ""
	if !g.hasS {
		ret, suffix = "void", "_void"
	}
	if g.modes.Has(ModeReverse) {
		d = append(d, fmt.Sprintf("%s __enzyme_autodiff%s(void *, ...);", ret, suffix))
	}
	if g.modes.Has(ModeForward) {
		d = append(d, "double __enzyme_fwddiff(void *, ...);")
	}
	if g.modes.Has(ModeSplit) {
		d = append(d, "void *__enzyme_augmentfwd(void *, ...);")
		d = append(d, fmt.Sprintf("%s __enzyme_reverse%s(void *, ...);", ret, suffix))
	}
	if g.modes.Has(ModeBatch) {
		d = append(d, fmt.Sprintf("typedef struct { double d[%d]; } fuzz_lanes;", g.width))
		d = append(d, "fuzz_lanes __enzyme_fwddiff_lanes(void *, ...);")
	}
	if g.cxx {
		w.p("extern \"C\" {")
		for _, l := range d {
			w.p("%s", l)
		}
		w.p("}")
	} else {
		for _, l := range d {
			w.p("%s", l)
		}
	}
	w.p("")
}

// writeRun writes run_<mode>(), which calls the AD engine in mode m and
// checks every derivative and the primal memory it leaves.
func (g *gen) writeRun(w *block, m Mode) {
	name := m.String()
	w.open("static void run_%s(void)", name)
	switch m {
	case ModeReverse, ModeSplit:
		w.p("double x[NX], dx[NX];")
		w.p("memcpy(x, X0, sizeof x);")
		w.p("memcpy(dx, SEED, sizeof dx);")
		args := g.callArgs(m)
		res := ""
		if g.hasS {
			res = "double ds = "
		}
		suffix := ""
		if !g.hasS {
			suffix = "_void"
		}
		if m == ModeReverse {
			w.p("%s__enzyme_autodiff%s(%s, %s);", res, suffix, g.fnRef(), args)
		} else {
			w.p("void *tape = __enzyme_augmentfwd(%s, %s);", g.fnRef(), args)
			w.p("check_primal(\"split (augmented forward)\", x);")
			w.p("%s__enzyme_reverse%s(%s, %s, 1.0, tape);", res, suffix, g.fnRef(), args)
		}
		w.p("for (int j = 0; j < NX; j++)")
		w.p("\tcheck(\"%s\", -1, j, dx[j], reverse_expected(j));", name)
		if g.hasS {
			w.p("check(\"%s\", -1, NX, ds, reverse_expected(NX));", name)
		}
		w.p("check_primal(\"%s\", x);", name)
	case ModeForward:
		w.open("for (int j = 0; j < ND; j++)")
		w.p("double x[NX], dx[NX];")
		w.p("memcpy(x, X0, sizeof x);")
		w.p("for (int i = 0; i < NX; i++)")
		w.p("\tdx[i] = i == j ? 1.0 : 0.0;")
		if g.hasS {
			w.p("double ds = j == NX ? 1.0 : 0.0;")
		}
		w.p("double t = __enzyme_fwddiff(%s, %s);", g.fnRef(), g.callArgs(m))
		w.p("check(\"forward\", 0, j, t, J[0][j]);")
		w.p("for (int i = 0; i < NX; i++)")
		w.p("\tcheck(\"forward\", 1 + i, j, dx[i], J[1 + i][j]);")
		w.p("check_primal(\"forward\", x);")
		w.close()
	case ModeBatch:
		wd := g.width
		w.open("for (int base = 0; base < ND; base += %d)", wd)
		w.p("double x[NX], dx[%d][NX], ds[%d];", wd, wd)
		w.p("memcpy(x, X0, sizeof x);")
		w.open("for (int k = 0; k < %d; k++)", wd)
		w.p("for (int i = 0; i < NX; i++)")
		w.p("\tdx[k][i] = base + k == i ? 1.0 : 0.0;")
		w.p("ds[k] = base + k == NX ? 1.0 : 0.0;")
		w.close()
		if !g.hasS {
			w.p("(void)ds;")
		}
		w.p("fuzz_lanes t = __enzyme_fwddiff_lanes(%s, %s);", g.fnRef(), g.callArgs(m))
		w.open("for (int k = 0; k < %d; k++)", wd)
		w.p("int j = base + k;")
		w.p("check(\"batch\", 0, j, t.d[k], j < ND ? J[0][j] : 0.0);")
		w.p("for (int i = 0; i < NX; i++)")
		w.p("\tcheck(\"batch\", 1 + i, j, dx[k][i], j < ND ? J[1 + i][j] : 0.0);")
		w.close()
		w.p("check_primal(\"batch\", x);")
		w.close()
	}
	w.close()
	w.p("")
}
