package lto

import (
	"encoding/binary"
	"errors"
	"fmt"
)

var (
	bcMagic      = []byte{'B', 'C', 0xC0, 0xDE}
	bcWrapMagic  = uint32(0x0B17C0DE)
	errNoBitcode = errors.New("not LLVM bitcode")
)

// countModules counts the bitcode modules laid end to end in b by walking
// the top-level blocks of the bitstream: a top-level block header is the
// 2-bit ENTER_SUBBLOCK abbrev, a vbr8 block id, a vbr4 abbrev width, padding
// to 32 bits and a 32-bit length in words. Zero padding between or after
// modules (section alignment) is allowed.
func countModules(b []byte) (int, error) {
	n := 0
	for off := 0; off < len(b); {
		if allZero(b[off:]) {
			break
		}
		if len(b)-off >= 20 && binary.LittleEndian.Uint32(b[off:]) == bcWrapMagic {
			// Wrapper header: magic, version, offset, size, cputype.
			start := int(binary.LittleEndian.Uint32(b[off+8:]))
			size := int(binary.LittleEndian.Uint32(b[off+12:]))
			if start < 20 || size < 0 || off+start+size > len(b) {
				return 0, fmt.Errorf("bad bitcode wrapper header at offset %d", off)
			}
			if _, err := moduleEnd(b[off+start : off+start+size]); err != nil {
				return 0, err
			}
			off += start + size
			n++
			continue
		}
		end, err := moduleEnd(b[off:])
		if err != nil {
			return 0, fmt.Errorf("at offset %d: %v", off, err)
		}
		off += end
		n++
		// Tolerate alignment padding up to the next word.
		for off < len(b) && off%4 != 0 && b[off] == 0 {
			off++
		}
	}
	if n == 0 {
		return 0, errNoBitcode
	}
	return n, nil
}

// moduleEnd returns the length of the module starting at b[0]: its magic
// and its top-level blocks, up to the next magic or the end of b.
func moduleEnd(b []byte) (int, error) {
	if len(b) < 4 || string(b[:4]) != string(bcMagic) {
		return 0, errNoBitcode
	}
	off := 4
	for off < len(b) {
		if len(b)-off >= 4 && string(b[off:off+4]) == string(bcMagic) {
			break
		}
		if allZero(b[off:]) {
			break
		}
		if len(b)-off < 8 {
			return 0, fmt.Errorf("truncated block header at offset %d", off)
		}
		w := binary.LittleEndian.Uint64(b[off:])
		if w&3 != 1 {
			return 0, fmt.Errorf("expected a block at offset %d", off)
		}
		// vbr8 block id then vbr4 abbrev width, all within the first word.
		pos := uint(2)
		for i := 0; ; i++ {
			chunk := (w >> pos) & 0xff
			pos += 8
			if chunk&0x80 == 0 {
				break
			}
			if i > 2 {
				return 0, fmt.Errorf("bad block id at offset %d", off)
			}
		}
		for i := 0; ; i++ {
			chunk := (w >> pos) & 0xf
			pos += 4
			if chunk&0x8 == 0 {
				break
			}
			if i > 3 {
				return 0, fmt.Errorf("bad abbrev width at offset %d", off)
			}
		}
		hdr := int((pos + 31) / 32 * 4)
		if len(b)-off < hdr+4 {
			return 0, fmt.Errorf("truncated block header at offset %d", off)
		}
		words := int(binary.LittleEndian.Uint32(b[off+hdr:]))
		next := off + hdr + 4 + 4*words
		if words < 0 || next > len(b) || next < off {
			return 0, fmt.Errorf("block at offset %d runs past the end (%d words)", off, words)
		}
		off = next
	}
	return off, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
