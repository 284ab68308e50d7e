package lto

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gozyme/gozyme/toolchains"
)

// bitcodeSymbols lists the global symbols of every input's embedded
// bitcode (one llvm-nm run over all of them). The bitcode is the module
// before optimization, so it can reference symbols its native code no
// longer does (calls the compile's optimizer removed); the link-time
// optimizer may keep them, so the rewrite groups must follow them too.
func bitcodeSymbols(ctx context.Context, tmp string, inputs []*Input) (map[*Input][]objSym, error) {
	dir := filepath.Join(tmp, "bcsyms")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	byPath := map[string]*Input{}
	var list bytes.Buffer
	for i, in := range inputs {
		if in.Bitcode == nil {
			continue
		}
		p := filepath.Join(dir, fmt.Sprintf("%04d.bc", i))
		if err := os.WriteFile(p, in.Bitcode, 0o644); err != nil {
			return nil, err
		}
		byPath[p] = in
		fmt.Fprintf(&list, "%s\n", p)
	}
	if len(byPath) == 0 {
		return nil, nil
	}
	rsp := filepath.Join(dir, "files.rsp")
	if err := os.WriteFile(rsp, list.Bytes(), 0o644); err != nil {
		return nil, err
	}
	out, err := toolchains.Run(ctx, "llvm-nm", "--format=posix", "-A", "@"+rsp)
	if err != nil {
		msg := err.Error()
		for p, in := range byPath {
			msg = strings.ReplaceAll(msg, p, in.Origin)
		}
		return nil, fmt.Errorf("reading the symbols of embedded bitcode: %s", msg)
	}
	return parseNM(out, byPath), nil
}

// parseNM reads llvm-nm -A --format=posix lines, "FILE: NAME TYPE ...",
// keeping global symbols (upper-case types, and w/v for weak ones).
func parseNM(out []byte, byPath map[string]*Input) map[*Input][]objSym {
	syms := map[*Input][]objSym{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		i := strings.Index(line, ": ")
		if i < 0 {
			continue
		}
		in := byPath[line[:i]]
		f := strings.Fields(line[i+2:])
		if in == nil || len(f) < 2 || len(f[1]) != 1 {
			continue
		}
		t := f[1][0]
		weak := t == 'W' || t == 'V' || t == 'w' || t == 'v'
		if !weak && (t < 'A' || t > 'Z') {
			continue // a local symbol
		}
		syms[in] = append(syms[in], objSym{name: f[0], defined: t != 'U' && t != 'w' && t != 'v', weak: weak})
	}
	return syms
}
