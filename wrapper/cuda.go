package wrapper

import (
	"context"
	"crypto/sha256"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gozyme/gozyme/lto"
	"github.com/gozyme/gozyme/toolchains"
)

// CUDA sources (.cu, -x cuda). clang-14 compiles them in two passes, the
// device code for the GPU and the host code calling it; gozyme drives the
// two itself:
//  1. the device module, as clang emits it before optimizing, goes through
//     the link-time pipeline for device code (lto.RewriteDevice: optimize,
//     differentiate the Enzyme calls with the GPU rules, link libdevice,
//     optimize, llc-14 to PTX);
//  2. the host compile embeds that PTX (or, with a CUDA toolkit's ptxas and
//     fatbinary, a fat binary of SASS and PTX) and registers the kernels
//     with the CUDA runtime, as clang's own CUDA compile does; its object
//     is a fat object like every other, and links as usual (-lcudart).
// Without a CUDA toolkit, gozyme's own header (cudahdr/) stands in for the
// toolkit's, included in both passes as clang includes its CUDA wrapper
// header; kernel launches use the CUDA 9.2+ runtime interface
// (cudaLaunchKernel), which the toolkit's version would have selected.

//go:embed cudahdr
var cudaHeaders embed.FS

// defaultGPUArch is the architecture compiled for without --cuda-gpu-arch.
const defaultGPUArch = "sm_80"

// cudaSDKVersion is the CUDA version clang is told the runtime has where
// no toolkit says: 11.5, the newest clang-14 knows.
const cudaSDKVersion = "11.5"

// cudaSources returns the CUDA sources of a command line.
func cudaSources(cmd *Command) []Input {
	var out []Input
	for _, in := range cmd.Sources() {
		if in.Lang == "cuda" {
			out = append(out, in)
		}
	}
	return out
}

// cudaFlags is what a compile line says about CUDA: the architectures,
// the toolkit path, whether it has debug info.
type cudaFlags struct {
	archs    []string
	cudaPath string
	debug    bool
	flags    []string // every option, -x, inputs, -o, -c and dependency options left out
}

// parseCUDAFlags reads cmd's options for a CUDA compile.
func parseCUDAFlags(cmd *Command) cudaFlags {
	var cf cudaFlags
	for _, it := range cmd.Items {
		switch it.Kind {
		case Language, Source, LinkerInput, Output:
			continue
		}
		a := it.Args[0]
		switch {
		case strings.HasPrefix(a, "--cuda-gpu-arch="):
			cf.archs = append(cf.archs, strings.TrimPrefix(a, "--cuda-gpu-arch="))
			continue
		case strings.HasPrefix(a, "--offload-arch="):
			cf.archs = append(cf.archs, strings.TrimPrefix(a, "--offload-arch="))
			continue
		case strings.HasPrefix(a, "--cuda-path="):
			cf.cudaPath = strings.TrimPrefix(a, "--cuda-path=")
		case a == "-c":
			continue
		case strings.HasPrefix(a, "-M") || a == "--write-dependencies" || a == "--write-user-dependencies":
			continue
		case strings.HasPrefix(a, "-g") && a != "-g0" && !strings.HasPrefix(a, "-gno-") && !strings.HasPrefix(a, "-gsplit"):
			cf.debug = true
		case a == "-g0":
			cf.debug = false
		}
		cf.flags = append(cf.flags, it.Args...)
	}
	if len(cf.archs) == 0 {
		cf.archs = []string{defaultGPUArch}
	}
	return cf
}

