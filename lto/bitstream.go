package lto

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// A minimal reader of LLVM's bitstream container, enough to find the
// blobs of a bitcode file's top-level blocks (irsymtab.go) without
// reading the module: top-level blocks are skipped by their length word,
// and only the blocks asked for are read, record by record.

// bitReader reads a bitstream's bits, least significant first within
// little-endian bytes.
type bitReader struct {
	data []byte
	pos  int // bit position
}

var errBitstreamEnd = errors.New("bitstream: unexpected end")

func (r *bitReader) read(n int) (uint64, error) {
	if n > 64 || r.pos+n > len(r.data)*8 {
		return 0, errBitstreamEnd
	}
	var v uint64
	for i := 0; i < n; {
		byteAt, bit := r.pos/8, r.pos%8
		take := min(8-bit, n-i)
		b := uint64(r.data[byteAt]>>bit) & (1<<take - 1)
		v |= b << i
		i += take
		r.pos += take
	}
	return v, nil
}

func (r *bitReader) vbr(n int) (uint64, error) {
	var v uint64
	hi := uint64(1) << (n - 1)
	for shift := 0; shift < 64; shift += n - 1 {
		piece, err := r.read(n)
		if err != nil {
			return 0, err
		}
		v |= (piece &^ hi) << shift
		if piece&hi == 0 {
			return v, nil
		}
	}
	return 0, errors.New("bitstream: VBR value too long")
}

func (r *bitReader) align32() { r.pos = (r.pos + 31) &^ 31 }

// Abbreviation operand encodings (LLVM's BitCodeAbbrevOp).
const (
	abbrevFixed = 1
	abbrevVBR   = 2
	abbrevArray = 3
	abbrevChar6 = 4
	abbrevBlob  = 5
)

type abbrevOp struct {
	literal bool
	enc     int
	value   uint64 // the literal, or the width of fixed and VBR fields
}

// bitcodeBlobs returns, for each top-level block of a raw bitcode stream
// (after its 'BC' magic) whose id want accepts, in file order, the blob of
// its first record that has one; the ids of all top-level blocks come back
// in order too.
func bitcodeBlobs(data []byte, want func(id uint64) bool) (ids []uint64, blobs map[int][]byte, err error) {
	if len(data) < 4 || string(data[:4]) != "BC\xc0\xde" {
		return nil, nil, errors.New("not raw bitcode")
	}
	r := &bitReader{data: data, pos: 32}
	blobs = map[int][]byte{}
	// What may follow the last block is zero padding (a section's
	// alignment); another module (a new magic) is an error.
	for r.pos/8 < len(data) && !allZero(data[r.pos/8:]) {
		code, err := r.read(2)
		if err != nil {
			return nil, nil, err
		}
		if code != 1 { // ENTER_SUBBLOCK
			return nil, nil, fmt.Errorf("bitstream: top-level abbreviation %d", code)
		}
		id, err := r.vbr(8)
		if err != nil {
			return nil, nil, err
		}
		width, err := r.vbr(4)
		if err != nil {
			return nil, nil, err
		}
		r.align32()
		words, err := r.read(32)
		if err != nil {
			return nil, nil, err
		}
		end := r.pos + int(words)*32
		if end > len(data)*8 || width < 2 || width > 32 {
			return nil, nil, errBitstreamEnd
		}
		ids = append(ids, id)
		if want(id) {
			blob, err := firstBlob(&bitReader{data: data[:end/8], pos: r.pos}, int(width))
			if err != nil {
				return nil, nil, fmt.Errorf("bitstream: block %d: %w", id, err)
			}
			blobs[len(ids)-1] = blob
		}
		r.pos = end
	}
	return ids, blobs, nil
}

