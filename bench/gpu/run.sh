#!/bin/bash
# Runs gozyme's GPU programs on a machine with an NVIDIA GPU and the CUDA
# runtime (no clang, LLVM or Go needed there): the host objects bench/gpu
# built, each with its differentiated kernels' PTX embedded, are linked
# with g++ and libcudart and run, first checking every gradient against
# central differences of its primal kernel (CHECK lines), then timing
# gradient and primal kernels (BENCH lines) and the gradients built without
# atomic adds (PLAIN lines, whose checks are expected to fail where threads
# share memory). ptxas assembles every PTX for this GPU; compute-sanitizer
# looks for races in shared memory and for invalid accesses.
#
#   run.sh [RESULTS]     (in the folder bench/gpu filled; default results.txt)
cd "$(dirname "$0")" || exit 1
results=${1:-results.txt}
cuda=${CUDA_HOME:-/usr/local/cuda}
export PATH=$cuda/bin:$PATH
run() { timeout "${TIMEOUT:-180}" "$@" 2>&1; echo "EXIT $?"; }
{
  echo "DATE $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader | sed 's/^/GPU /'
  echo "CUDA $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*')"
  arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
  for p in *.ptx; do
    if ptxas -arch="$arch" "$p" -o /dev/null 2>ptxas.err; then echo "PTXAS ${p%.ptx} $arch ok"; else echo "PTXAS ${p%.ptx} $arch FAIL $(head -3 ptxas.err | tr '\n' ' ')"; fi
  done
  p=$(ls *.ptx | head -1)
  # How this toolkit's fatbinary takes images (gozyme-c++ tries --image3,
  # then --image, when it builds a fat binary with a toolkit).
  for form in "--image3=kind=ptx,sm=80,file=$p" "--image=profile=compute_80,file=$p"; do
    if fatbinary -64 --create=check.fatbin "$form" 2>fatbin.err; then echo "FATBIN ok ${form%%=*}"; else echo "FATBIN FAIL ${form%%=*} $(head -2 fatbin.err | tr '\n' ' ')"; fi
  done
  ptxas -arch="$arch" "$p" -o check.cubin 2>/dev/null &&
    { fatbinary -64 --create=check2.fatbin "--image3=kind=elf,sm=${arch#sm_},file=check.cubin" "--image3=kind=ptx,sm=80,file=$p" 2>fatbin.err &&
      echo "FATBIN ok elf+ptx" || echo "FATBIN FAIL elf+ptx $(head -2 fatbin.err | tr '\n' ' ')"; }
  # Weak stand-ins for the texture and surface registration calls
  # clang-14's CUDA host code references, for a libcudart that no longer
  # has them (CUDA 12 removed texture references); the programs register
  # neither, and compat.o is linked only where the plain link fails.
  printf '%s\n' '__attribute__((weak)) void __cudaRegisterTexture(void) {}' \
    '__attribute__((weak)) void __cudaRegisterSurface(void) {}' >compat.c
  gcc -c -o compat.o compat.c
  for o in *.o; do
    [ "$o" = compat.o ] && continue
    exe=${o%.o}
    if ! g++ "$o" -L"$cuda/lib64" -lcudart -lm -o "$exe" 2>link.err; then
      # libcudart of CUDA 12+ may lack the texture/surface registration
      # clang's host code references: weak stand-ins (never called).
      g++ "$o" compat.o -L"$cuda/lib64" -lcudart -lm -o "$exe" 2>>link.err && echo "LINK $exe with compat.o" ||
        { echo "LINK $exe FAIL $(head -5 link.err | tr '\n' ' ')"; continue; }
    fi
    export LD_LIBRARY_PATH=$cuda/lib64:$LD_LIBRARY_PATH
    case $exe in
    *.plain) echo "PROGRAM $exe bench"; run "./$exe" bench | grep '^BENCH' | sed 's/^BENCH /PLAIN /' ;;
    *)
      echo "PROGRAM $exe"
      run "./$exe"
      echo "PROGRAM $exe bench"
      run "./$exe" bench | grep -v '^CHECK'
      ;;
    esac
  done
  for exe in shared reduce_dynamic; do
    [ -x "$exe" ] || continue
    echo "SANITIZER racecheck $exe"
    run compute-sanitizer --tool racecheck "./$exe" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|Error|hazard' | head -5
  done
  for exe in shared loop lulesh xsbench; do
    [ -x "$exe" ] || continue
    echo "SANITIZER memcheck $exe"
    run compute-sanitizer --tool memcheck "./$exe" | grep -E 'ERROR SUMMARY|Invalid' | head -5
  done
} >"$results" 2>&1
cat "$results"
