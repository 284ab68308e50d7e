package adfuzz

import (
	"fmt"
	"math"
	"strings"
)

// ---- ptrswap: pointers to active buffers moved through memory ----
//
// Pairs and triples of pointers held in structs, swapped, rotated, copied
// by value and selected between: at -O2/-O3 LLVM's SLP vectorizer turns
// these moves into loads, shuffles and stores of <2 x double*>, which the
// AD engine must give shadows lane by lane. Every result is read through
// the moved pointers, so the derivatives flow through them.

func (g *gen) needDbuf() {
	g.declare("dbuf", g.types, "struct dbuf {\n\tdouble *cur;\n\tdouble *nxt;\n};")
}

// stepper is one update of a double-buffered array, nxt[i] = k*cur[i] +
// c*wrap(...): with |cur[i]| <= b every new element stays within b.
type stepper struct {
	line string // "NXT[i] = ...;" with cur and nxt spelled as given
	b    float64
}

// step writes the update of nxt from cur (C lvalue prefixes such as
// "b->cur" or "cur") whose elements start within start; the expression may
// also read extra.
func (g *gen) step(cur, nxt string, start iv, extra []ex) stepper {
	k := round3(g.uniform(0.3, 0.8))
	if g.r.IntN(3) == 0 {
		k = -k
	}
	b := math.Max(math.Max(g.xHull().maxAbs(), start.maxAbs()), 1.5)
	c := round3((1 - math.Abs(k)) * b * g.uniform(0.4, 0.95))
	ls := []ex{{cur + "[i]", sym(b)}}
	if g.r.IntN(2) == 0 {
		ls = append(ls, ex{cur + "[(i + 1) % NX]", sym(b)})
	}
	inner := g.exprOf(2, append(ls, extra...))
	wrap := []string{"sin", "tanh", "cos", "erf", "atan"}[g.r.IntN(5)]
	if wrap == "atan" {
		c = round3(c / (math.Pi / 2))
	}
	return stepper{fmt.Sprintf("%s[i] = %s * %s[i] + %s * %s(%s);", nxt, lit(k), cur, lit(c), wrap, inner.s), b}
}

// scratch declares a work array of NX doubles, local or malloc'd; the
// returned function frees it (or does nothing).
func (g *gen) scratch(name string) func() {
	if g.r.IntN(2) == 0 {
		g.body.p("double %s[NX];", name)
		return func() {}
	}
	g.body.p("double *%s = (double *)malloc(NX * sizeof(double));", name)
	return func() { g.body.p("free(%s);", name) }
}

// fill writes a[i] = e(x[i]) for every i, and returns a bound of a's elements.
func (g *gen) fill(a string) iv {
	e := g.exprOf(1, append([]ex{{"x[i]", g.xHull()}}, g.leaves()...))
	g.body.p("for (int i = 0; i < NX; i++)")
	g.body.p("\t%s[i] = %s;", a, e.s)
	return e.iv
}

// outer are the values of F a step in F's body may read.
func (g *gen) outer() []ex {
	return g.leaves()
}

// firstOut is s and the first segment's result, what a step may read
// where x itself is overwritten (x's elements are then no leaves).
func (g *gen) firstOut() []ex {
	var ls []ex
	if g.hasS {
		ls = append(ls, g.sLeaf())
	}
	if len(g.outs) > 0 {
		ls = append(ls, g.outs[0])
	}
	return ls
}

// helperArg is an argument z of a helper: an expression of F's values and
// the leaf z the helper's body reads.
func (g *gen) helperArg() (ex, []ex) {
	z := g.expr(1, g.leaves())
	return z, []ex{{"z", z.iv}}
}

// rounds is a small constant number of time steps.
func (g *gen) rounds() int { return 1 + g.r.IntN(4) }

func (g *gen) segPtrSwap() {
	choice := g.r.IntN(6)
	if choice == 5 && !g.cxx {
		choice = g.r.IntN(5)
	}
	switch choice {
	case 0:
		g.ptrStepHelper()
	case 1:
		g.ptrStepInline()
	case 2:
		g.ptrCopies()
	case 3:
		g.ptrSelect()
	case 4:
		g.ptrRotate()
	default:
		g.vectorSwap()
	}
}

