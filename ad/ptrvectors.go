package ad

import (
	"reflect"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Vectors of pointers before differentiation.
//
// The SLP vectorizer moves neighbouring pointers as one vector: swapping a
// struct's two pointer fields becomes load <2 x double*>, shufflevector,
// store <2 x double*>. The engine gives shadows to pointers and to
// aggregates holding pointers, not to vectors of them, so such a move would
// carry the primal pointers and leave their shadows behind: a silently
// wrong gradient. scalarizePointerVectors rewrites every vector of pointers
// of a function lane by lane before any analysis sees it, into scalar
// pointers the engine shadows as it does any other (the rewrite is exact:
// the function computes the same):
//   - loads and stores of a vector become one load or store per lane, at
//     the lane's address, with the access's alignment and metadata;
//   - phis, selects (a vector condition read lane by lane), casts between
//     pointer vectors, inttoptr, freeze and vector GEPs become one per lane;
//   - shufflevector, insertelement and extractelement with constant indices
//     resolve to lanes; with a variable index, to selects comparing it with
//     each lane's number;
//   - constant vectors give their elements (undefined lanes: null);
//   - ptrtoint and icmp of pointer vectors are done per lane and their
//     integer vectors rebuilt with insertelement.
// A vector of pointers that lanes cannot express (a parameter, a call's
// argument or result, a return value, a field of an aggregate, a constant
// expression) stops the link with an error naming the function and the
// instruction; the function is left unchanged then.

// scalarizePointerVectors rewrites f's vectors of pointers into their
// lanes (see above).
func scalarizePointerVectors(f *ir.Func) error {
	if !hasPointerVectors(f) {
		return nil
	}
	s := &ptrLanes{f: f, lanes: map[value.Value][]value.Value{}, repl: map[ir.Instruction][]ir.Instruction{}, subst: map[value.Value]value.Value{}}
	for _, p := range f.Params {
		if containsPtrVec(p.Type()) {
			return errorAt(f, nil, "'%s' takes a vector of pointers as parameter %s, which gozyme cannot differentiate through; keep the function from being vectorized (noinline, or -fno-slp-vectorize)", f.Name(), p.Ident())
		}
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if err := s.visit(inst); err != nil {
				return err
			}
		}
		if hasPtrVecOperand(b.Term) {
			return s.unsupported(b.Term)
		}
	}
	// Phis' incoming lanes, once every lane exists (filling may add
	// lanes, and phis, of values not reached yet).
	for i := 0; i < len(s.phis); i++ {
		p := s.phis[i]
		for _, inc := range p.orig.Incs {
			ls, err := s.lanesOf(p.orig, inc.X)
			if err != nil {
				return err
			}
			for k, lp := range p.lanes {
				lp.Incs = append(lp.Incs, &ir.Incoming{X: ls[k], Pred: inc.Pred})
			}
		}
	}
	// Commit: nothing of f changed before this point.
	for _, b := range f.Blocks {
		insts := make([]ir.Instruction, 0, len(b.Insts))
		for _, inst := range b.Insts {
			if r, ok := s.repl[inst]; ok {
				insts = append(insts, r...)
				continue
			}
			insts = append(insts, inst)
		}
		b.Insts = insts
	}
	for old, nv := range s.subst {
		irutil.ReplaceAllUses(f, old, nv)
	}
	return irutil.Renumber(f)
}

// ptrLanes is the rewrite of one function's vectors of pointers.
type ptrLanes struct {
	f *ir.Func
	// lanes are the lanes of each vector of pointers met.
	lanes map[value.Value][]value.Value
	// repl lists what replaces each instruction rewritten, in order (empty:
	// removed).
	repl map[ir.Instruction][]ir.Instruction
	// subst maps the results of removed instructions that other
	// instructions still use to what replaces them.
	subst map[value.Value]value.Value
	phis  []lanePhi
}

// lanePhi is a vector phi and its lanes' phis, filled last.
type lanePhi struct {
	orig  *ir.InstPhi
	lanes []*ir.InstPhi
}

