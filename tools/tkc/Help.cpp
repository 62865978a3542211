#include "Help.h"

namespace tk {

const char *const kUsage = R"(usage:
  tkc FILE.tk [--kernel NAME] [--emit=ast|tk|tkgpu|llvm|ptx|cubin|header] [-o OUT]
              [--arch=sm_80|sm_90|sm_90a] [-D NAME=VALUE]... [-O0|-O3] [--debug] [--locs] [--stats]
              [--divisibility ARG=16]... [-MD [-MF DEPFILE]]
  tkc check FILE.tk [--kernel NAME] [-D NAME=VALUE]... [--stats]
  tkc run  FILE.tk [--kernel NAME] --grid X[,Y,Z] [-D ...] [--backend=interp|cuda] ARG... [--save NAME=OUT.npy]... [--time N] [--debug]
  tkc tune FILE.tk [--kernel NAME] --grid ... ARG...
  tkc lsp [-D NAME=VALUE]... [--stdio]
  tkc [COMMAND] --help | tkc --version
FILE.tk may be '-' (standard input) for tkc and tkc check; '--' ends the options.
)";

namespace {

const char *const kCommon = R"(
  --kernel NAME        the kernel (may be left out when the file has one)
  -D NAME=VALUE        a `const` parameter's value: an integer, a float, true/false or a type
  --color=WHEN         diagnostics in colour: auto (on a terminal; NO_COLOR turns it off), always, never
)";

const char *const kCompile = R"(tkc FILE.tk [OPTIONS]: compile a .tk file to a stage of the pipeline.
  --emit=KIND          ast (syntax tree), tk (tile IR, the default), tkgpu (per-thread LLVM+NVVM),
                       llvm (LLVM IR for nvptx64), ptx, cubin (through ptxas; never to a terminal),
                       header (a C++ header of ahead-of-time kernels, one launcher per config)
  -o OUT               the output file (default: standard output); its folder must exist
  --arch=ARCH          sm_80, sm_90 (default) or sm_90a (Hopper's wgmma, TMA, FP8)
  --divisibility A=N   argument A is divisible by N (1, 2, 4, 8 or 16), as the JIT specializes
  -O0 | -O3            the tile IR as the front end made it, or after the tile pipeline (default)
  --locs               print each op's file:line:col
  --debug              keep `print` and device assertions
  --stats              each kernel's summary (and ptxas's report with --emit=cubin) on stderr
  -MD [-MF DEPFILE]    also a make-format dependency file: OUT, FILE.tk and every file it imports
                       (default DEPFILE: OUT.d)
)";

const char *const kCheck = R"(tkc check FILE.tk [OPTIONS]: type-check, print diagnostics only.
  --stats              each kernel's summary on stderr
)";

const char *const kRun = R"(tkc run FILE.tk --grid X[,Y,Z] [OPTIONS] ARG...: run a kernel.
  --grid X[,Y,Z]       programs per axis; expressions of integer arguments and constants
                       (cdiv(M, BM) * cdiv(N, BN))
  --backend=B          interp (the CPU interpreter) or cuda (default: cuda when a GPU is present
                       and the kernel compiles for it, else interp)
  ARG                  NAME=VALUE: an integer or float for a scalar; for a pointer @file.npy,
                       zeros:T:SHAPE or rand:T:SHAPE (SHAPE as 64x64)
  --save NAME=OUT.npy  write a buffer after the run (again for more)
  --seed S             the seed of rand: buffers (default 0)
  --time N             launch N more times on the GPU and print the median time
  --profile            the time (--time 20 unless given), the launch (programs, threads, shared
                       memory), registers and local memory per thread, and the buffers' bytes over
                       the per-call time; every launch is also an NVTX range for Nsight Systems
  --debug              keep `print` and device assertions
)";

const char *const kTune = R"(tkc tune FILE.tk --grid ... [OPTIONS] ARG...: time every config of the kernel's
@autotune space on the GPU (ARG and --grid as for tkc run), print the table, run the winner and
record it in the tuning database.
tkc tune FILE.tk --dry-run [--arch=ARCH] [--divisibility A=N]... [-D ...]: no GPU needed: compile
every config (for sm_90a by default) and list ptxas's registers and spill bytes, the shared bytes
and threads a launch asks for, or why a config does not compile.
)";

const char *const kLsp = R"(tkc lsp [-D NAME=VALUE]...: a language server (the Language Server Protocol on
standard input and output) for editors: diagnostics as `tkc check` gives them, each expression's
type and each constant's value on hover, and go-to-definition of variables, constants, functions
and kernels, across imports. Every kernel is checked with its first @autotune config; -D gives
constants that have no default.
)";

const char *const kEnvironment = R"(
environment:
  TK_STDLIB_DIR        the stdlib folder (`import "std/..."`; default: beside tkc, else the source tree)
  TK_CACHE_DIR         the disk cache of compiled kernels and the tuning database ("" for none;
                       default $XDG_CACHE_HOME/tk, else ~/.cache/tk)
  TK_PTXAS             the ptxas to run (default: on the PATH, else /usr/local/cuda/bin)
  TK_DUMP_DIR          write every stage of each kernel the JIT compiles here
  TK_LAUNCH_BLOCKING   1: synchronize after every launch (a fault names its kernel)
  NO_COLOR             no colour with --color=auto
)";

} // namespace

std::string helpFor(const std::string &command) {
  if (command == "lsp")
    return std::string(kLsp) + kEnvironment;
  std::string text = command == "check" ? kCheck : command == "run" ? kRun : command == "tune" ? kTune : kCompile;
  return text + kCommon + kEnvironment;
}

} // namespace tk
