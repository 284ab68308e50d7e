package lto

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
)

// ReplaceMember returns the archive's members with member index replaced by
// data (same name and header fields). Thin members must have been read.
func (a *Archive) ReplaceMember(index int, data []byte) ([]*Member, error) {
	if index < 0 || index >= len(a.Members) {
		return nil, fmt.Errorf("%s: no member %d", a.Path, index)
	}
	out := make([]*Member, len(a.Members))
	for i, m := range a.Members {
		c := *m
		c.File = ""
		if i == index {
			c.Data = data
		}
		if c.Data == nil && m.File != "" {
			return nil, fmt.Errorf("%s: thin member not read", a.Origin(m))
		}
		out[i] = &c
	}
	return out, nil
}

// WriteArchiveFile writes members as a regular GNU archive at path (via a
// temporary file renamed into place).
func WriteArchiveFile(path string, members []*Member) error {
	data, err := EncodeArchive(members)
	if err != nil {
		return err
	}
	return writeAtomic(path, data)
}

// EncodeArchive encodes members as a GNU archive: a "/" symbol table with
// 32-bit offsets listing each ELF member's defined global symbols, a "//"
// table for names longer than 15 bytes or containing '/', then the members
// in order. Header fields missing from a member are written as zeros, as
// deterministic ar (D) does.
func EncodeArchive(members []*Member) ([]byte, error) {
	// Names and the long-name table.
	var longNames bytes.Buffer
	names := make([]string, len(members))
	for i, m := range members {
		if strings.ContainsAny(m.Name, "\n\x00") {
			return nil, fmt.Errorf("archive member name %q cannot be written", m.Name)
		}
		if len(m.Name) <= 15 && !strings.ContainsAny(m.Name, "/ ") && m.Name != "" && headerField(m.Name, 15, "") == m.Name+strings.Repeat(" ", 15-len(m.Name)) {
			names[i] = m.Name + "/"
			continue
		}
		names[i] = fmt.Sprintf("/%d", longNames.Len())
		longNames.WriteString(m.Name + "/\n")
	}

	// Symbols per member.
	var symNames bytes.Buffer
	var symMember []int
	for i, m := range members {
		for _, s := range definedSymbols(m.Data) {
			symNames.WriteString(s)
			symNames.WriteByte(0)
			symMember = append(symMember, i)
		}
	}
	if (4+4*len(symMember)+symNames.Len())%2 == 1 {
		symNames.WriteByte(0) // GNU ar pads the index with a NUL, counted in its size
	}
	symSize := 4 + 4*len(symMember) + symNames.Len()

	// Layout: member header offsets.
	off := len(arMagic) + arHeaderLen + symSize
	if longNames.Len() > 0 {
		off += arHeaderLen + longNames.Len() + longNames.Len()%2
	}
	offsets := make([]int, len(members))
	for i, m := range members {
		offsets[i] = off
		off += arHeaderLen + len(m.Data) + len(m.Data)%2
	}
	if off > 1<<32-1 {
		return nil, fmt.Errorf("archive too large for a 32-bit symbol table (%d bytes)", off)
	}

	var b bytes.Buffer
	b.Grow(off)
	b.WriteString(arMagic)
	symtab := make([]byte, 4+4*len(symMember))
	binary.BigEndian.PutUint32(symtab, uint32(len(symMember)))
	for i, mi := range symMember {
		binary.BigEndian.PutUint32(symtab[4+4*i:], uint32(offsets[mi]))
	}
	symtab = append(symtab, symNames.Bytes()...)
	writeMember(&b, "/", "0", "0", "0", "0", symtab)
	if longNames.Len() > 0 {
		writeMember(&b, "//", "", "", "", "", longNames.Bytes())
	}
	for i, m := range members {
		writeMember(&b, names[i], or0(m.Date), or0(m.UID), or0(m.GID), orMode(m.Mode), m.Data)
	}
	return b.Bytes(), nil
}

// writeMember writes one header and its padded data.
func writeMember(b *bytes.Buffer, name, date, uid, gid, mode string, data []byte) {
	b.WriteString(headerField(name, 16, "/"))
	b.WriteString(headerField(date, 12, "0"))
	b.WriteString(headerField(uid, 6, "0"))
	b.WriteString(headerField(gid, 6, "0"))
	b.WriteString(headerField(mode, 8, "644"))
	fmt.Fprintf(b, "%-10d`\n", len(data))
	b.Write(data)
	if len(data)%2 == 1 {
		b.WriteByte('\n')
	}
}

// headerField pads a member header field to its width in bytes; a value
// that does not fit, or is not printable ASCII (a damaged input archive),
// is written as def.
func headerField(s string, width int, def string) string {
	ok := len(s) <= width
	for i := 0; ok && i < len(s); i++ {
		ok = s[i] >= 0x20 && s[i] < 0x7f
	}
	if !ok {
		s = def
	}
	return s + strings.Repeat(" ", width-len(s))
}

func or0(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

func orMode(s string) string {
	if s == "" {
		return "644"
	}
	return s
}

// definedSymbols lists the global and weak symbols an ELF object defines,
// in symbol-table order, as ar puts them in the archive index. Non-ELF
// data yields none.
func definedSymbols(data []byte) []string {
	syms, err := elfSymbols(data)
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range syms {
		if s.defined {
			out = append(out, s.name)
		}
	}
	return out
}