// hasPointerVectors reports whether any instruction or terminator of f
// defines or uses a value whose type holds a vector of pointers.
func hasPointerVectors(f *ir.Func) bool {
	for _, p := range f.Params {
		if containsPtrVec(p.Type()) {
			return true
		}
	}
	uses := func(x interface{}) bool {
		if v, ok := x.(value.Value); ok && containsPtrVec(v.Type()) {
			return true
		}
		return hasPtrVecOperand(x)
	}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if uses(inst) {
				return true
			}
		}
		if uses(b.Term) {
			return true
		}
	}
	return false
}

// isPtrVec reports a vector of pointers.
func isPtrVec(t types.Type) bool {
	v, ok := t.(*types.VectorType)
	return ok && types.IsPointer(v.ElemType)
}

// containsPtrVec reports a vector of pointers or an aggregate holding one.
func containsPtrVec(t types.Type) bool {
	switch t := t.(type) {
	case *types.VectorType:
		return types.IsPointer(t.ElemType)
	case *types.ArrayType:
		return containsPtrVec(t.ElemType)
	case *types.StructType:
		for _, f := range t.Fields {
			if containsPtrVec(f) {
				return true
			}
		}
	}
	return false
}

// unsupported is the error for a use of a vector of pointers lanes cannot
// express.
func (s *ptrLanes) unsupported(inst interface{}) error {
	return errorAt(s.f, inst, "cannot differentiate through a vector of pointers here (%s): only loads, stores, shuffles, element inserts and extracts, phis, selects, casts and getelementptr of pointer vectors are taken apart lane by lane; keep the code from being vectorized (-fno-slp-vectorize) or move this into a function that is not differentiated", describe(inst))
}

// visit rewrites inst where it defines or uses a vector of pointers.
func (s *ptrLanes) visit(inst ir.Instruction) error {
	if v, ok := inst.(value.Value); ok && isPtrVec(v.Type()) {
		_, err := s.lanesOf(inst, v)
		return err
	}
	switch x := inst.(type) {
	case *ir.InstStore:
		if !isPtrVec(x.Src.Type()) {
			break
		}
		ls, err := s.lanesOf(inst, x.Src)
		if err != nil {
			return err
		}
		if x.Atomic {
			return s.unsupported(inst)
		}
		s.repl[inst] = nil
		et := x.Src.Type().(*types.VectorType).ElemType
		addrs := s.laneAddrs(inst, x.Dst, et, len(ls))
		for i, l := range ls {
			st := ir.NewStore(l, addrs[i])
			st.Align, st.Volatile = laneAlign(x.Align, et, i), x.Volatile
			s.emitMem(inst, st, x.Metadata)
		}
		return nil
	case *ir.InstExtractElement:
		if isPtrVec(x.X.Type()) {
			_, err := s.scalarOf(inst, x)
			return err
		}
	case *ir.InstPtrToInt:
		if isPtrVec(x.From.Type()) {
			return s.rebuild(inst, x.To, func(i int, l value.Value) ir.Instruction {
				return ir.NewPtrToInt(l, x.To.(*types.VectorType).ElemType)
			}, x.From)
		}
	case *ir.InstICmp:
		if isPtrVec(x.X.Type()) {
			ys, err := s.lanesOf(inst, x.Y)
			if err != nil {
				return err
			}
			return s.rebuild(inst, x.Type(), func(i int, l value.Value) ir.Instruction {
				return ir.NewICmp(x.Pred, l, ys[i])
			}, x.X)
		}
	case *ir.InstCall:
		if irutil.BookkeepingIntrinsic(irfacts.CalleeName(x)) == irutil.DebugInfo && hasPtrVecOperand(x) {
			s.repl[inst] = nil // llvm.dbg.value of a vector: its lanes have no variable
			return nil
		}
	}
	if v, ok := inst.(value.Value); ok && containsPtrVec(v.Type()) {
		return s.unsupported(inst)
	}
	if hasPtrVecOperand(inst) {
		return s.unsupported(inst)
	}
	return nil
}

// hasPtrVecOperand reports an operand whose type holds a vector of
// pointers (llvm.dbg.value's, wrapped as metadata, included).
func hasPtrVecOperand(x interface{}) bool {
	u, ok := x.(interface{ Operands() []*value.Value })
	if !ok {
		return false
	}
	for _, op := range u.Operands() {
		if *op == nil {
			continue
		}
		v := irfacts.Unwrap(*op)
		if mv, ok := v.(*metadata.Value); ok {
			if inner, ok := mv.Value.(value.Value); ok {
				v = inner
			}
		}
		if containsPtrVec(v.Type()) {
			return true
		}
	}
	return false
}

