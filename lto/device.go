package lto

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gozyme/gozyme/ad"
	"github.com/gozyme/gozyme/custom"
	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/preopt"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
)

// DeviceJob is the device code of one CUDA source: clang's device-side
// module before optimization (--cuda-device-only -emit-llvm with its
// passes disabled), to be optimized, differentiated and lowered to PTX.
type DeviceJob struct {
	Bitcode   string // the device module, bitcode
	Origin    string // the source, for messages
	OptLevel  string // the compile's -O level
	Arch      string // sm_80, ...
	Libdevice string // libdevice.10.bc, or "" when none was found
	// KeepDebug keeps debug information in the PTX (the compile asked
	// for it); otherwise the line tables the device module was compiled
	// with, for AD's messages, are stripped before code generation.
	KeepDebug bool
	// LoopRecords is ad.Options.GPULoopRecords.
	LoopRecords int64
	// PlainAdjoints is ad.Options.GPUPlainAdjoints (benchmarks only).
	PlainAdjoints bool
	// PrintTypes prints AD's type analysis to stderr (Config.PrintTypes).
	PrintTypes bool
	TempDir    string
	OutPTX     string
	// Note receives AD's remarks (bytes cached per thread), may be nil.
	Note func(string)
}

// RewriteDevice runs the link-time pipeline on device code, the same way as
// on host modules (AD after optimization), and writes PTX: optimize at the
// compile's level, differentiate every Enzyme call (GPU rules: package ad,
// gpu.go), link libdevice for the device math the code calls (after AD, so
// that __nv_sin takes sin's derivative rule rather than AD going through
// libdevice's polynomial), optimize again, and generate PTX with llc.
func RewriteDevice(ctx context.Context, job DeviceJob) error {
	dir, err := os.MkdirTemp(job.TempDir, "device-")
	if err != nil {
		return err
	}
	level := normalizeOptLevel(job.OptLevel)
	pre := filepath.Join(dir, "optimized.bc")
	if err := preopt.Optimize(ctx, job.Bitcode, pre, level, preopt.Options{Warn: warnings(ctx)}); err != nil {
		return fmt.Errorf("%s: optimizing device code before AD: %w", job.Origin, err)
	}
	cur := pre
	bc, err := os.ReadFile(pre)
	if err != nil {
		return err
	}
	if bytes.Contains(bc, []byte("__enzyme_")) {
		post := filepath.Join(dir, "differentiated.ll")
		if err := differentiateDevice(ctx, job, pre, post); err != nil {
			return err
		}
		cur = post
	}
	var text []byte
	if cur == pre {
		text, err = toolchains.Run(ctx, "llvm-dis", "-o", "-", cur)
	} else {
		text, err = os.ReadFile(cur)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", job.Origin, err)
	}
	if math := deviceMathCalls(string(text)); len(math) > 0 {
		if job.Libdevice == "" {
			return fmt.Errorf("%s: device code calls %s, which libdevice defines: give its path with GOZYME_LIBDEVICE=/path/libdevice.10.bc (or a CUDA toolkit with --cuda-path or CUDA_PATH; libdevice is nvvm/libdevice/libdevice.10.bc there)", job.Origin, strings.Join(math, ", "))
		}
		linked := filepath.Join(dir, "linked.bc")
		// Only what is called, internalized: the optimizer inlines it
		// and drops the rest.
		if _, err := toolchains.Run(ctx, "llvm-link", "--only-needed", "--internalize", cur, job.Libdevice, "-o", linked); err != nil {
			return fmt.Errorf("%s: linking libdevice: %w", job.Origin, err)
		}
		cur = linked
	}
	final := filepath.Join(dir, "final.bc")
	args := []string{cur, "-o", final}
	if level == "0" {
		args = append(args, "-passes=mem2reg")
	} else {
		args = append(args, "-O"+level)
	}
	if !job.KeepDebug {
		args = append(args, "-strip-debug")
	}
	if _, err := toolchains.Run(ctx, "opt", args...); err != nil {
		return fmt.Errorf("%s: gozyme generated invalid device IR (please report): %w", job.Origin, err)
	}
	llc := []string{"-march=nvptx64", "-mcpu=" + job.Arch, "-mattr=+" + PTXVersion(job.Arch), "-O" + llcLevel(level), final, "-o", job.OutPTX}
	if _, err := toolchains.Run(ctx, "llc", llc...); err != nil {
		return fmt.Errorf("%s: generating PTX: %w", job.Origin, err)
	}
	return nil
}

// differentiateDevice replaces the Enzyme calls of device module in,
// writing the result as text to out (with run-time activity where AD asks
// for it, as on the host).
func differentiateDevice(ctx context.Context, job DeviceJob, in, out string) error {
	return timeStage(ctx, "differentiate", func() error {
		for _, runtimeActivity := range []bool{false, true} {
			part, err := irutil.LoadPartial(ctx, in, adSeeds)
			if err != nil {
				return fmt.Errorf("%s: %w", job.Origin, err)
			}
			m := part.Module
			rules, err := custom.Find(m)
			if err != nil {
				return fmt.Errorf("%s: %w", job.Origin, err)
			}
			opts := ad.Options{Custom: map[*ir.Func]*ad.Custom{}, RuntimeActivity: runtimeActivity,
				Note: job.Note, GPULoopRecords: job.LoopRecords, GPUPlainAdjoints: job.PlainAdjoints}
			opts.Unparsed = part.Elided
			if job.PrintTypes {
				opts.TypeReport = os.Stderr
			}
			for f, r := range rules {
				opts.Custom[f] = &ad.Custom{Augment: r.Augment, Gradient: r.Gradient, Forward: r.Forward}
			}
			_, err = ad.Differentiate(m, opts)
			if ad.NeedsRuntimeActivity(err) && !runtimeActivity {
				continue
			}
			if err != nil {
				return err
			}
			return part.WriteText(out)
		}
		return nil
	})
}

// nvDecl matches a declaration of a libdevice function.
var nvDecl = regexp.MustCompile(`(?m)^declare [^@\n]*@(__nv_[A-Za-z0-9_]+)\(`)

// deviceMathCalls lists the libdevice functions module text declares.
func deviceMathCalls(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range nvDecl.FindAllStringSubmatch(text, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}

// PTXVersion is the llc feature of the PTX ISA version an architecture
// needs (LLVM 14 knows up to sm_86 and PTX 7.5).
func PTXVersion(arch string) string {
	n := 0
	fmt.Sscanf(strings.TrimPrefix(arch, "sm_"), "%d", &n)
	switch {
	case n >= 86:
		return "ptx71"
	case n >= 80:
		return "ptx70"
	case n >= 75:
		return "ptx63"
	case n >= 72:
		return "ptx61"
	case n >= 70:
		return "ptx60"
	case n >= 60:
		return "ptx50"
	}
	return "ptx42"
}

// llcLevel is llc's -O for an optimization level (llc has no s or z).
func llcLevel(level string) string {
	switch level {
	case "s", "z":
		return "2"
	}
	return level
}
