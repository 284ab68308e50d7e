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
// bitcode: from the bitcode's own symbol table (irsymtab.go), else with
// one llvm-nm run over the rest. The bitcode is the module
// before optimization, so it can reference symbols its native code no
// longer does (calls the compile's optimizer removed); the link-time
// optimizer may keep them, so the rewrite groups must follow them too.
func bitcodeSymbols(ctx context.Context, cacheDir, tmp string, inputs []*Input) (map[*Input][]objSym, error) {
	dir := filepath.Join(tmp, "bcsyms")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	syms := map[*Input][]objSym{}
	byPath := map[string]*Input{}
	keys := map[*Input]string{}
	var list bytes.Buffer
	for i, in := range inputs {
		if in.Bitcode == nil {
			continue
		}
		if in.LTO {
			// A -flto input is the bitcode file itself: its symbols were
			// listed (the same listing) when it was resolved.
			syms[in] = nativeSyms(in)
			continue
		}
		if lines, err := irsymtabLines(in.Bitcode); err == nil {
			syms[in] = parseSymbolLines(lines) // cheaper than the cache's key
			continue
		}
		if key := symbolsKey(toolchains.ConfigOf(ctx), cacheDir, in); key != "" {
			if data, ok := cacheGet(cacheDir, key, ".syms"); ok {
				syms[in] = parseSymbolLines(string(data))
				continue
			}
			keys[in] = key
		}
		p := filepath.Join(dir, fmt.Sprintf("%04d.bc", i))
		if err := os.WriteFile(p, in.Bitcode, 0o644); err != nil {
			return nil, err
		}
		byPath[p] = in
		fmt.Fprintf(&list, "%s\n", p)
	}
	if len(byPath) == 0 {
		return syms, nil
	}
	rsp := filepath.Join(dir, "files.rsp")
	if err := os.WriteFile(rsp, list.Bytes(), 0o644); err != nil {
		return nil, err
	}
	out, err := toolchains.Run(ctx, "llvm-nm", "--format=posix", "-A", "@"+rsp)
	if err != nil {
		return nil, corruptBitcode(ctx, byPath, err)
	}
	lines := splitNM(out, byPath)
	for _, in := range byPath {
		syms[in] = parseSymbolLines(lines[in])
		if key := keys[in]; key != "" {
			cachePut(ctx, cacheDir, key, ".syms", []byte(lines[in]))
		}
	}
	return syms, nil
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

// splitNM splits llvm-nm -A --format=posix output ("FILE: NAME TYPE ...")
// by input: each input's lines without the file name.
func splitNM(out []byte, byPath map[string]*Input) map[*Input]string {
	lines := map[*Input]*strings.Builder{}
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
		if lines[in] == nil {
			lines[in] = &strings.Builder{}
		}
		lines[in].WriteString(line[i+2:])
		lines[in].WriteByte('\n')
	}
	m := map[*Input]string{}
	for in, b := range lines {
		m[in] = b.String()
	}
	return m
}

// parseSymbolLines reads llvm-nm's "NAME TYPE ..." lines, keeping global
// symbols (upper-case types, and w/v for weak ones).
func parseSymbolLines(text string) []objSym {
	var syms []objSym
	for _, line := range strings.Split(text, "\n") {
		if sym, ok := nmSymbol(strings.Fields(line)); ok {
			syms = append(syms, sym)
		}
	}
	return syms
}
