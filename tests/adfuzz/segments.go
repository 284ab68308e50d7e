package adfuzz

import (
	"fmt"
	"math"
	"strings"
)

// Each seg* method writes one segment of F's body: a block that computes a
// result tK from x (and s, cp, n, earlier results) with one feature, adds it
// to r, and may define helpers.

// helper writes a helper function's definition: its signature line and body
// lines (indented one level per leading tab).
func (g *gen) helper(sig string, lines ...string) {
	g.helpers.p("%s {", sig)
	for _, l := range lines {
		g.helpers.p("\t%s", l)
	}
	g.helpers.p("}")
	g.helpers.p("")
}

// useAll folds into e the leaves it does not mention yet.
func (g *gen) useAll(e ex, leaves []ex) ex {
	for _, l := range leaves {
		if !containsWord(e.s, l.s) && !strings.Contains(e.s, l.s) {
			e = squash(g.binary(e, g.unary(l)))
		}
	}
	return e
}

// sumBound bounds a sum of n terms of e.
func sumBound(n int, e iv) iv { return sym(float64(n) * e.maxAbs()) }

func (g *gen) needPt() {
	g.declare("pt", g.types, "struct pt {\n\tdouble a;\n\tdouble b;\n\tint k;\n};")
}

// ---- libm: straight-line arithmetic, scalar helpers ----

func (g *gen) segLibm() {
	t := g.out()
	if g.r.IntN(2) == 0 {
		e := g.expr(2+g.r.IntN(2), g.leaves())
		g.body.p("%s = %s;", t, e.s)
		g.finish(t, e.iv)
		return
	}
	a, b := g.expr(1, g.leaves()), g.expr(1, g.leaves())
	params := []ex{{"a", a.iv}, {"b", b.iv}}
	h := g.useAll(g.exprOf(3, params), params)
	name := fmt.Sprintf("h%d", g.id())
	if g.cxx && g.r.IntN(2) == 0 {
		g.helper(fmt.Sprintf("template <typename T>\n%sT %s(T a, T b)", g.maybeNoinline(), name), "return "+h.s+";")
	} else {
		g.helper(fmt.Sprintf("static %sdouble %s(double a, double b)", g.maybeNoinline(), name), "return "+h.s+";")
	}
	g.body.p("%s = %s(%s, %s);", t, name, a.s, b.s)
	g.finish(t, h.iv)
}

// ---- struct: arrays of structs, structs by value, structs holding arrays ----

