package lto

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const (
	arMagic     = "!<arch>\n"
	thinMagic   = "!<thin>\n"
	arHeaderLen = 60
)

// Archive is a parsed ar archive (GNU, BSD or GNU thin).
type Archive struct {
	Path    string // as named on the command line
	Thin    bool   // members live in files beside the archive
	Members []*Member

	// armap is the archive's GNU symbol index ("/" or "/SYM64/"): the
	// global symbols each member defines, as ar wrote them and ld reads
	// them; nil when the archive has none (see armap.go).
	armap []armapEntry
}

// Member is one archive member. Duplicate names are allowed (ar q); Index
// keeps them apart.
type Member struct {
	Name   string // resolved name (long and BSD names expanded)
	Index  int    // position among the archive's members, symbol tables excluded
	Offset int    // the offset of its header in the archive (the symbol index names members by it)
	Data   []byte // contents; for thin archives read from File
	File   string // thin archives: the member's path; empty otherwise

	// Header fields kept for rewriting the archive.
	Date, UID, GID, Mode string
}

// Origin names a member in messages, as "lib/libm.a(x.o)".
func (a *Archive) Origin(m *Member) string {
	return fmt.Sprintf("%s(%s)", a.Path, m.Name)
}

// IsArchive reports whether data starts like an ar archive (regular or thin).
func IsArchive(data []byte) bool {
	return bytes.HasPrefix(data, []byte(arMagic)) || bytes.HasPrefix(data, []byte(thinMagic))
}

// ReadArchive reads and parses the archive at path. For a thin archive the
// member files are read too, relative to the archive's directory.
func ReadArchive(path string) (*Archive, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := ParseArchive(data, path)
	if err != nil {
		return nil, err
	}
	if a.Thin {
		for _, m := range a.Members {
			if m.Data, err = os.ReadFile(m.File); err != nil {
				return nil, fmt.Errorf("%s: thin archive member: %v", a.Origin(m), err)
			}
		}
	}
	return a, nil
}

// ParseArchive parses archive bytes; origin is the archive's path, used in
// errors and to locate thin members. Member data aliases data.
func ParseArchive(data []byte, origin string) (*Archive, error) {
	a := &Archive{Path: origin}
	switch {
	case bytes.HasPrefix(data, []byte(arMagic)):
	case bytes.HasPrefix(data, []byte(thinMagic)):
		a.Thin = true
	default:
		return nil, fmt.Errorf("%s: not an ar archive", origin)
	}
	var longNames []byte
	for off := len(arMagic); off < len(data); {
		if data[off] == '\n' && off%2 == 1 { // padding after an odd-sized member
			off++
			continue
		}
		if len(data)-off < arHeaderLen {
			return nil, fmt.Errorf("%s: truncated member header at offset %d", origin, off)
		}
		h := data[off : off+arHeaderLen]
		if string(h[58:60]) != "`\n" {
			return nil, fmt.Errorf("%s: corrupt member header at offset %d", origin, off)
		}
		rawName := strings.TrimRight(string(h[0:16]), " ")
		size, err := strconv.ParseInt(strings.TrimSpace(string(h[48:58])), 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("%s: bad member size %q at offset %d", origin, h[48:58], off)
		}
		body := off + arHeaderLen
		special := rawName == "/" || rawName == "/SYM64/" || rawName == "//"
		stored := !a.Thin || special // thin archives store only their tables
		end := body
		if stored {
			end = body + int(size)
			if int64(end-body) != size || end > len(data) {
				return nil, fmt.Errorf("%s: member at offset %d runs past the end of the archive", origin, off)
			}
		}
		contents := data[body:end]
		next := end + (end-body)%2
		if !stored {
			next = end
		}

		name := rawName
		switch {
		case rawName == "/" || rawName == "/SYM64/":
			a.armap = parseArmap(contents, rawName == "/SYM64/")
			off = next
			continue
		case rawName == "//":
			longNames = contents
			off = next
			continue
		case strings.HasPrefix(rawName, "#1/"): // BSD: name precedes the data
			n, err := strconv.Atoi(rawName[3:])
			if err != nil || n < 0 || n > len(contents) {
				return nil, fmt.Errorf("%s: bad BSD member name %q at offset %d", origin, rawName, off)
			}
			name = strings.TrimRight(string(contents[:n]), "\x00")
			contents = contents[n:]
		case len(rawName) > 1 && rawName[0] == '/' && isDigits(rawName[1:]):
			n, _ := strconv.Atoi(rawName[1:])
			if n >= len(longNames) {
				return nil, fmt.Errorf("%s: long name offset %d outside the name table", origin, n)
			}
			name = string(longNames[n:])
			if i := strings.IndexByte(name, '\n'); i >= 0 {
				name = name[:i]
			}
			name = strings.TrimSuffix(name, "/")
		default:
			name = strings.TrimSuffix(rawName, "/")
		}
		if strings.HasPrefix(name, "__.SYMDEF") { // BSD symbol table
			off = next
			continue
		}
		m := &Member{
			Name:   name,
			Index:  len(a.Members),
			Offset: off,
			Date:   strings.TrimSpace(string(h[16:28])),
			UID:    strings.TrimSpace(string(h[28:34])),
			GID:    strings.TrimSpace(string(h[34:40])),
			Mode:   strings.TrimSpace(string(h[40:48])),
		}
		if a.Thin {
			m.File = name
			if !filepath.IsAbs(name) {
				m.File = filepath.Join(filepath.Dir(origin), name)
			}
		} else {
			m.Data = contents
		}
		a.Members = append(a.Members, m)
		off = next
	}
	return a, nil
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