// rebuild replaces inst, whose result is the vector of type t, by lane(i,
// l) for each lane l of vec, put together again with insertelement.
func (s *ptrLanes) rebuild(inst ir.Instruction, t types.Type, lane func(int, value.Value) ir.Instruction, vec value.Value) error {
	ls, err := s.lanesOf(inst, vec)
	if err != nil {
		return err
	}
	var acc value.Value = constant.NewUndef(t)
	for i, l := range ls {
		li := lane(i, l)
		s.emit(inst, li)
		ins := ir.NewInsertElement(acc, li.(value.Value), laneIndex(i))
		s.emit(inst, ins)
		acc = ins
	}
	s.subst[inst.(value.Value)] = acc
	return nil
}

// scalarOf returns v, or what replaces it where v is an extractelement of
// a vector of pointers; user is the instruction asking.
func (s *ptrLanes) scalarOf(user ir.Instruction, v value.Value) (value.Value, error) {
	v = irfacts.Unwrap(v)
	x, ok := v.(*ir.InstExtractElement)
	if !ok || !isPtrVec(x.X.Type()) {
		return v, nil
	}
	if r, ok := s.subst[x]; ok {
		return r, nil
	}
	ls, err := s.lanesOf(x, x.X)
	if err != nil {
		return nil, err
	}
	if _, ok := s.repl[x]; !ok {
		s.repl[x] = nil
	}
	var r value.Value
	if k, ok := intConstOf(x.Index); ok {
		if k >= 0 && k < int64(len(ls)) {
			r = ls[k]
		} else {
			r = constant.NewNull(x.Type().(*types.PointerType)) // poison
		}
	} else {
		r = s.pickLane(x, x.Index, ls, nil)
	}
	s.subst[x] = r
	return r, nil
}

// pickLane emits, for owner, the lane of ls a variable index idx selects
// (other: what any other index gives; nil: lane 0, the index being out of
// range poison).
func (s *ptrLanes) pickLane(owner ir.Instruction, idx value.Value, ls []value.Value, other value.Value) value.Value {
	acc := other
	if acc == nil {
		acc = ls[0]
	}
	for i := len(ls) - 1; i >= 0; i-- {
		if other == nil && i == 0 {
			break
		}
		eq := ir.NewICmp(enum.IPredEQ, idx, constant.NewInt(idx.Type().(*types.IntType), int64(i)))
		s.emit(owner, eq)
		sel := ir.NewSelect(eq, ls[i], acc)
		s.emit(owner, sel)
		acc = sel
	}
	return acc
}

// lanesOf returns the lanes of vector of pointers v, used by user (new
// instructions computing them go where v's definition is).
func (s *ptrLanes) lanesOf(user ir.Instruction, v value.Value) ([]value.Value, error) {
	v = irfacts.Unwrap(v)
	if ls, ok := s.lanes[v]; ok {
		return ls, nil
	}
	vt, ok := v.Type().(*types.VectorType)
	if !ok || !types.IsPointer(vt.ElemType) {
		return nil, s.unsupported(user)
	}
	n := int(vt.Len)
	et := vt.ElemType.(*types.PointerType)
	ls := make([]value.Value, n)
	switch x := v.(type) {
	case *constant.Vector:
		for i, e := range x.Elems {
			ls[i] = definedPtr(e, et)
		}
	case *constant.ZeroInitializer, *constant.Undef, *constant.Poison:
		for i := range ls {
			ls[i] = constant.NewNull(et)
		}
	case ir.Instruction:
		if err := s.instLanes(x, ls, et); err != nil {
			return nil, err
		}
	default:
		return nil, s.unsupported(user)
	}
	s.lanes[v] = ls
	return ls, nil
}

// definedPtr is constant element e of a vector of pointers, null where
// undefined.
func definedPtr(e constant.Constant, et *types.PointerType) value.Value {
	switch e.(type) {
	case *constant.Undef, *constant.Poison:
		return constant.NewNull(et)
	}
	return e
}

