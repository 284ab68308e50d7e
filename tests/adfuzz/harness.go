package adfuzz

import (
	"fmt"
	"strings"
)

// assemble writes the whole program: prelude, types, helpers, F and the
// main that checks every mode's derivatives against central differences.
func (g *gen) assemble(seed uint64) string {
	w := &block{}
	lang := "C"
	if g.cxx {
		lang = "C++"
	}
	w.p("/* gozyme AD fuzz program, seed %d (%s): knobs %s; modes %s.", seed, lang, g.knobs, g.modes)
	w.p("   Regenerate with: go run ./tests/adfuzz/fuzzad -print %d */", seed)
	if g.cxx {
		for _, h := range []string{"math.h", "cmath", "cstdio", "cstdlib", "cstring", "vector"} {
			w.p("#include <%s>", h)
		}
		if g.knobs.Has(KnobPtrSwap) {
			w.p("#include <utility>")
		}
	} else {
		for _, h := range []string{"math.h", "stdio.h", "stdlib.h", "string.h"} {
			w.p("#include <%s>", h)
		}
	}
	w.p("")
	w.p("#define NX %d", g.nx)
	nd := g.nx
	if g.hasS {
		nd++
	}
	w.p("#define ND %d /* directions: x[0..NX-1], then s */", nd)
	w.p("")
	if t := g.types.String(); t != "" {
		w.b.WriteString(t)
		w.p("")
	}
	if h := g.helpers.String(); h != "" {
		w.b.WriteString(h)
	}
	g.writeF(w)
	w.p("")
	g.writeHarness(w)
	return w.String()
}

// params is F's parameter list.
func (g *gen) params() string {
	ps := []string{g.ft + " *x"}
	if g.hasS {
		ps = append(ps, g.ft+" s")
	}
	if g.hasCP {
		ps = append(ps, "const struct cparams *cp")
	}
	if g.hasN {
		ps = append(ps, "int n")
	}
	return strings.Join(ps, ", ")
}

func (g *gen) writeF(w *block) {
	attr := g.maybeNoinline()
	if g.cxx {
		w.p("template <typename T>")
		w.p("%sT fuzz_f(%s) {", attr, g.params())
	} else {
		w.p("%sdouble fuzz_f(%s) {", attr, g.params())
	}
	w.b.WriteString(g.body.String())
	w.p("}")
}

// fnRef is F as the first argument of an Enzyme call.
func (g *gen) fnRef() string {
	if g.cxx {
		return "(void *)fuzz_f<double>"
	}
	return "(void *)fuzz_f"
}

// marked is "marker, arg", or the bare argument where the marker is the
// default and a coin says to leave it out.
func (g *gen) marked(marker, arg string, optional bool) string {
	if optional && g.r.IntN(2) == 0 {
		return arg
	}
	return marker + ", " + arg
}

// callArgs are the arguments after F of a call in mode m; lanes names the
// shadows of x and tangents of s for batch mode.
func (g *gen) callArgs(m Mode) string {
	var as []string
	switch m {
	case ModeReverse, ModeSplit:
		as = append(as, g.marked("enzyme_dup", "x, dx", true))
		if g.hasS {
			as = append(as, g.marked("enzyme_out", "S0", true))
		}
	case ModeForward:
		as = append(as, g.marked("enzyme_dup", "x, dx", true))
		if g.hasS {
			as = append(as, "S0, ds")
		}
	case ModeBatch:
		as = append(as, fmt.Sprintf("enzyme_width, %d", g.width))
		xs, ss := []string{"x"}, []string{"S0"}
		for k := 0; k < g.width; k++ {
			xs = append(xs, fmt.Sprintf("dx[%d]", k))
			ss = append(ss, fmt.Sprintf("ds[%d]", k))
		}
		as = append(as, g.marked("enzyme_dup", strings.Join(xs, ", "), true))
		if g.hasS {
			as = append(as, strings.Join(ss, ", "))
		}
	}
	if g.hasCP {
		as = append(as, "enzyme_const, &CP")
	}
	if g.hasN {
		as = append(as, g.marked("enzyme_const", "NARG", true))
	}
	return strings.Join(as, ", ")
}

func (g *gen) writeHarness(w *block) {
	w.p("static const double X0[NX] = {%s};", lits(g.xv))
	w.p("static const double S0 = %s;", lit(g.sv))
	w.p("static const double SEED[NX] = {%s}; /* reverse mode: adjoints of x's final values */", lits(g.seeds))
	if g.hasCP {
		w.p("static const double W0[NX] = {%s};", lits(g.w))
		w.p("static const double C0[%d] = {%s};", len(g.c), lits(g.c))
		w.p("static const struct cparams CP = {W0, C0, %d, %d};", g.cpN, g.cpM)
	}
	w.p("#define NARG %d", g.nArg)
	w.p("")
	w.p("%s", harnessCommon)
	call := []string{"x"}
	if g.hasS {
		call = append(call, "s")
	}
	if g.hasCP {
		call = append(call, "&CP")
	}
	if g.hasN {
		call = append(call, "NARG")
	}
	w.p("/* F at a point: its result, and x's values after it (xout). */")
	w.open("static double eval_f(const double *x0, double s, double *xout)")
	w.p("double x[NX];")
	w.p("memcpy(x, x0, sizeof x);")
	w.p("(void)s;")
	w.p("double y = fuzz_f(%s);", strings.Join(call, ", "))
	w.p("if (xout)")
	w.p("\tmemcpy(xout, x, sizeof x);")
	w.p("return y;")
	w.close()
	w.p("%s", harnessFD)
	w.cpp("#ifndef %s", PrimalOnlyMacro)
	g.writeDecls(w)
	for _, m := range g.modes.Modes() {
		g.writeRun(w, m)
	}
	w.cpp("#endif")
	w.p("")
	w.open("int main(void)")
	w.p("F0 = eval_f(X0, S0, XF);")
	w.p("printf(\"primal f %%.17g\\n\", F0);")
	w.p("for (int i = 0; i < NX; i++)")
	w.p("\tprintf(\"primal x[%%d] %%.17g\\n\", i, XF[i]);")
	w.p("jacobian();")
	w.cpp("#ifdef %s", PrimalOnlyMacro)
	w.p("if (fd_unstable())")
	w.p("\treturn %d;", ExitFDUnstable)
	w.cpp("#else")
	for _, m := range g.modes.Modes() {
		w.p("run_%s();", m)
	}
	w.cpp("#endif")
	w.p("if (wrong_primals)")
	w.p("\treturn %d;", ExitPrimalChanged)
	w.p("if (wrong_derivs)")
	w.p("\treturn %d;", ExitWrongDeriv)
	w.p("printf(\"ok\\n\");")
	w.p("return 0;")
	w.close()
}

func lits(vs []float64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = lit(v)
	}
	return strings.Join(s, ", ")
}
