// The globals the compiler leaves in a kernel's module (tensor-map recipes, the grid-dependency
// marker), read by the loader (Aot.cpp, TensorMaps.cpp).
#ifndef TK_RUNTIME_MODULEGLOBALS_H
#define TK_RUNTIME_MODULEGLOBALS_H

#include "tk/Runtime/CudaDriver.h"

#include <string>

namespace tk {

/// Whether a module built from `image` may define the global `symbol`: PTX text names every
/// global it defines, so a name it lacks (as a whole identifier) is no global of the module; a
/// binary image (cubin or fatbin) may define anything.
bool imageMayDefine(const void *image, const std::string &symbol);

/// Global `name` of `module`, built from `image`: its address and size, or false when it has
/// none. The driver is not asked for a name the PTX image lacks: its lookup of an absent symbol
/// is an API error, which compute-sanitizer reports for every such kernel. Throws tk::Error
/// naming `what` on any other driver error.
bool findModuleGlobal(const void *image, cuda::CUmodule module, const std::string &name, cuda::CUdeviceptr *address,
                      size_t *bytes, const std::string &what);

} // namespace tk

#endif