func (g *gen) segStruct() {
	g.needPt()
	t := g.out()
	id := g.id()
	xi := ex{"x[i]", g.xHull()}
	inLoop := append([]ex{xi}, g.leaves()...)
	switch g.r.IntN(3) {
	case 0:
		ea, eb := g.exprOf(2, inLoop), g.expr(2, inLoop)
		fields := []ex{{"p[i].a", ea.iv}, {"p[i].b", eb.iv}}
		h := g.useAll(g.exprOf(2, fields), fields)
		g.helper(fmt.Sprintf("static %sdouble pts_sum%d(const struct pt *p, int n)", g.maybeNoinline(), id),
			"double acc = 0.0;",
			"for (int i = 0; i < n; i++) {",
			"\tdouble v = "+h.s+";",
			"\tif (p[i].k == 1)",
			"\t\tv = 0.5 * v;",
			"\tacc += v;",
			"}",
			"return acc;")
		g.body.open("")
		g.body.p("struct pt ps[NX];")
		g.body.open("for (int i = 0; i < NX; i++)")
		g.body.p("ps[i].a = %s;", ea.s)
		g.body.p("ps[i].b = %s;", eb.s)
		g.body.p("ps[i].k = i %% 3;")
		g.body.close()
		g.body.p("%s = pts_sum%d(ps, NX);", t, id)
		g.body.close()
		g.finish(t, sumBound(g.nx, h.iv))
	case 1:
		args := []ex{g.expr(1, g.leaves()), g.expr(1, g.leaves()), g.expr(1, g.leaves()), g.expr(1, g.leaves())}
		pa, pb := hull(args[0].iv, args[2].iv), hull(args[1].iv, args[3].iv)
		mk := []ex{{"a", pa}, {"b", pb}}
		fa, fb := g.useAll(g.exprOf(2, mk), mk), g.exprOf(1, []ex{mk[1], mk[0]})
		g.helper(fmt.Sprintf("static %sstruct pt mk_pt%d(double a, double b)", g.maybeNoinline(), id),
			"struct pt q;", "q.a = "+fa.s+";", "q.b = "+fb.s+";", "q.k = 1;", "return q;")
		uv := []ex{{"u.a", fa.iv}, {"v.b", fb.iv}, {"u.b", fb.iv}, {"v.a", fa.iv}}
		ca, cb := g.exprOf(2, uv), g.exprOf(2, []ex{uv[2], uv[3]})
		g.helper(fmt.Sprintf("static %sstruct pt comb%d(struct pt u, struct pt v)", g.maybeNoinline(), id),
			"struct pt q;", "q.a = "+ca.s+";", "q.b = "+cb.s+";", "q.k = u.k + v.k;", "return q;")
		g.body.open("")
		g.body.p("struct pt q1 = mk_pt%d(%s, %s);", id, args[0].s, args[1].s)
		g.body.p("struct pt q2 = mk_pt%d(%s, %s);", id, args[2].s, args[3].s)
		g.body.p("struct pt q3 = comb%d(q1, q2);", id)
		g.body.p("%s = q3.a * q3.b + q1.a * (double)q3.k;", t)
		g.body.close()
		g.finish(t, ca.iv.mul(cb.iv).add(fa.iv.scale(2)))
	default:
		g.declare("blk", g.types, "struct blk {\n\tdouble v[8];\n\tint n;\n\tdouble w;\n};")
		wv := g.expr(1, g.leaves())
		ev := g.exprOf(2, inLoop)
		fields := []ex{{"b->v[i]", ev.iv}, {"b->w", wv.iv}}
		h := g.useAll(g.exprOf(2, fields), fields)
		g.helper(fmt.Sprintf("static %sdouble blk_eval%d(const struct blk *b)", g.maybeNoinline(), id),
			"double acc = b->w;",
			"for (int i = 0; i < b->n; i++)",
			"\tacc += "+h.s+";",
			"return acc;")
		g.body.open("")
		g.body.p("struct blk bk;")
		g.body.p("bk.n = NX;")
		g.body.p("bk.w = %s;", wv.s)
		g.body.p("for (int i = 0; i < NX; i++)")
		g.body.p("\tbk.v[i] = %s;", ev.s)
		g.body.p("%s = blk_eval%d(&bk);", t, id)
		g.body.close()
		g.finish(t, wv.iv.add(sumBound(g.nx, h.iv)))
	}
}

// ---- conststruct: pointers to constant arrays held in constant structs ----

func (g *gen) wdot(id int) iv {
	ai := []ex{{"a[i]", g.xHull()}}
	e := g.exprOf(2, ai)
	g.helper(fmt.Sprintf("static %sdouble wdot%d(const double *w, const double *a, int n)", noinline+" ", id),
		"double acc = 0.0;",
		"for (int i = 0; i < n; i++)",
		"\tacc += w[i] * "+e.s+";",
		"return acc;")
	return sumBound(g.nx, e.iv)
}

func (g *gen) segConstStruct() {
	t := g.out()
	id := g.id()
	switch g.r.IntN(4) {
	case 0:
		b := g.wdot(id)
		g.body.p("%s = wdot%d(cp->w, x, cp->n);", t, id)
		g.finish(t, b)
	case 1:
		z := g.expr(1, g.leaves())
		ps := []ex{{"a[j % NX]", g.xHull()}, {"z", z.iv}}
		e := g.useAll(g.exprOf(2, ps), ps)
		g.helper(fmt.Sprintf("static %sdouble cpmix%d(const struct cparams *p, const double *a, double z)", noinline+" ", id),
			"double acc = 0.0;",
			"for (int j = 0; j < p->m; j++)",
			"\tacc += p->c[j] * "+e.s+";",
			"for (int i = 0; i < p->n; i++)",
			"\tacc += p->w[i] * a[i] * z;",
			"return acc;")
		b := sumBound(len(g.c), e.iv).add(sumBound(g.nx, g.xHull().mul(z.iv)))
		g.body.p("%s = cpmix%d(cp, x, %s);", t, id, z.s)
		g.finish(t, b)
	case 2:
		g.declare("wpair", g.types, "struct wpair {\n\tconst double *w;\n\tconst double *a;\n\tint n;\n};")
		e := g.exprOf(2, []ex{{"q->a[i]", g.xHull()}})
		g.helper(fmt.Sprintf("static %sdouble pair_sum%d(const struct wpair *q)", noinline+" ", id),
			"double acc = 0.0;",
			"for (int i = 0; i < q->n; i++)",
			"\tacc += q->w[i] * "+e.s+";",
			"return acc;")
		g.body.open("")
		g.body.p("struct wpair q;")
		g.body.p("q.w = cp->w;")
		g.body.p("q.a = x;")
		g.body.p("q.n = cp->n;")
		g.body.p("%s = pair_sum%d(&q);", t, id)
		g.body.close()
		g.finish(t, sumBound(g.nx, e.iv))
	default:
		b := g.wdot(id)
		g.body.open("")
		g.body.p("struct cparams lc = *cp;")
		g.body.p("lc.n = %d;", 1+g.r.IntN(g.nx))
		g.body.p("%s = wdot%d(lc.w, x, lc.n) + lc.c[0] * wdot%d(cp->w, x, cp->n);", t, id, id)
		g.body.close()
		g.finish(t, b.scale(2))
	}
}

