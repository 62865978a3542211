// tkc's command line on CLI11 (Debian's libcli11-dev): the commands (compile, check, run, tune,
// lsp), their options with their help, `--` and `-`, and every value checked before any work.
#ifndef TK_TKC_COMMANDLINE_H
#define TK_TKC_COMMANDLINE_H

#include "RunArgs.h"

#include "tk/Driver/Compiler.h"

#include <optional>
#include <ostream>
#include <string>

namespace tk {

enum class TkcCommand { Compile, Check, Run, Tune, Lsp };

/// What the command line asked for.
struct TkcInvocation {
  TkcCommand command = TkcCommand::Compile;
  /// compile and check; -D for lsp; the base of `tune --dry-run`.
  CompileOptions compile;
  std::string file, output = "-", emit = "tk", depfile;
  bool stats = false, dependencies = false;
  bool fileAfterOptionsEnd = false; // the file came after `--`: '-' is then a file's name
  runargs::RunOptions run;          // run and tune
  bool dryRun = false;              // tune --dry-run
};

/// Parses the arguments of `tkc` (argv[1..]). Nullopt: a command is to be run. Otherwise the
/// exit status after help or the version was printed on `out`, or a usage error on `err`.
std::optional<int> parseCommandLine(int argc, char **argv, TkcInvocation &invocation, std::ostream &out,
                                    std::ostream &err);

} // namespace tk

#endif