// swapLines swap a pair's pointers (p is "b->" or "b."), written out or,
// at random, by a call of the noinline pswap (its body nothing but the
// swap: a load, shuffle and store of <2 x double*> at -O2).
func (g *gen) swapLines(p string) []string {
	if g.r.IntN(2) == 0 {
		return []string{"double *tmp = " + p + "cur;", p + "cur = " + p + "nxt;", p + "nxt = tmp;"}
	}
	g.declare("pswap", g.helpers, "static "+noinline+" void pswap(struct dbuf *p) {\n\tdouble *tmp = p->cur;\n\tp->cur = p->nxt;\n\tp->nxt = tmp;\n}\n")
	if p == "b." {
		return []string{"pswap(&b);"}
	}
	return []string{"pswap(" + strings.TrimSuffix(p, "->") + ");"}
}

// needMoves declares noinline helpers that only move pointer pairs: a
// field-by-field copy, a pair of offset pointers, a select between pairs.
func (g *gen) needMoves() {
	g.declare("pput", g.helpers, "static "+noinline+` void pput(struct dbuf *dst, const struct dbuf *src) {
	dst->cur = src->cur;
	dst->nxt = src->nxt;
}

static `+noinline+` void poffset(struct dbuf *dst, double *a, double *b, int k) {
	dst->cur = a + k;
	dst->nxt = b + k;
}

static `+noinline+` void pchoose(struct dbuf *out, const struct dbuf *l, const struct dbuf *r, int c) {
	double *a = l->cur, *b = l->nxt, *u = r->cur, *v = r->nxt;
	out->cur = c ? a : u;
	out->nxt = c ? b : v;
}
`)
}

// ptrStepHelper: time steps in a noinline helper that swaps the struct's
// pointers, before the step (a load, shuffle and store of the pair at
// -O2) or after it; the first step reads x itself, whose pointer is then
// replaced by a scratch array's.
func (g *gen) ptrStepHelper() {
	g.needDbuf()
	t := g.out()
	id := g.id()
	z, zl := g.helperArg()
	st := g.step("b->cur", "b->nxt", g.xHull(), zl)
	swapFirst := g.r.IntN(2) == 0
	loop := []string{"for (int i = 0; i < NX; i++)", "\t" + st.line}
	lines := append(append([]string{}, loop...), g.swapLines("b->")...)
	if swapFirst {
		lines = append(g.swapLines("b->"), loop...)
	}
	g.helper(fmt.Sprintf("static %svoid dstep%d(struct dbuf *b, double z)", noinline+" ", id), lines...)
	g.body.open("")
	freeA, freeB := g.scratch("wa"), g.scratch("wb")
	latest := "b.cur"
	if swapFirst {
		// Latest values in nxt: {wa, x} swaps to {x, wa}, x's slot then
		// becomes wb's.
		latest = "b.nxt"
		g.body.p("struct dbuf b = {wa, x};")
		g.body.p("dstep%d(&b, %s);", id, z.s)
		g.body.p("b.cur = wb;")
	} else {
		g.body.p("struct dbuf b = {x, wa};")
		g.body.p("dstep%d(&b, %s);", id, z.s)
		g.body.p("b.nxt = wb;")
	}
	g.body.p("for (int it = 0; it < %d; it++)", g.rounds())
	g.body.p("\tdstep%d(&b, %s);", id, z.s)
	fin := g.exprOf(1, []ex{{latest + "[i]", sym(st.b)}})
	g.body.p("for (int i = 0; i < NX; i++)")
	g.body.p("\t%s += %s;", t, fin.s)
	freeB()
	freeA()
	g.body.close()
	g.finish(t, sumBound(g.nx, fin.iv))
}

