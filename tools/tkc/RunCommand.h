// `tkc run`: compile one kernel, build its arguments (scalars, .npy files, generated buffers),
// evaluate the grid, run it on a backend, and save buffers back as .npy.
#ifndef TK_TKC_RUNCOMMAND_H
#define TK_TKC_RUNCOMMAND_H

#include "RunArgs.h"

#include <ostream>

namespace tk {

/// Exit status: 0 the kernel ran, 1 a diagnostic (compile error, bad arguments), 2 a run-time
/// fault. No --save file is written unless the run succeeded.
int runCommand(runargs::RunOptions options, std::ostream &out, std::ostream &err);

/// `tkc tune`: the same arguments; times every config of the kernel's tuning space on the GPU
/// (a progress bar on `err`) and prints the table of configs and times. 0 tuned, 1 an error.
int tuneCommand(const runargs::RunOptions &options, std::ostream &out, std::ostream &err);

/// `tkc tune FILE --dry-run`: no GPU, nothing timed: every config of the kernel (base.kernel)
/// compiled with `base`, with what ptxas reports and what a launch asks for, or why it fails.
int tuneDryRun(const CompileOptions &base, const std::string &file, std::ostream &out, std::ostream &err);

} // namespace tk

#endif
