// `tkc run`: compile one kernel, build its arguments (scalars, .npy files, generated buffers),
// evaluate the grid, run it on a backend, and save buffers back as .npy.
#ifndef TK_TKC_RUNCOMMAND_H
#define TK_TKC_RUNCOMMAND_H

#include <ostream>
#include <string>
#include <vector>

namespace tk {

/// Exit status: 0 the kernel ran, 1 a diagnostic (compile error, bad arguments), 2 a run-time
/// fault. No --save file is written unless the run succeeded.
int runCommand(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

/// `tkc tune`: the same arguments; times every config of the kernel's tuning space on the GPU
/// (a progress bar on `err`) and prints the table of configs and times. 0 tuned, 1 an error.
int tuneCommand(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

} // namespace tk

#endif