// ptrStepInline: time steps in F with the pair in memory (an array of
// pairs indexed by the step's parity, read by a noinline helper), swapped
// before or after the step.
func (g *gen) ptrStepInline() {
	g.needDbuf()
	t := g.out()
	id := g.id()
	g.helper(fmt.Sprintf("static %sdouble dpeek%d(const struct dbuf *b, int k)", noinline+" ", id),
		"return b->cur[k] - 0.5 * b->nxt[k];")
	g.body.open("")
	freeA, freeB := g.scratch("wa"), g.scratch("wb")
	freeC, freeD := g.scratch("wc"), g.scratch("wd")
	ba := g.fill("wa")
	bc := g.fill("wc")
	st := g.step("p->cur", "p->nxt", hull(ba, bc), g.outer())
	swapFirst := g.r.IntN(2) == 0
	latest := "cur"
	if swapFirst {
		latest = "nxt"
		g.body.p("struct dbuf bs[2] = {{wb, wa}, {wd, wc}};")
	} else {
		g.body.p("struct dbuf bs[2] = {{wa, wb}, {wc, wd}};")
	}
	g.body.open("for (int it = 0; it < %d; it++)", 2*g.rounds())
	g.body.p("struct dbuf *p = &bs[it %% 2];")
	if swapFirst {
		for _, l := range g.swapLines("p->") {
			g.body.p("%s", l)
		}
	}
	g.body.p("for (int i = 0; i < NX; i++)")
	g.body.p("\t%s", st.line)
	if !swapFirst {
		for _, l := range g.swapLines("p->") {
			g.body.p("%s", l)
		}
	}
	g.body.p("%s += 0.1 * dpeek%d(p, it %% NX);", t, id)
	g.body.close()
	el := hull(sym(st.b), hull(ba, bc))
	fin := g.exprOf(1, []ex{{"bs[1]." + latest + "[i]", el}, {"bs[0]." + latest + "[i]", el}})
	g.body.p("for (int i = 0; i < NX; i++)")
	g.body.p("\t%s += %s;", t, fin.s)
	freeD()
	freeC()
	freeB()
	freeA()
	g.body.close()
	peek := 0.1 * 1.5 * el.maxAbs() * float64(2*4)
	g.finish(t, sumBound(g.nx, fin.iv).add(sym(peek)))
}

// ptrCopies: a pair copied by value into locals and arrays of pairs,
// swapped there and passed by value and by pointer to helpers.
func (g *gen) ptrCopies() {
	g.needDbuf()
	t := g.out()
	id := g.id()
	el := hull(g.xHull(), iv{})
	g.body.open("")
	free := g.scratch("wa")
	el = hull(el, g.fill("wa"))
	ps := []ex{{"p.cur[i]", el}, {"p.nxt[i]", el}}
	h := g.useAll(g.exprOf(2, ps), ps)
	g.helper(fmt.Sprintf("static %sdouble dpair%d(struct dbuf p)", g.maybeNoinline(), id),
		"double acc = 0.0;",
		"for (int i = 0; i < NX; i++)",
		"\tacc += "+h.s+";",
		"return acc;")
	g.helper(fmt.Sprintf("static %svoid dswap%d(struct dbuf *p)", noinline+" ", id),
		"double *tmp = p->cur;",
		"p->cur = p->nxt;",
		"p->nxt = tmp;")
	g.body.p("struct dbuf a = {x, wa};")
	g.body.p("struct dbuf arr[3];")
	if g.r.IntN(2) == 0 {
		g.body.p("arr[0] = a;")
		g.body.p("arr[1] = a;")
	} else {
		g.needMoves()
		g.body.p("pput(&arr[0], &a);")
		g.body.p("pput(&arr[1], &a);")
	}
	g.body.p("dswap%d(&arr[1]);", id)
	g.body.p("arr[2] = arr[%d];", g.r.IntN(2))
	g.body.p("struct dbuf c = arr[1];")
	g.body.p("%s = dpair%d(a) + dpair%d(c);", t, id, id)
	g.body.p("for (int j = 0; j < 3; j++)")
	g.body.p("\t%s += 0.5 * dpair%d(arr[j]);", t, id)
	b := h.iv.scale(float64(g.nx) * 3.5)
	if g.r.IntN(2) == 0 {
		// Pointers one element in: the pair read up to NX - 1.
		g.needMoves()
		ph := g.useAll(g.exprOf(2, []ex{{"o.cur[i]", el}, {"o.nxt[i]", el}}), []ex{{"o.nxt[i]", el}})
		g.body.p("struct dbuf o;")
		g.body.p("poffset(&o, x, wa, 1);")
		g.body.p("for (int i = 0; i + 1 < NX; i++)")
		g.body.p("\t%s += %s;", t, ph.s)
		b = b.add(sumBound(g.nx, ph.iv))
	}
	free()
	g.body.close()
	g.finish(t, b)
}

