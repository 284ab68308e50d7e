package typeanalysis

// The rules run on every visit of an instruction, and most of what they
// derive from one tree is joined into another at once: the fused forms
// below list those facts (keys computed on the packed paths) for
// Analysis.addFacts, instead of building a tree whose map would cost a
// hash insert per fact, only to be read once. A list may name a key
// twice; joining its facts gives the tree treeOf builds.

// fact is one fact of a tree.
type fact struct {
	k key
	c Concrete
}

// treeOf is the tree holding fs, facts at one key joined.
func treeOf(fs []fact) *Tree {
	t := sizedTree(len(fs))
	for _, f := range fs {
		old := t.m[f.k]
		if n := old.Join(f.c); n != old {
			t.m[f.k] = n
		}
	}
	return t
}

// level1 is the bit position of a key's second offset.
const level1 = lenBits + offBits

// appendShiftedPointee appends the facts of t.shiftedPointee(delta) to
// out: the paths under the pointer at byte 0, their first memory offset
// moved by delta (-1 stays; what becomes negative or passes MaxOffset is
// dropped).
func (t *Tree) appendShiftedPointee(out []fact, delta int64) []fact {
	if t == nil {
		return out
	}
	for k, c := range t.m {
		if k.len() < 2 || k.first() != 0 || c == Unknown {
			continue
		}
		if f := k >> level1 & offMask; f != 0 {
			o := int64(f) - 1 + delta
			if o < 0 || o > MaxOffset {
				continue
			}
			k = k&^(offMask<<level1) | key(o+1)<<level1
		}
		out = append(out, fact{k, c})
	}
	return out
}

// appendPointeeWindow appends the facts of t.pointeeWindow(n) to out: the
// paths under the pointer at byte 0 without their first offset, those
// within the n bytes from 0, and those at every offset repeated over them.
func (t *Tree) appendPointeeWindow(out []fact, n int64) []fact {
	if t == nil || n <= 0 {
		return out
	}
	for k, c := range t.m {
		if k.len() < 2 || k.first() != 0 || c == Unknown {
			continue
		}
		d := k>>level1<<lenBits | key(k.len()-1)
		first := d.first()
		if first == -1 {
			z := c.Size()
			for o := int64(0); o+z <= n && o <= MaxOffset; o += z {
				out = append(out, fact{d | key(o+1)<<lenBits, c})
			}
			continue
		}
		if first+c.Size() <= n {
			out = append(out, fact{d, c})
		}
	}
	return out
}

// appendPlacedUnder appends the facts of v.placedUnder(n) to out: v's
// paths that lie within its first n bytes, under a pointer at byte 0.
func (v *Tree) appendPlacedUnder(out []fact, n int64) []fact {
	if v == nil {
		return out
	}
	for k, c := range v.m {
		if k.len()+1 > MaxDepth || c == Unknown {
			continue
		}
		if first := k.first(); first < 0 || first+c.Size() > n {
			continue
		}
		out = append(out, fact{k>>lenBits<<level1 | 1<<lenBits | key(k.len()+1), c})
	}
	return out
}
