package toolchains

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// FindVersioned returns the path of the tool NAME of an LLVM-based
// toolchain of the given major version. It looks, in order, in directory
// dir (when not ""; dirEnv is the variable that gave it, for the error),
// for NAME-VERSION on $PATH and in /usr/lib/llvm-VERSION/bin. Answers are
// cached; install names what to install when the tool is missing.
func FindVersioned(dir, dirEnv, name, version, install string) (string, error) {
	key := dir + "\x00" + name + "\x00" + version
	toolMu.Lock()
	defer toolMu.Unlock()
	if p, ok := toolCache[key]; ok {
		return p, nil
	}
	var candidates []string
	if dir != "" {
		candidates = append(candidates, filepath.Join(dir, name))
	}
	candidates = append(candidates, name+"-"+version, "/usr/lib/llvm-"+version+"/bin/"+name)
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			toolCache[key] = p
			return p, nil
		}
	}
	return "", fmt.Errorf("cannot find %s-%s (%s, or set %s)", name, version, install, dirEnv)
}

// SplitJob splits one job line a clang-style driver prints under -###:
// arguments in double quotes, with \ escaping ", \ and $.
func SplitJob(line string) []string {
	var out []string
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		var b strings.Builder
		for i++; i < len(line) && line[i] != '"'; i++ {
			if line[i] == '\\' && i+1 < len(line) {
				i++
			}
			b.WriteByte(line[i])
		}
		out = append(out, b.String())
	}
	return out
}
