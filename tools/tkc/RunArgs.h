// The arguments of `tkc run` and `tkc tune`: options, buffers from .npy files and generators,
// scalars, the grid's expressions.
#ifndef TK_TKC_RUNARGS_H
#define TK_TKC_RUNARGS_H

#include "tk/Driver/Compiler.h"
#include "tk/Runtime/Interpreter.h"

#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tk::runargs {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunOptions {
  std::string file, kernel, grid, backend; // backend: cuda when a GPU is present, else interp
  uint64_t seed = 0;
  int timedRuns = 0;
  bool profile = false; // --profile: the time, the kernel's resources and its buffers' bandwidth
  bool debug = false; // check `assert` on the GPU too (the interpreter always does)
  std::string arch;   // run's --arch: the GPU code of this target, not the device's own (older code runs on newer GPUs)
  std::map<std::string, std::string> defines;
  std::vector<std::pair<std::string, std::string>> args;  // NAME=VALUE in order
  std::vector<std::pair<std::string, std::string>> saves; // NAME=PATH
};

/// After the command line's parse: the kernel when the file has one, and what a launch needs
/// (--grid) checked. Throws UsageError.
void finishRunOptions(RunOptions &options);
/// The targets `--arch` names: sm_80, sm_89 (Ada's FP8 mma.sync), sm_90, sm_90a (Hopper's own).
const std::vector<std::string> &archNames();
/// Applies `--arch` text (one of archNames()) to `options`; false when it is none of them.
bool applyArch(const std::string &arch, CompileOptions &options);
/// NAME=VALUE split at the first '=' (a non-empty name); none otherwise.
std::optional<std::pair<std::string, std::string>> parseAssignment(const std::string &text);
/// The same, or a usage error naming `what`.
std::pair<std::string, std::string> splitAssignment(const std::string &text, const std::string &what);
/// The kernel of a file that has one (empty when the file does not load); a usage error naming
/// them when it has several.
std::string onlyKernel(const std::string &file);
/// A buffer argument: `@file.npy`, `zeros:T:SHAPE` or `rand:T:SHAPE`. Throws UsageError.
HostBuffer makeBuffer(const std::string &name, const std::string &spec, Scalar pointee, uint64_t seed);
/// A scalar argument of `type` from its text. Throws UsageError.
ArgValue scalarArg(const std::string &name, const std::string &text, const Type &type);
/// The kernel's runtime arguments from the NAME=VALUE pairs (each parameter exactly once, no
/// unknown name): buffers are appended to `buffers` (ArgValue::buffer indexes them), integer
/// values also go to `integers` (for the grid's expressions). Throws UsageError.
std::vector<ArgValue> bindArguments(const std::string &kernel, const std::vector<std::pair<std::string, Type>> &params,
                                    const RunOptions &options, std::vector<HostBuffer> &buffers,
                                    std::map<std::string, int64_t> &integers);
/// Writes every --save output (NAME=PATH) of `buffers` to its temporary file first and renames
/// them only when all were written, so a failed one leaves none of them behind. Returns the exit
/// status (1 with "COMMAND: error: ..." on `err`).
int saveBuffers(const RunOptions &options, const std::vector<HostBuffer> &buffers, std::ostream &err,
                const std::string &command);
/// The first output (LABEL and PATH: what -o, -MF or --save names; "-" is standard output)
/// that would replace one of `inputs` (the kernel's file and its imports), names the file of an
/// output before it, or names a folder, as a message; empty when none. Checked before anything
/// is written (a helper's audit: `--save out=x.tk` replaced the kernel's own source).
std::string outputConflict(const std::vector<std::pair<std::string, std::string>> &outputs,
                           const std::vector<std::string> &inputs);
/// The files `compiler` loaded: its main file and every import.
std::vector<std::string> loadedFiles(const Compiler &compiler);
/// Splits "a,cdiv(n,b),1" at top-level commas.
std::vector<std::string> splitGrid(const std::string &grid);

/// llvm::StringRef::getAsInteger's rules (tkc links no LLVM of its own; libtkc hides its copy):
/// the whole text is one integer of `radix` (0: "0x", "0b", "0o" or a leading 0 choose it), a
/// leading '-' only for signed types, and the value fits T. True on error, as LLVM's.
bool getAsInteger(const std::string &text, unsigned radix, uint64_t &value);
bool getAsInteger(const std::string &text, unsigned radix, int64_t &value);
bool getAsInteger(const std::string &text, unsigned radix, int &value);

} // namespace tk::runargs

#endif