// ---- datacount: trip counts computed by earlier loops ----

func (g *gen) segDataCount() {
	t := g.out()
	xi := ex{"x[i]", g.xHull()}
	inLoop := append([]ex{xi}, g.leaves()...)
	choice := g.r.IntN(5)
	if choice == 4 && !g.hasCP {
		choice = 0
	}
	g.body.open("")
	switch choice {
	case 0:
		th, _ := g.threshold()
		op := [2]string{">", "<"}[g.r.IntN(2)]
		e := g.exprOf(2, inLoop)
		g.body.p("int c = 0;")
		g.body.p("for (int i = 0; i < NX; i++)")
		g.body.p("\tif (x[i] %s %s)", op, lit(th))
		g.body.p("\t\tc++;")
		g.body.p("for (int i = 0; i < c; i++)")
		g.body.p("\t%s += %s;", t, e.s)
		g.finish(t, sumBound(g.nx, e.iv))
	case 1:
		e := g.exprOf(2, inLoop)
		g.body.p("double m = x[0];")
		g.body.p("int c = 0;")
		g.body.open("for (int i = 1; i < NX; i++)")
		g.body.open("if (x[i] > m)")
		g.body.p("m = x[i];")
		g.body.p("c = 0;")
		g.body.close()
		g.body.p("else")
		g.body.p("\tc++;")
		g.body.close()
		g.body.p("for (int i = 0; i <= c; i++)")
		g.body.p("\t%s += %s;", t, e.s)
		g.body.p("%s += m * m;", t)
		g.finish(t, sumBound(g.nx, e.iv).add(g.xHull().square()))
	case 2:
		th, _ := g.threshold()
		op := [2]string{">", "<"}[g.r.IntN(2)]
		e1, e2 := g.exprOf(2, inLoop), g.exprOf(2, inLoop)
		g.body.p("int k = 0;")
		g.body.p("while (k < NX && x[k] %s %s)", op, lit(th))
		g.body.p("\tk++;")
		g.body.p("for (int i = k; i < NX; i++)")
		g.body.p("\t%s += %s;", t, e1.s)
		g.body.p("for (int i = 0; i < k; i++)")
		g.body.p("\t%s += %s;", t, e2.s)
		g.finish(t, sumBound(g.nx, hull(e1.iv, e2.iv)))
	case 3:
		rounds := 2 + g.r.IntN(2)
		var ths []float64
		for i := 0; i < rounds; i++ {
			th, _ := g.threshold()
			ths = append(ths, th)
		}
		inner := g.exprOf(2, inLoop)
		g.body.p("const double th[%d] = {%s};", rounds, lits(ths))
		g.body.open("for (int rd = 0; rd < %d; rd++)", rounds)
		g.body.p("int c = 0;")
		g.body.p("for (int i = 0; i < NX; i++)")
		g.body.p("\tif (x[i] > th[rd])")
		g.body.p("\t\tc++;")
		g.body.p("for (int i = 0; i < c; i++)")
		g.body.p("\t%s = 0.7 * %s + 0.3 * %s;", t, t, inner.s)
		g.body.close()
		g.finish(t, damped(point(0), 0.7, 0.3*inner.iv.maxAbs()))
	default:
		e := g.exprOf(2, inLoop)
		g.body.p("int c = 0;")
		g.body.p("for (int j = 0; j < cp->m; j++)")
		g.body.p("\tif (cp->c[j] > 0.0)")
		g.body.p("\t\tc++;")
		g.body.p("for (int i = 0; i < c && i < NX; i++)")
		g.body.p("\t%s += %s;", t, e.s)
		g.finish(t, sumBound(g.nx, e.iv))
	}
	g.body.close()
}

// ---- nested loops ----

