// TMA tensor maps that kernels take as hidden parameters: the compiler leaves each kernel's
// recipes in a global of its module (`tk_tensor_maps_<kernel>`, text, one map per line:
// `param=9 base=0 shape=a3,a5 strides=a6 box=128,64 swizzle=128 bytes=2`, where `aN` is the
// value of the kernel's argument N, `aN*F` and `aN*aM` that times the number F or argument M,
// and a number is itself); loading a function reads them, and
// every launch appends the maps, encoded by the driver from the launch's arguments and cached.
#ifndef TK_RUNTIME_TENSORMAPS_H
#define TK_RUNTIME_TENSORMAPS_H

#include "tk/Runtime/CudaDriver.h"

#include <string>
#include <vector>

namespace tk::tensormaps {

/// A shape or stride: the value of kernel argument `arg` (an i32), times `value` when that is
/// set or argument `factorArg` when that is (`aN*F`, `aN*aM`: the stride of a stack of
/// matrices, rows times row stride), or `value` when arg < 0.
struct LaunchValue {
  int arg = -1;
  long long value = 0;
  int factorArg = -1; // `aN*aM`: times argument M
};

struct Recipe {
  unsigned param = 0, base = 0;
  std::vector<LaunchValue> shape, strides; // outer dimension first; strides of all but the last
  std::vector<unsigned> box;               // outer first
  int swizzle = 0, elementBytes = 2;
};

/// The recipes in a module's text; throws tk::Error naming the kernel on malformed text.
std::vector<Recipe> parse(const std::string &text, const std::string &kernel);
/// Reads the recipes of `kernel` from `module` (built from `image`), if it has any, for
/// launches of `function`.
void load(const void *image, cuda::CUmodule module, cuda::CUfunction function, const std::string &kernel);

/// A launch's parameters: the caller's, followed by the function's tensor maps (if any).
class LaunchParams {
public:
  LaunchParams(cuda::CUfunction function, const std::string &kernel, void **params);
  void **get() { return all_.empty() ? params_ : all_.data(); }

private:
  struct alignas(64) Encoded {
    unsigned char bytes[128];
  };
  void **params_;
  std::vector<Encoded> maps_;
  std::vector<void *> all_;
};

} // namespace tk::tensormaps

#endif