// cudaHeaderDir returns a directory holding gozyme's CUDA headers: one
// per header version in the user's cache directory, so that dependency
// files (-MD) name headers that stay, else one in the compile's temporary
// directory.
func cudaHeaderDir(tmp *tempDir) (string, error) {
	h := sha256.New()
	fs.WalkDir(cudaHeaders, "cudahdr", func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			b, _ := cudaHeaders.ReadFile(p)
			fmt.Fprintf(h, "%s %d\n", p, len(b))
			h.Write(b)
		}
		return nil
	})
	name := fmt.Sprintf("cuda-%x", h.Sum(nil)[:8])
	if cache, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(cache, "gozyme", name)
		if _, err := os.Stat(filepath.Join(dir, "gozyme_cuda.h")); err == nil {
			return dir, nil
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err == nil {
			if part, err := os.MkdirTemp(filepath.Dir(dir), name+".part-"); err == nil {
				if err := writeCUDAHeaders(part); err == nil && os.Rename(part, dir) == nil {
					return dir, nil
				}
				os.RemoveAll(part)
				if _, err := os.Stat(filepath.Join(dir, "gozyme_cuda.h")); err == nil {
					return dir, nil // another compile won the race
				}
			}
		}
	}
	t, err := tmp.get()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(t, "gozyme-cuda")
	return dir, writeCUDAHeaders(dir)
}

