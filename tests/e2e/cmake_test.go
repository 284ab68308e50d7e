package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestCMakeProject configures tests/projects/cmake (a static library and an
// executable) with cmake/gozyme-toolchain.cmake, builds it in Release, runs
// it, and checks that CMake compiled with gozyme-cc into fat objects.
func TestCMakeProject(t *testing.T) {
	setup(t)
	src := copyProject(t, "cmake")
	env := toolEnv()
	build := cmakeBuild(t, src, env, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON")

	exe := filepath.Join(build, "area")
	checkDerivatives(t, run(t, build, env, exe), map[string]int{"area": 4})
	checkNoBitcode(t, exe)

	data, err := os.ReadFile(filepath.Join(build, "compile_commands.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []struct{ Directory, Command, File, Output string }
	if err := json.Unmarshal(data, &cmds); err != nil {
		t.Fatalf("compile_commands.json: %v", err)
	}
	var files []string
	for _, c := range cmds {
		files = append(files, filepath.Base(c.File))
		if !strings.HasPrefix(c.Command, tool("gozyme-cc")+" ") {
			t.Errorf("CMake compiled %s with %q, want %s", c.File, c.Command, tool("gozyme-cc"))
		}
		out := c.Output // CMake 3.25 writes none: then take -o's value
		if f := strings.Fields(c.Command); out == "" {
			for i := 0; i+1 < len(f); i++ {
				if f[i] == "-o" {
					out = f[i+1]
				}
			}
		}
		if out == "" {
			t.Errorf("no output object for %s in %q", c.File, c.Command)
			continue
		}
		if !filepath.IsAbs(out) {
			out = filepath.Join(c.Directory, out)
		}
		checkFatObject(t, out)
	}
	sort.Strings(files)
	if strings.Join(files, " ") != "main.c shapes.c" {
		t.Errorf("compile_commands.json lists %v, want main.c and shapes.c", files)
	}
}

// cmakeBuild configures the project src with cmake/gozyme-toolchain.cmake
// in a Release build directory (extra: further cmake options), builds it on
// 2 cores and returns the build directory.
func cmakeBuild(t *testing.T, src string, env []string, extra ...string) string {
	build := filepath.Join(t.TempDir(), "build")
	timed(t, "cmake configure", func() {
		run(t, src, env, "cmake", append([]string{"-S", src, "-B", build,
			"-DCMAKE_TOOLCHAIN_FILE=" + filepath.Join(repoRoot, "cmake", "gozyme-toolchain.cmake"),
			"-DGOZYME_BIN=" + binDir, "-DCMAKE_BUILD_TYPE=Release"}, extra...)...)
	})
	timed(t, "cmake --build", func() { run(t, src, env, "cmake", "--build", build, "--parallel", "2") })
	return build
}
