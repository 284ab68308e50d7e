package wrapper

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gozyme/gozyme/lto"
)

// link runs a link command line with gozyme-ld as clang's linker. The
// linker clang would have used goes to gozyme-ld in GOZYME_REAL_LD, the
// line's last -O level in GOZYME_OPT_LEVEL. A plain link line (its inputs
// hold no Enzyme call, see scanLink) is clang's own.
func (d *driver) link(args []string, cmd *Command, plain bool) (int, error) {
	return d.linkNaming(args, cmd, plain, nil)
}

// linkNaming is link, with sources naming the source each temporary
// object of a compile-and-link line was compiled from: gozyme-ld names
// the source in its messages (GOZYME_OBJECT_SOURCES).
func (d *driver) linkNaming(args []string, cmd *Command, plain bool, sources map[string]string) (int, error) {
	if plain {
		// No Enzyme call: exactly the plain link, without gozyme-ld.
		return 1, d.exec(args)
	}
	ld, err := gozymeLD()
	if err != nil {
		return 1, err
	}
	real, err := d.realLinker(cmd)
	if err != nil {
		return 1, err
	}
	// The child gozyme-ld's configuration: the environment, with these.
	cfg := d.cfg
	env := append(os.Environ(), "GOZYME_REAL_LD="+real)
	cfg.RealLD = real
	if len(sources) > 0 {
		names, err := json.Marshal(sources)
		if err != nil {
			return 1, err
		}
		env = append(env, lto.ObjectSourcesEnv+"="+string(names))
		cfg.ObjectSources = sources
	}
	if cmd.OptGiven {
		env = append(env, "GOZYME_OPT_LEVEL="+cmd.OptLevel)
		cfg.OptLevel = cmd.OptLevel
	}
	if ownLinker(ld) {
		if code, ok := d.linkInProcess(args, ld, cfg); ok {
			return code, nil
		}
	}
	args = append(append([]string(nil), args...), "--ld-path="+ld)
	return d.run(args, env)
}

// gozymeLD finds gozyme-ld beside the running executable (symlinks
// resolved), else on PATH.
func gozymeLD() (string, error) {
	self, err := os.Executable()
	if err == nil {
		if r, err := filepath.EvalSymlinks(self); err == nil {
			self = r
		}
		p := filepath.Join(filepath.Dir(self), "gozyme-ld")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath("gozyme-ld")
	if err != nil {
		return "", fmt.Errorf("cannot find gozyme-ld beside %s or on PATH", self)
	}
	return p, nil
}

// ownLinker reports whether gozyme-ld at path is the one installed with
// this program (beside it, and a program, not a script standing in for
// it): then its work can be done in this process.
func ownLinker(path string) bool {
	self, err := os.Executable()
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	return filepath.Dir(self) == filepath.Dir(path) && isELF(path)
}

// realLinker returns the linker clang itself would run for cmd: the last
// --ld-path, else the one -fuse-ld names, else the default ld, looked up
// the way clang does (its program paths, -B, --gcc-toolchain, target).
func (d *driver) realLinker(cmd *Command) (string, error) {
	var ldPath, fuseLD, fuseArg string
	var lookup []string // options that change where clang finds programs
	for _, it := range cmd.Items {
		if it.Kind != Flag {
			continue
		}
		a := it.Args[0]
		switch {
		case strings.HasPrefix(a, "--ld-path="):
			ldPath = a[len("--ld-path="):]
		case strings.HasPrefix(a, "-fuse-ld="):
			fuseLD, fuseArg = a[len("-fuse-ld="):], a
		case a == "-fuse-ld":
			fuseLD, fuseArg = "", a
		case strings.HasPrefix(a, "-B"), strings.HasPrefix(a, "--prefix"),
			strings.HasPrefix(a, "--gcc-toolchain="), a == "-gcc-toolchain",
			a == "-target", strings.HasPrefix(a, "--target="),
			strings.HasPrefix(a, "--sysroot"):
			lookup = append(lookup, it.Args...)
		}
	}
	if ldPath != "" {
		if strings.ContainsRune(ldPath, '/') {
			return ldPath, nil
		}
		if p, ok := d.programPath(lookup, ldPath); ok {
			return p, nil
		}
		return "", fmt.Errorf("cannot find the linker given by --ld-path=%s", ldPath)
	}
	name := "ld"
	if fuseLD != "" && fuseLD != "ld" {
		if filepath.IsAbs(fuseLD) {
			return fuseLD, nil
		}
		name = "ld." + fuseLD
	}
	if p, ok := d.programPath(lookup, name); ok {
		return p, nil
	}
	if name == "ld" {
		return "/usr/bin/ld", nil
	}
	return "", errors.New("invalid linker name in argument '" + fuseArg + "'")
}

// programPath asks clang where it finds the program name
// (-print-prog-name), and checks that the answer is executable. Answers
// are cached (see cachedProgName): asking clang costs as much as a link.
func (d *driver) programPath(lookup []string, name string) (string, bool) {
	args := append(append([]string(nil), lookup...), "-print-prog-name="+name)
	p := d.askClang(args, strings.TrimSpace)
	if p == "" {
		return "", false
	}
	if found, err := exec.LookPath(p); err == nil {
		if abs, err := filepath.Abs(found); err == nil {
			return abs, true
		}
		return found, true
	}
	return "", false
}

// askClang returns clang's answer to the query args (-print-prog-name=,
// -print-search-dirs), taken from its output by parse, "" when there is
// none. Answers are cached (see progNameCache): asking clang costs as much
// as a link.
func (d *driver) askClang(args []string, parse func(out string) string) string {
	if answer, ok := cachedProgName(d.clang, args); ok {
		return answer
	}
	out, err := exec.Command(d.clang, args...).Output()
	if err != nil {
		return ""
	}
	answer := parse(string(out))
	if answer != "" {
		storeProgName(d.clang, args, answer)
	}
	return answer
}

// progNameCache is the file caching clang's answer to args: it is keyed by
// the clang binary (path, size, modification time) and the arguments, so a
// new clang or other options ask again. "" when there is no cache dir.
func progNameCache(clang string, args []string) string {
	st, err := os.Stat(clang)
	if err != nil {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d", clang, st.Size(), st.ModTime().UnixNano())
	for _, a := range args {
		fmt.Fprintf(h, "\x00%s", a)
	}
	return filepath.Join(dir, "gozyme", "progname-"+hex.EncodeToString(h.Sum(nil))[:32])
}

func cachedProgName(clang string, args []string) (string, bool) {
	f := progNameCache(clang, args)
	if f == "" {
		return "", false
	}
	data, err := os.ReadFile(f)
	if err != nil {
		return "", false
	}
	return string(data), true
}

// storeProgName records an answer, atomically (temp file + rename);
// failing to cache is harmless.
func storeProgName(clang string, args []string, answer string) {
	f := progNameCache(clang, args)
	if f == "" || os.MkdirAll(filepath.Dir(f), 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(f), ".progname-")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(answer)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), f) != nil {
		os.Remove(tmp.Name())
	}
}
