// A kernel compiled to PTX for the GPU, through the disk cache: the piece `tkc run` and the JIT
// share.
#ifndef TK_RUNTIME_KERNELCOMPILE_H
#define TK_RUNTIME_KERNELCOMPILE_H

#include "tk/Driver/Compiler.h"
#include "tk/Runtime/DiskCache.h"

#include <algorithm>
#include <optional>
#include <string>

namespace tk {

struct CompiledKernel {
  std::string ptx;
  int64_t sharedBytes = 0; // dynamic shared memory a launch asks for
  int threads = 128;       // num_warps * 32 (+ 128 for a producer warpgroup)
  bool fromCache = false;
  std::string key; // the disk cache's key of this PTX
};

/// log2 of the largest power of two up to 16 that divides `value` (0: divisible by all): what
/// `tkc run` and the JIT specialize integers and pointers on. A row stride of 1000 f16 elements
/// (divisible by 8) still starts every row on a 16-byte boundary.
/// Inline: the JIT computes it for every pointer and integer argument of every launch.
inline int divisibilityLog2(uint64_t value) { return value ? std::min(__builtin_ctzll(value), 4) : 4; }
/// An integer argument's: only a positive one claims a divisor. A row stride of 0 (every row
/// the same) or below is one TMA cannot copy with, and a claimed divisibility would choose it.
inline int integerDivisibilityLog2(int64_t value) { return value > 0 ? divisibilityLog2(uint64_t(value)) : 0; }

/// Targets a GPU of compute capability `sm` (90 for sm_90): sm_80 code for Ampere, sm_89 for
/// Ada (FP8 mma.sync), sm_90 for newer GPUs (which JIT it); the cubin is for this GPU only, so
/// on Hopper itself its own instructions (sm_90a: wgmma).
void targetDevice(CompileOptions &options, int sm);

/// A compiled kernel as a cache entry ("<shared bytes> <threads>\n<code>"), and back (none
/// when the text is not one).
std::string compiledEntry(const CompiledKernel &kernel);
std::optional<CompiledKernel> parseCompiledEntry(const std::string &entry);

/// The PTX of `options.kernel` in the file at `path` (or `text`, named `path`): from `cache`
/// when it holds an entry for this compiler build, the same sources (the file and its
/// imports), kernel, constants, specialization and options; otherwise compiled and stored
/// (best-effort). None when the kernel does not compile, with the compiler's diagnostics.
/// With $TK_DUMP_DIR set, the kernel is always compiled and every stage (tk, tkgpu, LLVM IR,
/// PTX) is written there as `<kernel>-<key>.{tk.mlir,tkgpu.mlir,ll,ptx}`.
std::optional<CompiledKernel> compileToPtx(const std::string &path, const std::string *text, const CompileOptions &options,
                                           DiskCache &cache, std::string &diagnostics);

} // namespace tk

#endif