// instLanes fills ls with the lanes of instruction x, a vector of pointers
// of element type et, emitting what computes them in x's place.
func (s *ptrLanes) instLanes(x ir.Instruction, ls []value.Value, et *types.PointerType) error {
	s.repl[x] = nil
	md := mdOf(x)
	lane := func(inst ir.Instruction) value.Value {
		s.emit(x, inst)
		setMD(inst, dbgOnly(md))
		return inst.(value.Value)
	}
	switch x := x.(type) {
	case *ir.InstLoad:
		if x.Atomic {
			return s.unsupported(x)
		}
		addrs := s.laneAddrs(x, x.Src, et, len(ls))
		for i := range ls {
			ld := ir.NewLoad(et, addrs[i])
			ld.Align, ld.Volatile = laneAlign(x.Align, et, i), x.Volatile
			s.emitMem(x, ld, x.Metadata)
			ls[i] = ld
		}
	case *ir.InstPhi:
		p := lanePhi{orig: x}
		for i := range ls {
			lp := &ir.InstPhi{Typ: et}
			s.emit(x, lp)
			setMD(lp, dbgOnly(md))
			p.lanes = append(p.lanes, lp)
			ls[i] = lp
		}
		s.lanes[x] = ls // before the incoming values: loops reach x again
		s.phis = append(s.phis, p)
	case *ir.InstSelect:
		xs, err := s.lanesOf(x, x.ValueTrue)
		if err != nil {
			return err
		}
		ys, err := s.lanesOf(x, x.ValueFalse)
		if err != nil {
			return err
		}
		for i := range ls {
			ls[i] = lane(ir.NewSelect(s.intLane(x, x.Cond, i), xs[i], ys[i]))
		}
	case *ir.InstShuffleVector:
		mask, ok := irutil.ShuffleMask(x)
		if !ok {
			return s.unsupported(x)
		}
		xs, err := s.lanesOf(x, x.X)
		if err != nil {
			return err
		}
		ys, err := s.lanesOf(x, x.Y)
		if err != nil {
			return err
		}
		all := append(append([]value.Value{}, xs...), ys...)
		for i, k := range mask {
			if k < 0 || k >= int64(len(all)) {
				ls[i] = constant.NewNull(et)
			} else {
				ls[i] = all[k]
			}
		}
	case *ir.InstInsertElement:
		base, err := s.lanesOf(x, x.X)
		if err != nil {
			return err
		}
		elem, err := s.scalarOf(x, x.Elem)
		if err != nil {
			return err
		}
		copy(ls, base)
		if k, ok := intConstOf(x.Index); ok {
			if k >= 0 && k < int64(len(ls)) {
				ls[k] = elem
			}
			break
		}
		for i := range ls {
			eq := ir.NewICmp(enum.IPredEQ, x.Index, constant.NewInt(x.Index.Type().(*types.IntType), int64(i)))
			s.emit(x, eq)
			ls[i] = lane(ir.NewSelect(eq, elem, base[i]))
		}
	case *ir.InstGetElementPtr:
		var srcs []value.Value
		if isPtrVec(x.Src.Type()) {
			var err error
			if srcs, err = s.lanesOf(x, x.Src); err != nil {
				return err
			}
		}
		src, err := s.scalarOf(x, x.Src)
		if err != nil {
			return err
		}
		for i := range ls {
			b := src
			if srcs != nil {
				b = srcs[i]
			}
			idx := make([]value.Value, len(x.Indices))
			for j, ix := range x.Indices {
				idx[j] = s.intLane(x, ix, i)
			}
			g := ir.NewGetElementPtr(x.ElemType, b, idx...)
			g.InBounds = x.InBounds
			ls[i] = lane(g)
		}
	case *ir.InstBitCast, *ir.InstAddrSpaceCast, *ir.InstFreeze:
		var from value.Value
		switch x := x.(type) {
		case *ir.InstBitCast:
			from = x.From
		case *ir.InstAddrSpaceCast:
			from = x.From
		case *ir.InstFreeze:
			from = x.X
		}
		xs, err := s.lanesOf(x, from)
		if err != nil {
			return err
		}
		for i, l := range xs {
			switch x.(type) {
			case *ir.InstBitCast:
				ls[i] = lane(ir.NewBitCast(l, et))
			case *ir.InstAddrSpaceCast:
				ls[i] = lane(ir.NewAddrSpaceCast(l, et))
			default:
				ls[i] = lane(ir.NewInstFreeze(l))
			}
		}
	case *ir.InstIntToPtr:
		for i := range ls {
			ls[i] = lane(ir.NewIntToPtr(s.intLane(x, x.From, i), et))
		}
	default:
		return s.unsupported(x)
	}
	return nil
}