// writeCUDAHeaders writes gozyme's CUDA header directory to root.
func writeCUDAHeaders(root string) error {
	return fs.WalkDir(cudaHeaders, "cudahdr", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(root, strings.TrimPrefix(p, "cudahdr"))
		if e.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := cudaHeaders.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// compileCUDA compiles CUDA source in (options from cmd) into the fat
// object obj: device code differentiated and lowered to PTX, embedded in
// the host object.
func (d *driver) compileCUDA(cmd *Command, in Input, obj string, tmp *tempDir) (int, error) {
	dir, err := tmp.get()
	if err != nil {
		return 1, err
	}
	cf := parseCUDAFlags(cmd)
	cuda := d.cfg.Tools.FindCUDA(cf.cudaPath)
	if len(cf.archs) > 1 && (cuda.Ptxas == "" || cuda.Fatbinary == "") {
		return 1, fmt.Errorf("%s: several GPU architectures (%s) need a CUDA toolkit's ptxas and fatbinary; without one, give a single --cuda-gpu-arch", in.Path, strings.Join(cf.archs, ", "))
	}
	common := []string{"-nocudalib"}
	if cuda.Path == "" {
		hdr, err := cudaHeaderDir(tmp)
		if err != nil {
			return 1, err
		}
		common = append(common, "-nocudainc", "-isystem", hdr, "-include", filepath.Join(hdr, "gozyme_cuda.h"),
			"-Xclang", "-target-sdk-version="+cudaSDKVersion)
	}
	level := cmd.OptLevel
	var ptxs []string
	for k, arch := range cf.archs {
		if _, err := strconv.Atoi(strings.TrimPrefix(arch, "sm_")); err != nil || !strings.HasPrefix(arch, "sm_") {
			return 1, fmt.Errorf("%s: GPU architecture %q is not an NVIDIA sm_NN (gozyme supports CUDA on NVIDIA GPUs)", in.Path, arch)
		}
		stem := fmt.Sprintf("%s-%d-%s", stem(in.Path), k, arch)
		bc := filepath.Join(dir, stem+".dev.bc")
		dev := append(append([]string(nil), cf.flags...), common...)
		dev = append(dev, "--cuda-device-only", "--cuda-gpu-arch="+arch, "-emit-llvm", "-c", "-o", bc,
			"-Xclang", "-disable-llvm-passes", "-Xclang", "-target-feature", "-Xclang", "+"+lto.PTXVersion(arch))
		if level == "0" {
			dev = append(dev, "-Xclang", "-disable-O0-optnone")
		}
		if !cf.debug {
			dev = append(dev, "-gline-tables-only") // for AD's messages; stripped from the PTX
		}
		dev = append(appendSources(dev, []Input{in}), "-Qunused-arguments")
		if code, err := d.run(dev, nil); err != nil || code != 0 {
			return code, err
		}
		ptx := filepath.Join(dir, stem+".ptx")
		job := lto.DeviceJob{Bitcode: bc, Origin: in.Path, OptLevel: level, Arch: arch, Libdevice: cuda.Libdevice,
			KeepDebug: cf.debug, LoopRecords: d.env.GPULoopRecords, TempDir: dir, OutPTX: ptx, Note: d.note,
			PlainAdjoints: d.env.GPUPlainAdjoints, PrintTypes: d.cfg.PrintTypes}
		if job.PlainAdjoints {
			fmt.Fprintf(os.Stderr, "%s: warning: GOZYME_GPU_BENCH_PLAIN_ADJOINTS: %s's gradients add adjoints without atomics, wrong wherever threads share memory (for measuring what the atomics cost only)\n", d.prog, in.Path)
		}
		if err := lto.RewriteDevice(d.ctx(), job); err != nil {
			return 1, err
		}
		ptxs = append(ptxs, ptx)
	}
	binary := ptxs[0] // raw PTX, which the CUDA driver compiles when the program loads
	if cuda.Ptxas != "" && cuda.Fatbinary != "" {
		if binary, err = fatBinary(d.ctx(), cuda, cf.archs, ptxs, filepath.Join(dir, stem(in.Path)+".fatbin")); err != nil {
			return 1, fmt.Errorf("%s: %v", in.Path, err)
		}
	}
	host := append(append([]string(nil), cf.flags...), common...)
	host = append(host, "--cuda-host-only", "-c", "-o", obj, "-Xclang", "-fcuda-include-gpubinary", "-Xclang", binary)
	for _, it := range cmd.Items {
		if a := it.Args[0]; it.Kind == Flag && (strings.HasPrefix(a, "-M") || a == "--write-dependencies" || a == "--write-user-dependencies") {
			host = append(host, it.Args...) // dependency files from the host pass
		}
	}
	host = append(appendSources(host, []Input{in}), embedFlags(cmd, d.headerFlags())...)
	host = append(host, "-Qunused-arguments")
	if code, err := d.run(host, nil); err != nil || code != 0 {
		return code, err
	}
	if err := markObject(obj); err != nil {
		return 1, err
	}
	return 0, nil
}

// fatBinary assembles each architecture's PTX with ptxas and packs SASS and
// PTX into one fat binary (what nvcc embeds) at out. fatbinary takes images
// as --image3=kind=...,sm=... (CUDA 12 on) or --image=profile=... (before).
func fatBinary(ctx context.Context, cuda toolchains.CUDA, archs, ptxs []string, out string) (string, error) {
	image3 := []string{"-64", "--create=" + out}
	image := []string{"-64", "--create", out}
	for i, arch := range archs {
		cubin := strings.TrimSuffix(ptxs[i], ".ptx") + ".cubin"
		if _, err := toolchains.RunPath(ctx, cuda.Ptxas, "-arch="+arch, ptxs[i], "-o", cubin); err != nil {
			return "", err
		}
		sm := strings.TrimPrefix(arch, "sm_")
		image3 = append(image3, "--image3=kind=elf,sm="+sm+",file="+cubin, "--image3=kind=ptx,sm="+sm+",file="+ptxs[i])
		image = append(image, "--image=profile="+arch+",file="+cubin, "--image=profile=compute_"+sm+",file="+ptxs[i])
	}
	if _, err := toolchains.RunPath(ctx, cuda.Fatbinary, image3...); err != nil {
		if _, err2 := toolchains.RunPath(ctx, cuda.Fatbinary, image...); err2 != nil {
			return "", err
		}
	}
	return out, nil
}

// note prints a remark of the device pipeline under GOZYME_VERBOSE or
// GOZYME_GPU_REPORT.
func (d *driver) note(msg string) {
	if d.cfg.Tools.Verbose || d.env.GPUReport {
		fmt.Fprintf(os.Stderr, "%s: note: %s\n", d.prog, msg)
	}
}
