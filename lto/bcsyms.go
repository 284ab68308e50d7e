package lto

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
		return nil, corruptBitcode(ctx, byPath, err)
	}
	return parseNM(out, byPath), nil
}

// corruptBitcode names the input whose bitcode llvm-nm could not read (it
// may abort without naming it) by reading each alone.
func corruptBitcode(ctx context.Context, byPath map[string]*Input, err error) error {
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		_, perr := toolchains.Run(ctx, "llvm-nm", p)
		var te *toolchains.ToolError
		if perr == nil || !errors.As(perr, &te) {
			continue
		}
		msg := strings.TrimSpace(strings.SplitN(te.Stderr, "\n", 2)[0])
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, filepath.Base(te.Argv[0])+": error: "), p+": ")
		return fmt.Errorf("%s: corrupt embedded bitcode: %s", byPath[p].Origin, msg)
	}
	return fmt.Errorf("reading the symbols of embedded bitcode: %v", err)
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
		if in == nil {
			continue
		}
		if sym, ok := nmSymbol(strings.Fields(line[i+2:])); ok {
			syms[in] = append(syms[in], sym)
		}
	}
	return syms
}