// intLane is lane i of v, a vector of integers or a scalar used for every
// lane (a GEP's index, a select's condition), emitted for owner.
func (s *ptrLanes) intLane(owner ir.Instruction, v value.Value, i int) value.Value {
	v = irfacts.Unwrap(v)
	vt, ok := v.Type().(*types.VectorType)
	if !ok {
		return v
	}
	switch c := v.(type) {
	case *constant.Vector:
		if e := c.Elems[i]; !isUndefConst(e) {
			return e
		}
		return zeroElem(vt.ElemType)
	case *constant.ZeroInitializer, *constant.Undef, *constant.Poison:
		return zeroElem(vt.ElemType)
	}
	e := ir.NewExtractElement(v, laneIndex(i))
	s.emit(owner, e)
	return e
}

// laneAddrs emits, for owner, the addresses of the n lanes (of type et)
// of the vector that addr points to.
func (s *ptrLanes) laneAddrs(owner ir.Instruction, addr value.Value, et types.Type, n int) []value.Value {
	lp := types.NewPointer(et)
	lp.AddrSpace = addr.Type().(*types.PointerType).AddrSpace
	cast := ir.NewBitCast(addr, lp)
	s.emit(owner, cast)
	setMD(cast, dbgOnly(mdOf(owner)))
	out := []value.Value{cast}
	for i := 1; i < n; i++ {
		g := ir.NewGetElementPtr(et, cast, constant.NewInt(types.I64, int64(i)))
		g.InBounds = true
		s.emit(owner, g)
		setMD(g, dbgOnly(mdOf(owner)))
		out = append(out, g)
	}
	return out
}

// laneAlign is the alignment of lane i, of type et, of an access aligned
// to align (0: the types' own alignment).
func laneAlign(align ir.Align, et types.Type, i int) ir.Align {
	if align == 0 || i == 0 {
		return align
	}
	off := ir.Align(irutil.AllocSize(et) * int64(i))
	for align > 1 && off%align != 0 {
		align /= 2
	}
	return align
}

// emit appends inst to what replaces owner.
func (s *ptrLanes) emit(owner, inst ir.Instruction) {
	s.repl[owner] = append(s.repl[owner], inst)
}

// emitMem emits a lane's load or store with the vector access's metadata
// that stays true of each part of it.
func (s *ptrLanes) emitMem(owner, inst ir.Instruction, md ir.Metadata) {
	var kept ir.Metadata
	for _, a := range md {
		switch a.Name {
		case "dbg", "tbaa", "alias.scope", "noalias", "nontemporal":
			kept = append(kept, a)
		}
	}
	setMD(inst, kept)
	s.emit(owner, inst)
}

// mdOf returns inst's metadata attachments.
func mdOf(inst interface{}) ir.Metadata {
	if m, ok := inst.(interface {
		MDAttachments() []*metadata.Attachment
	}); ok {
		return m.MDAttachments()
	}
	return nil
}

// dbgOnly keeps the debug location of md.
func dbgOnly(md ir.Metadata) ir.Metadata {
	for _, a := range md {
		if a.Name == "dbg" {
			return ir.Metadata{a}
		}
	}
	return nil
}

// setMD sets the metadata attachments of inst.
func setMD(inst ir.Instruction, md ir.Metadata) {
	if len(md) == 0 {
		return
	}
	if f := reflect.ValueOf(inst).Elem().FieldByName("Metadata"); f.IsValid() && f.CanSet() {
		f.Set(reflect.ValueOf(md))
	}
}

// laneIndex is the i32 constant i.
func laneIndex(i int) *constant.Int {
	return constant.NewInt(types.I32, int64(i))
}
