package adfuzz

import "fmt"

// ---- intcopy: doubles moved as integers and bytes ----

func (g *gen) segIntCopy() {
	t := g.out()
	id := g.id()
	g.body.open("")
	switch g.r.IntN(5) {
	case 0:
		v := g.expr(2, g.leaves())
		g.helper(fmt.Sprintf("static %svoid to_bits%d(unsigned long long *u, const double *d)", noinline+" ", id),
			"memcpy(u, d, sizeof *u);")
		g.helper(fmt.Sprintf("static %svoid from_bits%d(double *d, const unsigned long long *u)", noinline+" ", id),
			"memcpy(d, u, sizeof *d);")
		e := g.exprOf(2, append([]ex{{"w", v.iv}}, g.leaves()...))
		g.body.p("double v = %s, w;", v.s)
		g.body.p("unsigned long long u;")
		g.body.p("to_bits%d(&u, &v);", id)
		g.body.p("from_bits%d(&w, &u);", id)
		g.body.p("%s = %s;", t, e.s)
		g.finish(t, e.iv)
	case 1:
		g.helper(fmt.Sprintf("static %svoid pack_bytes%d(char *buf, const double *a, int n)", noinline+" ", id),
			"for (int i = 0; i < n; i++)",
			"\tmemcpy(buf + 8 * i, &a[i], sizeof(double));")
		g.helper(fmt.Sprintf("static %svoid unpack_bytes%d(double *a, const char *buf, int n)", noinline+" ", id),
			"memcpy(a, buf, (size_t)n * sizeof(double));")
		e := g.exprOf(2, append([]ex{{"y[i]", g.xHull()}}, g.leaves()...))
		g.body.p("char buf[8 * NX];")
		g.body.p("double y[NX];")
		g.body.p("pack_bytes%d(buf, x, NX);", id)
		g.body.p("unpack_bytes%d(y, buf, NX);", id)
		g.body.p("for (int i = 0; i < NX; i++)")
		g.body.p("\t%s += %s;", t, e.s)
		g.finish(t, sumBound(g.nx, e.iv))
	case 2:
		v := g.expr(2, g.leaves())
		z := g.expr(1, g.leaves())
		ps := []ex{{"d", v.iv}, {"z", z.iv}}
		h := g.useAll(g.exprOf(2, ps), ps)
		g.helper(fmt.Sprintf("static %sdouble via_bits%d(unsigned long long b, double z)", noinline+" ", id),
			"double d;",
			"memcpy(&d, &b, sizeof d);",
			"return "+h.s+";")
		g.body.p("double v = %s;", v.s)
		g.body.p("unsigned long long u;")
		g.body.p("memcpy(&u, &v, sizeof u);")
		g.body.p("%s = via_bits%d(u, %s);", t, id, z.s)
		g.finish(t, h.iv)
	case 3:
		e := g.exprOf(2, append([]ex{{"y[i]", g.xHull()}}, g.leaves()...))
		g.body.p("unsigned long long u[NX];")
		g.body.p("double y[NX];")
		g.body.p("memcpy(u, x, sizeof u);")
		g.body.p("memcpy(y, u, sizeof y);")
		g.body.p("for (int i = 0; i < NX; i++)")
		g.body.p("\t%s += %s;", t, e.s)
		g.finish(t, sumBound(g.nx, e.iv))
	default:
		arg := g.expr(1, g.leaves())
		f := g.exprOf(2, []ex{{"v", arg.iv}})
		g.helper(fmt.Sprintf("static %svoid put_dbl%d(double *dst, double v)", noinline+" ", id),
			"*dst = "+f.s+";")
		e := g.exprOf(1, append([]ex{{"b", f.iv}}, g.leaves()...))
		g.body.p("double a, b;")
		g.body.p("put_dbl%d(&a, %s);", id, arg.s)
		g.body.p("memcpy(&b, &a, sizeof b);")
		g.body.p("%s = %s;", t, e.s)
		g.finish(t, e.iv)
	}
	g.body.close()
}

// ---- memcpy: copies and moves of arrays and structs ----

