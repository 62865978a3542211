// Binding functions of a library loaded at run time (dlopen): the CUDA driver, NCCL.
#ifndef TK_RUNTIME_DYNAMICLIBRARY_H
#define TK_RUNTIME_DYNAMICLIBRARY_H

#include "tk/Runtime/Error.h"

#include <dlfcn.h>
#include <string>

namespace tk {

/// Points `slot` at `name` in `library` (at `versioned` first, where the library has it); a
/// tk::Error "`owner` has no `name``hint`" when it has neither.
template <typename F>
void bindSymbol(void *library, F &slot, const char *name, const char *owner, const char *hint = "",
                const char *versioned = nullptr) {
  void *symbol = versioned ? dlsym(library, versioned) : nullptr;
  if (!symbol)
    symbol = dlsym(library, name);
  if (!symbol)
    throw Error(std::string(owner) + " has no " + name + hint);
  slot = reinterpret_cast<F>(symbol);
}

} // namespace tk

#endif
