// Loading compiled kernels into the driver, for the JIT and for AOT headers (`tkc FILE
// --emit=header`): a program that includes such a header links only libtkc-runtime.
#ifndef TK_RUNTIME_AOT_H
#define TK_RUNTIME_AOT_H

#include "tk/Runtime/Context.h"

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace tk {

/// A kernel's function in the current context: from a cubin or a PTX image (NUL-terminated),
/// opted in to `sharedBytes` of dynamic shared memory. Throws tk::Error with the driver's log.
LoadedFunction loadFunction(const void *image, const std::string &kernel, int64_t sharedBytes);
/// Registers per thread ptxas gave the function.
int functionRegisters(cuda::CUfunc_st *function);
/// Local memory per thread (spills and stack), in bytes.
int functionLocalBytes(cuda::CUfunc_st *function);
/// How many programs of `threads` threads and `sharedBytes` of dynamic shared memory fit on
/// one multiprocessor at once (the driver's occupancy calculator).
int residentPrograms(cuda::CUfunc_st *function, int threads, int64_t sharedBytes);

/// One kernel of an AOT header: loaded on its first launch in a context (the cubin when it was
/// built for this GPU's architecture, else the PTX, which the driver compiles for newer GPUs):
/// once for each context (a function loaded once served every context after, another GPU's
/// or a dead one's too).
class AotKernel {
public:
  AotKernel(const char *name, const unsigned char *cubin, size_t cubinBytes, int cubinSm, const char *ptx, int threads,
            int64_t sharedBytes)
      : name_(name), cubin_(cubin), cubinBytes_(cubinBytes), cubinSm_(cubinSm), ptx_(ptx), threads_(threads),
        sharedBytes_(sharedBytes) {}
  void launch(Context &context, const Grid &grid, void **params, const Stream &stream);
  const char *name() const { return name_; }

private:
  const char *name_;
  const unsigned char *cubin_;
  size_t cubinBytes_;
  int cubinSm_;
  const char *ptx_;
  int threads_;
  int64_t sharedBytes_;
  struct Loaded {
    const Context *context;
    std::weak_ptr<const bool> alive;
    LoadedFunction function;
  };
  std::mutex loading_;
  std::vector<Loaded> loaded_; // (one for each live context it was launched in)
};

/// Throws tk::Error naming the kernel and the parameter unless `pointer` is aligned to
/// `alignment` bytes (AOT kernels are compiled assuming it) and `value % divisor == 0`.
void checkAotPointer(const char *kernel, const char *param, unsigned long long pointer, int64_t alignment);
void checkAotDivisible(const char *kernel, const char *param, int64_t value, int64_t divisor);
/// The device address of a buffer argument, checked to hold `elem` elements.
unsigned long long aotBufferPointer(const char *kernel, const char *param, const Buffer &buffer, Scalar elem);
/// The same, checked to be a live buffer of `context`, the launch's (headers since session 49:
/// another context's buffer was launched with its stale device address).
unsigned long long aotBufferPointer(const char *kernel, const char *param, const Buffer &buffer, Scalar elem,
                                    const Context &context);

} // namespace tk

#endif