func (g *gen) segMemcpy() {
	t := g.out()
	g.body.open("")
	switch g.r.IntN(4) {
	case 0:
		last := g.expr(2, g.leaves())
		e := g.exprOf(2, append([]ex{{"w[i]", hull(g.xHull(), last.iv)}}, g.leaves()...))
		g.body.p("double w[NX + 1];")
		g.body.p("memcpy(w, x, NX * sizeof(double));")
		g.body.p("w[NX] = %s;", last.s)
		g.body.p("memmove(w + 1, w, NX * sizeof(double));")
		g.body.p("for (int i = 0; i < NX + 1; i++)")
		g.body.p("\t%s += %s;", t, e.s)
		g.finish(t, sumBound(g.nx+1, e.iv))
	case 1:
		g.needPt()
		a, b := g.expr(2, g.leaves()), g.expr(2, g.leaves())
		nb := g.exprOf(1, append([]ex{{"s2[1].b", b.iv}}, g.leaves()...))
		g.body.p("struct pt s2[2];")
		g.body.p("s2[0].a = %s;", a.s)
		g.body.p("s2[0].b = %s;", b.s)
		g.body.p("s2[0].k = 1;")
		g.body.p("memcpy(&s2[1], &s2[0], sizeof s2[0]);")
		g.body.p("s2[1].b = %s;", nb.s)
		g.body.p("%s = s2[0].a * s2[1].b + s2[1].a * (double)s2[1].k;", t)
		g.finish(t, a.iv.mul(nb.iv).add(a.iv))
	case 2:
		g.needPt()
		ea, eb := g.exprOf(2, []ex{{"x[i]", g.xHull()}}), g.exprOf(2, []ex{{"x[i + 1]", g.xHull()}})
		e := g.useAll(g.exprOf(2, []ex{{"q[i].a", ea.iv}, {"q[i].b", eb.iv}}), []ex{{"q[i].b", eb.iv}})
		g.body.p("struct pt q[NX];")
		g.body.open("for (int i = 0; i + 1 < NX; i++)")
		g.body.p("q[i].a = %s;", ea.s)
		g.body.p("q[i].b = %s;", eb.s)
		g.body.p("q[i].k = i;")
		g.body.close()
		g.body.p("memmove(&q[1], &q[0], (NX - 2) * sizeof(struct pt));")
		g.body.p("q[NX - 1] = q[0];")
		g.body.p("for (int i = 0; i < NX; i++)")
		g.body.p("\t%s += %s;", t, e.s)
		g.finish(t, sumBound(g.nx, e.iv))
	default:
		e := g.exprOf(2, append([]ex{{"h[i]", g.xHull()}}, g.leaves()...))
		g.body.p("double *h = (double *)malloc(NX * sizeof(double));")
		g.body.p("memcpy(h, x, NX * sizeof(double));")
		g.body.p("for (int i = 0; i < NX; i++)")
		g.body.p("\t%s += %s;", t, e.s)
		g.body.p("free(h);")
		g.finish(t, sumBound(g.nx, e.iv))
	}
	g.body.close()
}

// ---- localconst: constant-initialized locals changed by helpers ----

