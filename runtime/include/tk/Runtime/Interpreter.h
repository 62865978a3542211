// The CPU interpreter backend: runs one kernel of `tk` IR over a grid, one program after
// another, on whole tiles, with exact element semantics and bounds-checked memory.
#ifndef TK_RUNTIME_INTERPRETER_H
#define TK_RUNTIME_INTERPRETER_H

#include "tk/Support/Types.h"

#include <array>
#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlir::func {
class FuncOp;
}

namespace tk {

/// A fault while a kernel runs (out-of-bounds access, failed assert, division by zero): the
/// message names the kernel, the program id, the source location and what was wrong.
class RunFault : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A buffer of the caller's: little-endian elements of one type, named for messages.
/// The most elements a buffer of `tkc run` (generated, or read from a .npy file) may have.
constexpr uint64_t kMaxBufferElements = uint64_t(1) << 32;

struct HostBuffer {
  std::string name;
  Scalar elem = Scalar::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
  size_t elementCount() const { return bytes.size() / ((bitWidth(elem) + 7) / 8); }
};

/// One runtime argument: a buffer (by index) for pointer parameters, else a scalar.
struct ArgValue {
  int buffer = -1;
  int64_t i = 0;
  double f = 0;
};

struct InterpreterLaunch {
  std::array<int64_t, 3> grid{1, 1, 1};
  std::vector<ArgValue> args;
  std::vector<HostBuffer> *buffers = nullptr;
  std::ostream *printStream = nullptr;
};

/// Runs `kernel` (a func.func with tk.kernel) over the launch's grid. Throws RunFault.
void interpretKernel(mlir::func::FuncOp kernel, const InterpreterLaunch &launch);
/// Runs kernel `kernel` of a module the driver built (Compiler::moduleOperation(), tk IR), for
/// callers that see no MLIR (`tkc run`). Throws RunFault.
void interpretKernel(void *moduleOperation, const std::string &kernel, const InterpreterLaunch &launch);

} // namespace tk

#endif
