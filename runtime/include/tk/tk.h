// tk's C++ API in one header: contexts, streams and buffers (Context.h), the JIT with its cache
// and autotuner (Jit.h; link tkc::compiler), the loader AOT headers use (Aot.h; tkc::runtime), the
// f16/bf16/f8 conversions (FloatFormats.h), the stdlib folder, atomic outputs and bounded inputs (Files.h;
// tkc::compiler), NVTX ranges (Nvtx.h).
#ifndef TK_TK_H
#define TK_TK_H

#include "tk/Runtime/Aot.h"
#include "tk/Runtime/Context.h"
#include "tk/Runtime/Error.h"
#include "tk/Support/FloatFormats.h"
#include "tk/Runtime/Jit.h"
#include "tk/Runtime/Files.h"
#include "tk/Runtime/Nvtx.h"

#endif