// ptrSelect: a pair chosen from an array of pairs by a comparison of x,
// written through and read through (the step in F or in a helper).
func (g *gen) ptrSelect() {
	g.needDbuf()
	t := g.out()
	id := g.id()
	th, _ := g.threshold()
	j := g.r.IntN(g.nx)
	g.body.open("")
	freeA, freeB := g.scratch("wa"), g.scratch("wb")
	ba := g.fill("wa")
	g.body.p("struct dbuf pq[2] = {{x, wa}, {wa, wb}};")
	if g.r.IntN(3) == 0 {
		g.needMoves()
		g.body.p("struct dbuf sp;")
		g.body.p("pchoose(&sp, &pq[0], &pq[1], x[%d] > %s);", j, lit(th))
	} else if g.r.IntN(2) == 0 {
		g.body.p("struct dbuf sp = pq[x[%d] > %s ? 0 : 1];", j, lit(th))
	} else {
		g.body.p("struct dbuf sp = pq[1];")
		g.body.open("if (x[%d] > %s)", j, lit(th))
		g.body.p("sp = pq[0];")
		g.body.close()
	}
	// sp.cur is x or wa; sp.nxt gets the step.
	if g.r.IntN(2) == 0 {
		st := g.step("sp.cur", "sp.nxt", ba, g.outer())
		g.body.p("for (int i = 0; i < NX; i++)")
		g.body.p("\t%s", st.line)
		g.selectFinish(t, st, ba)
	} else {
		z, zl := g.helperArg()
		st := g.step("p->cur", "p->nxt", ba, zl)
		g.helper(fmt.Sprintf("static %svoid dapply%d(const struct dbuf *p, double z)", g.maybeNoinline(), id),
			"for (int i = 0; i < NX; i++)",
			"\t"+st.line)
		g.body.p("dapply%d(&sp, %s);", id, z.s)
		g.selectFinish(t, st, ba)
	}
	freeB()
	freeA()
	g.body.close()
}

func (g *gen) selectFinish(t string, st stepper, ba iv) {
	el := hull(g.xHull(), ba)
	fin := g.exprOf(1, []ex{{"sp.nxt[i]", sym(st.b)}, {"sp.cur[i]", el}})
	g.body.p("for (int i = 0; i < NX; i++)")
	g.body.p("\t%s += %s;", t, fin.s)
	g.finish(t, sumBound(g.nx, fin.iv))
}

// ptrRotate: three pointers rotated after every step (inline, or in a
// noinline helper).
func (g *gen) ptrRotate() {
	g.declare("dtri", g.types, "struct dtri {\n\tdouble *a;\n\tdouble *b;\n\tdouble *c;\n};")
	t := g.out()
	id := g.id()
	g.body.open("")
	freeA, freeB, freeC := g.scratch("wa"), g.scratch("wb"), g.scratch("wc")
	ba := g.fill("wa")
	kb := round3(g.uniform(-0.9, 0.9))
	g.body.p("for (int i = 0; i < NX; i++)")
	g.body.p("\twb[i] = %s * x[(i + 1) %% NX];", lit(kb))
	b := math.Max(math.Max(g.xHull().maxAbs(), ba.maxAbs()), 1.5)
	k := round3(g.uniform(0.2, 0.6))
	c := round3((1 - k) * b * g.uniform(0.4, 0.95))
	ls := []ex{{"q->b[i]", sym(b)}, {"q->a[(i + 1) % NX]", sym(b)}}
	inHelper := g.r.IntN(2) == 0
	z, zl := g.helperArg()
	if inHelper {
		ls = append(ls, zl...)
	} else {
		ls = append(ls, g.outer()...)
	}
	inner := g.exprOf(2, ls)
	line := fmt.Sprintf("q->c[i] = %s * q->a[i] + %s * tanh(%s);", lit(k), lit(c), inner.s)
	rot := []string{"double *tmp = q->a;", "q->a = q->b;", "q->b = q->c;", "q->c = tmp;"}
	if g.r.IntN(2) == 0 {
		g.declare("prot", g.helpers, "static "+noinline+" void prot(struct dtri *q) {\n\t"+strings.Join(rot, "\n\t")+"\n}\n")
		rot = []string{"prot(q);"}
	}
	rotFirst := g.r.IntN(2) == 0
	lines := append([]string{"for (int i = 0; i < NX; i++)", "\t" + line}, rot...)
	if rotFirst {
		lines = append(rot, "for (int i = 0; i < NX; i++)", "\t"+line)
	}
	if inHelper {
		g.helper(fmt.Sprintf("static %svoid drot%d(struct dtri *q, double z)", noinline+" ", id), lines...)
	}
	a, bb := "a", "b"
	if rotFirst {
		// {wc, wa, wb} rotates to {wa, wb, wc} before the first step.
		a, bb = "b", "c"
		g.body.p("struct dtri tq = {wc, wa, wb};")
	} else {
		g.body.p("struct dtri tq = {wa, wb, wc};")
	}
	g.body.p("struct dtri *q = &tq;")
	g.body.open("for (int it = 0; it < %d; it++)", g.rounds()+1)
	if inHelper {
		g.body.p("drot%d(q, %s);", id, z.s)
	} else {
		for _, l := range lines {
			g.body.p("%s", l)
		}
	}
	g.body.close()
	el := sym(b)
	fin := g.exprOf(1, []ex{{"q->" + a + "[i]", el}, {"q->" + bb + "[i]", el}})
	g.body.p("for (int i = 0; i < NX; i++)")
	g.body.p("\t%s += %s;", t, fin.s)
	freeC()
	freeB()
	freeA()
	g.body.close()
	g.finish(t, sumBound(g.nx, fin.iv))
}