func (g *gen) segNested() {
	t := g.out()
	bounds := []string{"i", "i + 1", "NX"}
	if g.hasN {
		bounds = append(bounds, "n")
	}
	if g.hasCP {
		bounds = append(bounds, "cp->n")
	}
	bound := bounds[g.r.IntN(len(bounds))]
	counted := g.r.IntN(3) == 0
	if counted {
		bound = "c"
	}
	xs := []ex{{"x[i]", g.xHull()}, {"x[j]", g.xHull()}}
	ls := append(append([]ex{}, xs...), g.leaves()...)
	e := g.useAll(g.exprOf(2, ls), xs)
	k := round3(1 / float64(g.nx))
	g.body.open("")
	if counted {
		th, _ := g.threshold()
		g.body.p("int c = 0;")
		g.body.p("for (int i = 0; i < NX; i++)")
		g.body.p("\tc += x[i] > %s;", lit(th))
	}
	rowwise := g.r.IntN(2) == 0
	reps := 1
	if g.r.IntN(4) == 0 {
		reps = 2
		g.body.open("for (int l = 0; l < 2; l++)")
	}
	g.body.open("for (int i = 0; i < NX; i++)")
	if rowwise {
		g.body.p("double acc = 0.0;")
	}
	g.body.open("for (int j = 0; j < %s; j++)", bound)
	if rowwise {
		g.body.p("acc += %s * %s;", lit(k), e.s)
	} else {
		g.body.p("%s += %s * %s;", t, lit(k), e.s)
	}
	g.body.close()
	if rowwise {
		g.body.p("%s += sin(acc);", t)
	}
	g.body.close()
	if reps == 2 {
		g.body.close()
	}
	g.body.close()
	b := sumBound(g.nx*reps, e.iv)
	if rowwise {
		b = sym(float64(g.nx * reps))
	}
	g.finish(t, b)
}

// ---- inplace: a[i] = f(a[i]) repeatedly ----

// segInPlace updates x itself (onX: the last segment, since x's values are
// then no longer those the thresholds were chosen around) or a work array.
func (g *gen) segInPlace(onX bool) {
	t := g.out()
	id := g.id()
	k := round3(g.uniform(0.3, 0.8))
	if g.r.IntN(3) == 0 {
		k = -k
	}
	b := math.Max(g.xHull().maxAbs(), 1.5)
	c := round3((1 - math.Abs(k)) * b * g.uniform(0.4, 0.95))
	rounds := fmt.Sprint(1 + g.r.IntN(3))
	switch g.r.IntN(4) {
	case 0:
		if g.hasN {
			rounds = "n"
		}
	case 1:
		if g.hasCP {
			rounds = "cp->n"
		}
	}
	g.body.open("")
	a := "x"
	heap := false
	if !onX {
		a = fmt.Sprintf("w%d", id)
		switch g.r.IntN(3) {
		case 0:
			g.body.p("%s %s[NX];", g.ft, a)
			g.body.p("for (int i = 0; i < NX; i++)")
			g.body.p("\t%s[i] = x[i];", a)
		case 1:
			g.body.p("%s %s[NX];", g.ft, a)
			g.body.p("memcpy(%s, x, sizeof %s);", a, a)
		default:
			heap = true
			g.body.p("%s *%s = (%s *)malloc(NX * sizeof(%s));", g.ft, a, g.ft, g.ft)
			g.body.p("for (int i = 0; i < NX; i++)")
			g.body.p("\t%s[i] = x[i];", a)
		}
	}
	elem := ex{a + "[i]", sym(b)}
	ls := []ex{elem}
	if g.r.IntN(2) == 0 {
		ls = append(ls, ex{a + "[(i + 1) % NX]", sym(b)})
	}
	if g.hasS {
		ls = append(ls, g.sLeaf())
	}
	if !onX {
		ls = append(ls, g.leaves()...)
	} else {
		for _, o := range g.outs {
			ls = append(ls, o)
			break
		}
	}
	inner := g.exprOf(2, ls)
	wrap := []string{"sin", "tanh", "cos", "erf", "atan"}[g.r.IntN(5)]
	bound := 1.0
	if wrap == "atan" {
		bound = math.Pi / 2
		c = round3(c / bound)
	}
	g.body.open("for (int it = 0; it < %s; it++)", rounds)
	if g.r.IntN(3) == 0 {
		g.body.p("for (int i = NX - 1; i >= 0; i--)")
	} else {
		g.body.p("for (int i = 0; i < NX; i++)")
	}
	g.body.p("\t%s[i] = %s * %s[i] + %s * %s(%s);", a, lit(k), a, lit(c), wrap, inner.s)
	g.body.close()
	fin := g.exprOf(1, []ex{elem})
	g.body.p("for (int i = 0; i < NX; i++)")
	g.body.p("\t%s += %s;", t, fin.s)
	if heap {
		g.body.p("free(%s);", a)
	}
	g.body.close()
	g.finish(t, sumBound(g.nx, fin.iv))
}
