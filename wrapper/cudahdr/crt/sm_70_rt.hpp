/* gozyme: stands in for the CUDA toolkit's crt/sm_70_rt.hpp, which clang's
   __clang_cuda_intrinsics.h includes; nothing of it is needed. */