func (g *gen) segLocalConst() {
	t := g.out()
	id := g.id()
	g.body.open("")
	switch g.r.IntN(3) {
	case 0:
		n := 2 + g.r.IntN(4)
		var cs []float64
		for i := 0; i < n; i++ {
			cs = append(cs, g.nonzero())
		}
		f := g.expr(2, g.leaves())
		g.helper(fmt.Sprintf("static %svoid scale_by%d(double *p, int n, double f)", noinline+" ", id),
			"for (int i = 0; i < n; i++)",
			"\tp[i] = p[i] * f;")
		add := g.exprOf(1, []ex{{"a[i]", g.xHull()}})
		g.helper(fmt.Sprintf("static %svoid add_from%d(double *p, const double *a, int n)", noinline+" ", id),
			"for (int i = 0; i < n; i++)",
			"\tp[i] += "+add.s+";")
		elem := iv{-1, 1}.mul(f.iv).add(add.iv)
		e := g.exprOf(1, []ex{{"loc[i]", elem}})
		g.body.p("double loc[%d] = {%s};", n, lits(cs))
		g.body.p("scale_by%d(loc, %d, %s);", id, n, f.s)
		if g.r.IntN(2) == 0 {
			g.body.p("add_from%d(loc, x, %d);", id, min(n, g.nx))
		} else {
			elem = iv{-1, 1}.mul(f.iv)
			e = g.exprOf(1, []ex{{"loc[i]", elem}})
		}
		g.body.p("for (int i = 0; i < %d; i++)", n)
		g.body.p("\t%s += %s;", t, e.s)
		g.finish(t, sumBound(n, e.iv))
	case 1:
		g.needPt()
		v := g.expr(1, g.leaves())
		fb := g.exprOf(2, []ex{{"v", v.iv}})
		g.helper(fmt.Sprintf("static %svoid fill_pt%d(struct pt *q, double v)", noinline+" ", id),
			"q->a = q->a * v;",
			"q->b = q->b + "+fb.s+";")
		ca, cb := g.nonzero(), g.nonzero()
		g.body.p("struct pt q = {%s, %s, 2};", lit(ca), lit(cb))
		g.body.p("fill_pt%d(&q, %s);", id, v.s)
		g.body.p("%s = q.a * q.b;", t)
		g.finish(t, v.iv.scale(ca).mul(fb.iv.add(point(cb))))
	default:
		var cs []float64
		for i := 0; i < g.nx; i++ {
			cs = append(cs, g.nonzero())
		}
		th, _ := g.threshold()
		f := g.expr(1, g.leaves())
		g.helper(fmt.Sprintf("static %svoid scale_by%d(double *p, int n, double f)", noinline+" ", id),
			"for (int i = 0; i < n; i++)",
			"\tp[i] = p[i] * f;")
		elem := hull(iv{-1, 1}.mul(f.iv), g.xHull())
		e := g.exprOf(2, []ex{{"p[i]", elem}})
		g.body.p("double loc[NX] = {%s};", lits(cs))
		g.body.p("scale_by%d(loc, NX, %s);", id, f.s)
		g.body.p("const double *p = x[%d] > %s ? loc : x;", g.r.IntN(g.nx), lit(th))
		g.body.p("for (int i = 0; i < NX; i++)")
		g.body.p("\t%s += %s;", t, e.s)
		g.finish(t, sumBound(g.nx, e.iv))
	}
	g.body.close()
}

// ---- realloc: growing buffers with conditional pushes ----

func (g *gen) segRealloc() {
	t := g.out()
	id := g.id()
	g.helper(fmt.Sprintf("static %sdouble *push%d(double *b, int *len, int *cap, double v)", g.maybeNoinline(), id),
		"if (*len == *cap) {",
		"\t*cap = *cap ? 2 * *cap : 2;",
		"\tb = (double *)realloc(b, (size_t)*cap * sizeof(double));",
		"}",
		"b[(*len)++] = v;",
		"return b;")
	inLoop := append([]ex{{"x[i]", g.xHull()}}, g.leaves()...)
	e1, e2 := g.exprOf(2, inLoop), g.exprOf(2, inLoop)
	cond := ""
	switch g.r.IntN(3) {
	case 0:
		th, _ := g.threshold()
		cond = fmt.Sprintf("x[i] > %s", lit(th))
	case 1:
		cond = "i % 2 == 0"
	default:
		if g.hasCP {
			cond = "cp->c[i % " + fmt.Sprint(len(g.c)) + "] > 0.0"
		} else {
			cond = "i % 3 != 1"
		}
	}
	el := hull(e1.iv, e2.iv)
	e3 := g.exprOf(1, []ex{{"buf[i]", el}})
	g.body.open("")
	g.body.p("double *buf = 0;")
	g.body.p("int len = 0, cap = 0;")
	g.body.open("for (int i = 0; i < NX; i++)")
	g.body.p("buf = push%d(buf, &len, &cap, %s);", id, e1.s)
	g.body.p("if (%s)", cond)
	g.body.p("\tbuf = push%d(buf, &len, &cap, %s);", id, e2.s)
	g.body.close()
	g.body.p("for (int i = 0; i < len; i++)")
	g.body.p("\t%s += %s;", t, e3.s)
	g.body.p("free(buf);")
	g.body.close()
	g.finish(t, sumBound(2*g.nx, e3.iv))
}