// firstBlob reads a block's records up to the first with a blob operand.
func firstBlob(r *bitReader, width int) ([]byte, error) {
	var abbrevs [][]abbrevOp
	for {
		code, err := r.read(width)
		if err != nil {
			return nil, err
		}
		switch code {
		case 0: // END_BLOCK
			return nil, errors.New("no blob")
		case 1: // ENTER_SUBBLOCK: skipped whole
			if _, err := r.vbr(8); err != nil {
				return nil, err
			}
			if _, err := r.vbr(4); err != nil {
				return nil, err
			}
			r.align32()
			words, err := r.read(32)
			if err != nil {
				return nil, err
			}
			r.pos += int(words) * 32
		case 2: // DEFINE_ABBREV
			ops, err := readAbbrev(r)
			if err != nil {
				return nil, err
			}
			abbrevs = append(abbrevs, ops)
		case 3: // UNABBREV_RECORD
			if _, err := r.vbr(6); err != nil {
				return nil, err
			}
			n, err := r.vbr(6)
			if err != nil {
				return nil, err
			}
			for ; n > 0; n-- {
				if _, err := r.vbr(6); err != nil {
					return nil, err
				}
			}
		default:
			i := int(code) - 4
			if i >= len(abbrevs) {
				return nil, fmt.Errorf("undefined abbreviation %d", code)
			}
			blob, err := readAbbreviated(r, abbrevs[i])
			if err != nil || blob != nil {
				return blob, err
			}
		}
	}
}

func readAbbrev(r *bitReader) ([]abbrevOp, error) {
	n, err := r.vbr(5)
	if err != nil {
		return nil, err
	}
	var ops []abbrevOp
	for ; n > 0; n-- {
		lit, err := r.read(1)
		if err != nil {
			return nil, err
		}
		if lit == 1 {
			v, err := r.vbr(8)
			if err != nil {
				return nil, err
			}
			ops = append(ops, abbrevOp{literal: true, value: v})
			continue
		}
		enc, err := r.read(3)
		if err != nil {
			return nil, err
		}
		op := abbrevOp{enc: int(enc)}
		switch op.enc {
		case abbrevFixed, abbrevVBR:
			if op.value, err = r.vbr(5); err != nil {
				return nil, err
			}
			if op.value > 64 || op.enc == abbrevVBR && op.value < 2 {
				return nil, fmt.Errorf("abbreviation width %d", op.value)
			}
		case abbrevArray, abbrevChar6, abbrevBlob:
		default:
			return nil, fmt.Errorf("abbreviation encoding %d", enc)
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// readAbbreviated reads one record written with abbreviation ops and
// returns its blob, nil when it has none.
func readAbbreviated(r *bitReader, ops []abbrevOp) ([]byte, error) {
	scalar := func(op abbrevOp) error {
		var err error
		switch op.enc {
		case abbrevFixed:
			_, err = r.read(int(op.value))
		case abbrevVBR:
			_, err = r.vbr(int(op.value))
		case abbrevChar6:
			_, err = r.read(6)
		default:
			err = fmt.Errorf("array of encoding %d", op.enc)
		}
		return err
	}
	for i := 0; i < len(ops); i++ {
		op := ops[i]
		switch {
		case op.literal:
		case op.enc == abbrevArray:
			if i+1 >= len(ops) {
				return nil, errors.New("array without element type")
			}
			n, err := r.vbr(6)
			if err != nil {
				return nil, err
			}
			elt := ops[i+1]
			if n > uint64(len(r.data))*8 || elt.enc == abbrevFixed && elt.value == 0 {
				return nil, errors.New("array longer than its block")
			}
			for ; n > 0; n-- {
				if err := scalar(elt); err != nil {
					return nil, err
				}
			}
			i++
		case op.enc == abbrevBlob:
			n, err := r.vbr(6)
			if err != nil {
				return nil, err
			}
			r.align32()
			start := r.pos / 8
			if n > uint64(len(r.data)) || start+int(n) > len(r.data) {
				return nil, errBitstreamEnd
			}
			return r.data[start : start+int(n)], nil
		default:
			if err := scalar(op); err != nil {
				return nil, err
			}
		}
	}
	return nil, nil
}

// unwrapBitcode returns the raw bitcode inside a bitcode wrapper header
// (0x0B17C0DE: magic, version, offset, size, cputype), or data itself.
func unwrapBitcode(data []byte) ([]byte, error) {
	if len(data) < 20 || binary.LittleEndian.Uint32(data) != bcWrapMagic {
		return data, nil
	}
	off, size := binary.LittleEndian.Uint32(data[8:]), binary.LittleEndian.Uint32(data[12:])
	if uint64(off)+uint64(size) > uint64(len(data)) {
		return nil, errors.New("bitcode wrapper: bad offset or size")
	}
	return data[off : off+size], nil
}