// vectorSwap (C++): std::swap of std::vectors in a time-stepping loop, and
// the vectors moved into a struct.
func (g *gen) vectorSwap() {
	g.declare("vpair", g.types, "template <typename T> struct VPair {\n\tstd::vector<T> u, v;\n};")
	t := g.out()
	st := g.step("a", "b", g.xHull(), g.outer())
	g.body.open("")
	g.body.p("std::vector<T> a(x, x + NX), b(NX);")
	g.body.open("for (int it = 0; it < %d; it++)", g.rounds())
	g.body.p("for (int i = 0; i < NX; i++)")
	g.body.p("\t%s", st.line)
	helpers := g.r.IntN(2) == 0
	if helpers {
		g.declare("vexchange", g.helpers, "template <typename T>\nstatic "+noinline+" void vexchange(std::vector<T> &a, std::vector<T> &b) { std::swap(a, b); }\n")
		g.declare("vtake", g.helpers, "template <typename T>\nstatic "+noinline+" void vtake(std::vector<T> &dst, std::vector<T> &&src) { dst = std::move(src); }\n")
		g.body.p("vexchange(a, b);")
	} else if g.r.IntN(2) == 0 {
		g.body.p("std::swap(a, b);")
	} else {
		g.body.p("a.swap(b);")
	}
	g.body.close()
	g.body.p("VPair<T> vp;")
	if helpers {
		g.body.p("vtake(vp.u, std::move(a));")
		g.body.p("vtake(vp.v, std::move(b));")
	} else {
		g.body.p("vp.u = std::move(a);")
		g.body.p("vp.v = std::move(b);")
	}
	g.body.p("std::swap(vp.u, vp.v);")
	fin := g.exprOf(1, []ex{{"vp.v[i]", sym(st.b)}, {"vp.u[i]", sym(st.b)}})
	g.body.p("for (int i = 0; i < NX; i++)")
	g.body.p("\t%s += %s;", t, fin.s)
	g.body.close()
	g.finish(t, sumBound(g.nx, fin.iv))
}

// ptrStepX is the last segment: x itself double-buffered with a scratch
// array, so x's final values come through the swapped pointers.
func (g *gen) ptrStepX() {
	g.needDbuf()
	t := g.out()
	st := g.step("b.cur", "b.nxt", g.xHull(), g.firstOut())
	r := g.rounds()
	g.body.open("")
	free := g.scratch("wa")
	g.body.p("struct dbuf b = {x, wa};")
	g.body.open("for (int it = 0; it < %d; it++)", r)
	g.body.p("for (int i = 0; i < NX; i++)")
	g.body.p("\t%s", st.line)
	g.body.p("double *tmp = b.cur;")
	g.body.p("b.cur = b.nxt;")
	g.body.p("b.nxt = tmp;")
	g.body.close()
	if r%2 == 1 {
		g.body.p("memcpy(b.nxt, b.cur, NX * sizeof(double));")
	}
	fin := g.exprOf(1, []ex{{"x[i]", sym(st.b)}})
	g.body.p("for (int i = 0; i < NX; i++)")
	g.body.p("\t%s += %s;", t, fin.s)
	free()
	g.body.close()
	g.finish(t, sumBound(g.nx, fin.iv))
}
