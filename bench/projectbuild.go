package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// The build cost of a real C project with no Enzyme calls (issue 22):
// Lua, built the way its makefile builds it (each source compiled with
// -O2, the library archived, the interpreter linked against it) and as
// onelua.c alone, by clang-14 and by gozyme-cc: CPU time (user + system of
// every process), wall time (the commands one after another) and peak
// memory (of the largest process), least of buildRuns, next to the goal of
// 1.3x clang-14's. Lua's source is not part of gozyme: GOZYME_BENCH_LUA
// names a source directory (or a git directory, whose HEAD is read), else
// luaSources are tried; without one the section says so and is skipped.

var luaSources = []string{"/work/.mirror/lua+lua/repo", "/usr/src/lua"}

// luaFlags are the CFLAGS of Lua's makefile, less its list of warnings.
var luaFlags = []string{"-O2", "-Wall", "-std=c99", "-DLUA_USE_LINUX", "-fno-stack-protector", "-fno-common"}

const projectGoal = 1.3

// projectBuildBench builds Lua both ways and reports the ratios.
func projectBuildBench(root, tmp string) (string, error) {
	head := "\n### A real C project with no Enzyme calls: Lua, compile + archive + link, -O2 (goal ≤ 1.3x clang-14)\n\n"
	src, how := findLua(filepath.Join(tmp, "lua-src"))
	if src == "" {
		fmt.Fprintln(os.Stderr, "bench: Lua build skipped:", how)
		return head + "Skipped: " + how + ".\n", nil
	}
	clang, err := exec.LookPath("clang-14")
	if err != nil {
		return "", err
	}
	gozyme, err := filepath.Abs(filepath.Join(root, "bin", "gozyme-cc"))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(head)
	fmt.Fprintf(&b, "Source: %s; least of %d builds each; CPU time of every process, wall time of the commands one after another, peak memory of the largest process.\n\n", how, buildRuns)
	b.WriteString("| build | clang-14 CPU, wall, peak | gozyme-cc CPU, wall, peak | ratio CPU | ratio wall | ratio peak |\n|---|---:|---:|---:|---:|---:|\n")
	for _, build := range []struct {
		name string
		run  func(cc, src, dir string, c *buildCost) error
	}{{"makefile (lua + liblua.a)", buildLuaMake}, {"onelua.c", buildOneLua}} {
		// The two compilers take turns, so that other work on the machine
		// weighs on both alike.
		var costs [2]buildCost
		for r := 0; r < buildRuns; r++ {
			for i, cc := range []string{clang, gozyme} {
				dir := filepath.Join(tmp, fmt.Sprintf("lua-build-%d", i))
				os.RemoveAll(dir)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return "", err
				}
				var c buildCost
				if err := build.run(cc, src, dir, &c); err != nil {
					return "", fmt.Errorf("Lua %s with %s: %v", build.name, filepath.Base(cc), err)
				}
				costs[i] = c.least(costs[i], r == 0)
			}
		}
		c, g := costs[0], costs[1]
		fmt.Fprintf(&b, "| %s | %s, %s, %.0f MiB | %s, %s, %.0f MiB | %s | %s | %s |\n", build.name,
			seconds(c.cpu), seconds(c.wall), c.peak, seconds(g.cpu), seconds(g.wall), g.peak,
			goalRatio(g.cpu/c.cpu), goalRatio(g.wall/c.wall), goalRatio(g.peak/c.peak))
	}
	return b.String(), nil
}

// goalRatio prints a ratio, marked where it exceeds projectGoal.
func goalRatio(r float64) string {
	if r > projectGoal {
		return fmt.Sprintf("**%.2fx** (> %.1fx)", r, projectGoal)
	}
	return fmt.Sprintf("%.2fx", r)
}

// least keeps the least CPU time, wall time and peak memory of c and best
// (c alone when first).
func (c buildCost) least(best buildCost, first bool) buildCost {
	if first {
		return c
	}
	return buildCost{min(best.cpu, c.cpu), min(best.wall, c.wall), min(best.peak, c.peak)}
}

// luaDir is the directory holding Lua's sources in a source tree: src/ in
// a release, the top in Lua's own repository.
func luaDir(tree string) string {
	if fileExists(filepath.Join(tree, "src", "lua.c")) {
		return filepath.Join(tree, "src")
	}
	return tree
}

// findLua returns a directory with Lua's sources (extracting a git
// directory's HEAD into dest) and where they came from, or "" and why not.
func findLua(dest string) (string, string) {
	candidates := luaSources
	if env := os.Getenv("GOZYME_BENCH_LUA"); env != "" {
		candidates = []string{env}
	}
	for _, c := range candidates {
		if fileExists(filepath.Join(c, "HEAD")) && fileExists(filepath.Join(c, "objects")) {
			if err := os.MkdirAll(dest, 0o755); err != nil {
				return "", err.Error()
			}
			archive := exec.Command("sh", "-c", `git --git-dir="$1" archive HEAD | tar -x -C "$2"`, "sh", c, dest)
			if out, err := archive.CombinedOutput(); err != nil {
				return "", fmt.Sprintf("extracting %s: %v %s", c, err, out)
			}
			if dir := luaDir(dest); fileExists(filepath.Join(dir, "lua.c")) && fileExists(filepath.Join(dir, "onelua.c")) {
				return dir, "HEAD of " + c
			}
			continue
		}
		if dir := luaDir(c); fileExists(filepath.Join(dir, "lua.c")) && fileExists(filepath.Join(dir, "onelua.c")) {
			return dir, c
		}
	}
	return "", fmt.Sprintf("no Lua source (lua.c and onelua.c) in %s; set GOZYME_BENCH_LUA to a Lua source or git directory", strings.Join(candidates, ", "))
}

// luaLibSources are the sources of liblua.a in dir: every .c but the
// programs (lua.c, luac.c) and onelua.c.
func luaLibSources(dir string) ([]string, error) {
	all, err := filepath.Glob(filepath.Join(dir, "*.c"))
	if err != nil {
		return nil, err
	}
	var lib []string
	for _, f := range all {
		switch filepath.Base(f) {
		case "lua.c", "luac.c", "onelua.c":
			continue
		}
		lib = append(lib, f)
	}
	sort.Strings(lib)
	return lib, nil
}

// buildLuaMake builds the interpreter from the sources in src as Lua's
// makefile does, one command at a time, in dir.
func buildLuaMake(cc, src, dir string, c *buildCost) error {
	lib, err := luaLibSources(src)
	if err != nil {
		return err
	}
	var objs []string
	for _, f := range append(lib, filepath.Join(src, "lua.c")) {
		obj := filepath.Join(dir, strings.TrimSuffix(filepath.Base(f), ".c")+".o")
		if err := c.measured(nil, cc, append(append([]string{}, luaFlags...), "-c", f, "-o", obj)...); err != nil {
			return err
		}
		objs = append(objs, obj)
	}
	archive := filepath.Join(dir, "liblua.a")
	if err := c.measured(nil, "ar", append([]string{"rcs", archive}, objs[:len(objs)-1]...)...); err != nil {
		return err
	}
	return c.measured(nil, cc, "-o", filepath.Join(dir, "lua"), "-Wl,-E", objs[len(objs)-1], archive, "-lm", "-ldl")
}

// buildOneLua compiles and links src/onelua.c, all of Lua in one TU.
func buildOneLua(cc, src, dir string, c *buildCost) error {
	args := append(append([]string{}, luaFlags...), filepath.Join(src, "onelua.c"), "-o", filepath.Join(dir, "lua"), "-lm", "-ldl")
	return c.measured(nil, cc, args...)
}
