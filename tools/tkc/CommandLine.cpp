#include "CommandLine.h"

#include "Color.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstring>

namespace tk {
namespace {

using runargs::UsageError;

const char *const kEmitKinds = R"(--emit KIND:
  ast                  the syntax tree
  tk                   the tile IR (the default)
  tkgpu                per-thread LLVM + NVVM dialect
  llvm                 LLVM IR for nvptx64
  ptx                  PTX
  cubin                through ptxas (never to a terminal)
  header               a C++ header of ahead-of-time kernels, one launcher per config

)";

const char *const kEnvironment = R"(Environment:
  TK_STDLIB_DIR        the stdlib folder (`import "std/..."`; default: beside tkc, else the source tree)
  TK_CACHE_DIR         the disk cache of compiled kernels and the tuning database ("" for none;
                       default $XDG_CACHE_HOME/tk, else ~/.cache/tk)
  TK_PTXAS             the ptxas to run (default: on the PATH, else /usr/local/cuda/bin)
  TK_DUMP_DIR          write every stage of each kernel the JIT compiles for the GPU here
                       (the CUDA backend; the interpreter compiles none)
  TK_LAUNCH_BLOCKING   1: synchronize after every launch (a fault names its kernel)
  TK_DEPENDENT_LAUNCH  0: kernels that call gdc_wait launch as plain ones, not as
                       programmatic dependents
  NO_COLOR             no colour with --color=auto
)";

/// A value of the form NAME=VALUE (a '=' after a non-empty name); "" when it is one, else why not.
std::string needsAssignment(const std::string &text) {
  return runargs::parseAssignment(text) ? "" : "needs NAME=VALUE, got '" + text + "'";
}

std::string needsDivisibility(const std::string &text) {
  size_t eq = text.find('=');
  std::string amount = eq == std::string::npos ? "" : text.substr(eq + 1);
  // What the JIT specializes an argument by: 1, 2, 4, 8 or 16.
  if (eq == std::string::npos || eq == 0 ||
      (amount != "1" && amount != "2" && amount != "4" && amount != "8" && amount != "16"))
    return "needs NAME=N with N one of 1, 2, 4, 8, 16 (as the JIT specializes arguments), got '" + text + "'";
  return "";
}

/// A file name option's check: '' names no file (it failed only when the output was written).
std::string needsFileName(const std::string &text) { return text.empty() ? "needs a file name, got ''" : ""; }

/// The options every command that checks a kernel takes, bound to `invocation`'s fields.
struct Bound {
  std::vector<std::string> defines, divisibility, saves;
  std::string arch;
  int optLevel = 3;
};

/// --color, on every command (all bound to one value: before or after the command's name).
void addColor(CLI::App &app, std::string &color) {
  app.add_option("--color", color, "diagnostics in colour (auto: on a terminal, unless NO_COLOR)")
      ->type_name("WHEN")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

void addKernel(CLI::App &app, std::string &kernel, Bound &b) {
  app.add_option("--kernel", kernel, "the kernel (may be left out when the file has one)")->type_name("NAME");
  app.add_option("-D", b.defines, "a `const` parameter's value: an integer, a float, true/false or a type")
      ->type_name("NAME=VALUE")
      ->check(CLI::Validator(needsAssignment, ""))
      ->allow_extra_args(false) // one value per -D: what follows is the next argument
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void addArch(CLI::App &app, Bound &b, const std::string &archDefault) {
  app.add_option("--arch", b.arch, "the GPU (sm_89: FP8 mma.sync; sm_90a: Hopper's wgmma, TMA); default " + archDefault)
      ->type_name("ARCH")
      ->check(CLI::IsMember(runargs::archNames()));
}

void addTarget(CLI::App &app, Bound &b, const std::string &archDefault) {
  addArch(app, b, archDefault);
  app.add_option("--divisibility", b.divisibility, "argument A is divisible by N (1, 2, 4, 8, 16), as the JIT knows")
      ->type_name("A=N")
      ->check(CLI::Validator(needsDivisibility, ""))
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

/// Options' NAME=VALUE texts (their validators checked the form) by name; a name given twice is
/// a usage error (the last one won silently, where `tkc run` refuses an argument given twice).
std::map<std::string, std::string> assignments(const std::vector<std::string> &texts, const std::string &option) {
  std::map<std::string, std::string> out;
  for (const std::string &t : texts)
    if (auto assignment = runargs::parseAssignment(t))
      if (auto [it, inserted] = out.emplace(assignment->first, assignment->second); !inserted)
        throw runargs::UsageError(option + " " + assignment->first + " is given twice (" + it->second + ", then " +
                                  assignment->second + ")");
  return out;
}

} // namespace

std::optional<int> parseCommandLine(int argc, char **argv, TkcInvocation &inv, std::ostream &out, std::ostream &err) {
  std::vector<std::string> args(argv + 1, argv + argc);

  CLI::App app("tkc: the tk compiler. Compiles a .tk file to a stage of the pipeline (the tile IR by default).",
               "tkc");
  app.get_formatter()->column_width(26);
  app.footer(std::string(kEmitKinds) + kEnvironment);
  app.set_version_flag("--version", std::string("tkc (tk) ") + TK_VERSION + " (LLVM " + Compiler::llvmVersion() + ")",
                       "the version, and LLVM's");
  app.require_subcommand(0, 1);
  // An option given twice takes its last value, as a C compiler's do (subcommands inherit it;
  // the repeatable ones, -D and the like, take them all).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  Bound top, sub;
  std::string color = "auto";

  // tkc FILE.tk: compile.
  app.add_option("FILE", inv.file, "the .tk file ('-': standard input; after '--' any name is a file)")->type_name("");
  addKernel(app, inv.compile.kernel, top);
  app.add_option("--emit", inv.emit, "the stage to write (below; default tk)")
      ->type_name("KIND")
      ->check(CLI::IsMember({"ast", "tk", "tkgpu", "llvm", "ptx", "cubin", "header"}));
  app.add_option("-o", inv.output, "the output file (default: standard output); its folder must exist")
      ->type_name("OUT")
      ->check(CLI::Validator(needsFileName, ""));
  addTarget(app, top, "sm_90");
  app.add_option("-O", top.optLevel, "-O0: the tile IR as the front end made it; -O3: after the tile pipeline")
      ->type_name("LEVEL")
      ->check(CLI::IsMember({0, 3}));
  app.add_flag("--locs", inv.compile.printLocations, "print each op's file:line:col");
  app.add_flag("--debug", inv.compile.debug, "keep `print` and device assertions");
  app.add_flag("--stats", inv.stats, "each kernel's summary (and ptxas's report with --emit=cubin) on stderr");
  app.add_flag("--MD", inv.dependencies, "(or -MD) also a make-format dependency file: OUT, FILE.tk, its imports");
  app.add_option("--MF", inv.depfile, "(or -MF) where -MD writes (default: OUT.d)")
      ->type_name("DEPFILE")
      ->check(CLI::Validator(needsFileName, ""));
  addColor(app, color);

  CLI::App *check = app.add_subcommand("check", "type-check a .tk file; print diagnostics only");
  check->footer(kEnvironment);
  check->add_option("FILE", inv.file, "the .tk file ('-': standard input)")->type_name("");
  addKernel(*check, inv.compile.kernel, sub);
  check->add_flag("--stats", inv.stats, "each kernel's summary on stderr");
  addTarget(*check, sub, "sm_90");
  check->add_option("-O", sub.optLevel, "accepted as tkc's (a check has no tile pipeline)")
      ->type_name("LEVEL")
      ->check(CLI::IsMember({0, 3}));
  check->add_flag("--debug", inv.compile.debug, "accepted as tkc's");
  check->add_flag("--locs", inv.compile.printLocations, "accepted as tkc's");

  // run and tune share their options (tune adds --dry-run and what it compiles for).
  runargs::RunOptions &r = inv.run;
  std::vector<std::string> runArgs;
  std::string seed, timeText;
  auto addRunOptions = [&](CLI::App &c) {
    c.add_option("FILE", r.file, "the .tk file (required)")->type_name("");
    c.add_option("ARG", runArgs, "NAME=VALUE: a scalar's number; a pointer's @file.npy, zeros:T:SHAPE, rand:T:SHAPE")
        ->type_name("");
    addKernel(c, r.kernel, sub);
    c.add_option("--grid", r.grid, "programs per axis, of integer arguments and constants: cdiv(M, BM) * cdiv(N, BN)")
        ->type_name("X[,Y,Z]");
    c.add_option("--backend", r.backend, "the CPU interpreter or the GPU (default: cuda when it can)")
        ->type_name("B")
        ->check(CLI::IsMember({"interp", "cuda"}));
    c.add_option("--save", sub.saves, "write a buffer after the run (again for more)")
        ->type_name("NAME=OUT.npy")
        ->check(CLI::Validator(needsAssignment, ""))
      ->allow_extra_args(false) // one value each time: what follows is the next argument
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    c.add_option("--seed", seed, "the seed of rand: buffers (default 0)")
        ->type_name("S")
        ->check(CLI::Validator(
            [](const std::string &text) {
              uint64_t value; // LLVM's integer rules: all of it, in range, no sign (CLI11 wraps)
              return runargs::getAsInteger(text, 0, value) ? "needs an integer in [0, 2^64), got '" + text + "'"
                                                            : std::string();
            },
            ""));
    c.add_option("--time", timeText, "launch N more times on the GPU: the median per call and the mean back to back")
        ->type_name("N")
        ->check(CLI::Validator(
            [](const std::string &text) {
              int runs; // decimal, as before CLI11 (whose integers read 010 as octal)
              return runargs::getAsInteger(text, 10, runs) || runs < 0 || runs > 1000000
                         ? "needs a number of runs in [0, 1000000], got '" + text + "'"
                         : std::string();
            },
            ""));
    c.add_flag("--debug", r.debug, "keep `print` and device assertions");
    addColor(c, color);
  };
  CLI::App *run = app.add_subcommand("run", "run a kernel (ARG... bind its parameters)");
  run->footer(kEnvironment);
  addRunOptions(*run);
  addArch(*run, sub, "the GPU's own (an older target's code runs on a newer GPU)");
  run->add_flag("--profile", r.profile,
                "the time (--time 20 unless given), the launch, registers, local memory, buffers' GB/s");

  CLI::App *tune = app.add_subcommand("tune", "time every config of the kernel's @autotune space on the GPU");
  tune->footer("tkc tune times every config (ARG and --grid as for tkc run), prints the table, runs the winner and\n"
               "records it in the tuning database. With --dry-run no GPU is needed: every config is compiled and\n"
               "listed with ptxas's registers and spill bytes, the shared bytes and threads a launch asks for, or\n"
               "why it does not compile.\n\n" + std::string(kEnvironment));
  addRunOptions(*tune);
  tune->add_flag("--dry-run", inv.dryRun, "compile every config (for sm_90a unless --arch); nothing runs");
  addTarget(*tune, sub, "sm_90a (with --dry-run)");

  CLI::App *lsp = app.add_subcommand("lsp", "a language server for editors (on standard input and output)");
  lsp->footer("tkc lsp speaks the Language Server Protocol: diagnostics as tkc check gives them, each\n"
              "expression's type and each constant's value on hover, go-to-definition across imports. Every\n"
              "kernel is checked with its first @autotune config.\n\n" + std::string(kEnvironment));
  lsp->add_option("-D", sub.defines, "a value for a `const` parameter that has no default")
      ->type_name("NAME=VALUE")
      ->check(CLI::Validator(needsAssignment, ""))
      ->allow_extra_args(false) // one value per -D: what follows is the next argument
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  bool stdio = false;
  lsp->add_flag("--stdio", stdio, "what some clients pass: standard input and output is the only transport");
  addColor(*check, color);
  addColor(*lsp, color);

  // The command is the first argument that is not --color's (a file named `run` elsewhere is
  // a file): the other commands are switched off for this parse.
  size_t first = 0;
  while (first < args.size() && args[first].rfind("--color", 0) == 0)
    first += args[first] == "--color" ? 2 : 1;
  CLI::App *chosen = nullptr;
  for (CLI::App *c : {check, run, tune, lsp})
    if (first < args.size() && c->get_name() == args[first])
      chosen = c;
  for (CLI::App *c : {check, run, tune, lsp})
    c->disabled(c != chosen);
  std::string prefix = chosen && (chosen == run || chosen == tune) ? "tkc " + chosen->get_name() : "tkc";
  CLI::App &parser = chosen ? *chosen : app;

  // `--` ends the options: what follows is the file, then run arguments, whatever they look
  // like. Found here, walking over options' values (`-o --` names the output `--`); gcc's
  // -MD and -MF become --MD and --MF on the way (CLI11's short options are one letter).
  std::vector<std::string> head, tail;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "--") {
      tail.assign(args.begin() + long(i) + 1, args.end());
      break;
    }
    if (a == "-MD" || a == "-MF")
      a = "-" + a;
    head.push_back(a);
    const CLI::Option *option = a.size() > 1 && a[0] == '-' && a.find('=') == std::string::npos
                                    ? parser.get_option_no_throw(a)
                                    : nullptr;
    if (!option && a == "--color")
      option = app.get_option_no_throw(a);
    if (option && option->get_expected_min() > 0 && i + 1 < args.size())
      head.push_back(args[++i]); // its value, whatever it is
  }

  app.allow_extras();
  for (CLI::App *c : {check, run, tune, lsp})
    c->allow_extras();
  std::vector<std::string> reversed(head.rbegin(), head.rend()); // CLI11 takes them last first
  try {
    app.parse(reversed);
    // What CLI11 did not take: an unknown option, or a word no positional wants.
    std::vector<std::string> extra = app.remaining(true);
    for (const std::string &e : extra)
      if (e.size() > 1 && e[0] == '-')
        throw UsageError("unknown option '" + e + "'");
    std::string &file = chosen == run || chosen == tune ? r.file : inv.file;
    extra.insert(extra.end(), tail.begin(), tail.end());
    if (!extra.empty() && file.empty() && !tail.empty() && extra.front() == tail.front())
      file = extra.front(), inv.fileAfterOptionsEnd = true, extra.erase(extra.begin());
    if (!extra.empty()) {
      if (chosen == run || chosen == tune)
        runArgs.insert(runArgs.end(), extra.begin(), extra.end());
      else if (chosen == lsp)
        throw UsageError("tkc lsp takes no '" + extra.front() + "'");
      else
        throw UsageError(file.empty() ? "unexpected '" + extra.front() + "'"
                                      : "more than one input file ('" + file + "' and '" + extra.front() + "')");
    }
    // Options of tkc itself given with a command: refused, not dropped.
    if (chosen)
      for (const CLI::Option *option : app.get_options())
        if (option->count() && option->get_name() != "--color")
          throw UsageError("'" + option->get_name(false, true) + "' is tkc's own option: give " + chosen->get_name() +
                           "'s options after 'tkc " + chosen->get_name() + "'");
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError &e) {
    err << prefix << ": error: " << e.what() << "\n(tkc --help, or tkc COMMAND --help, lists the options)\n";
    return 1;
  } catch (const UsageError &e) {
    err << prefix << ": error: " << e.what() << "\n";
    return 1;
  }

  Bound &b = app.got_subcommand(check) || app.got_subcommand(run) || app.got_subcommand(tune) ||
                     app.got_subcommand(lsp)
                 ? sub
                 : top;
  setColorMode(color);
  try {
    inv.command = app.got_subcommand(check) ? TkcCommand::Check
                  : app.got_subcommand(run) ? TkcCommand::Run
                  : app.got_subcommand(tune) ? TkcCommand::Tune
                  : app.got_subcommand(lsp)  ? TkcCommand::Lsp
                                             : TkcCommand::Compile;
    inv.compile.defines = assignments(b.defines, "-D");
    for (const auto &[name, amount] : assignments(b.divisibility, "--divisibility"))
      inv.compile.divisibility[name] = std::stoll(amount);
    if (!b.arch.empty())
      runargs::applyArch(b.arch, inv.compile);
    inv.compile.optimize = b.optLevel != 0;
    switch (inv.command) {
    case TkcCommand::Compile:
    case TkcCommand::Check:
      if (inv.file.empty())
        throw UsageError("no input file");
      return std::nullopt;
    case TkcCommand::Lsp:
      return std::nullopt;
    case TkcCommand::Run:
    case TkcCommand::Tune:
      break;
    }
    r.defines = inv.compile.defines;
    if (!timeText.empty())
      runargs::getAsInteger(timeText, 10, r.timedRuns);
    if (!seed.empty())
      runargs::getAsInteger(seed, 0, r.seed);
    for (const std::string &save : b.saves) {
      r.saves.push_back(runargs::splitAssignment(save, "--save"));
      if (r.saves.back().second.empty())
        throw UsageError("--save " + save + ": needs a file name after '='");
    }
    for (const std::string &a : runArgs)
      r.args.push_back(runargs::splitAssignment(a, "argument"));
    if (inv.dryRun) { // compiles only: what a launch needs (the same command line's) goes unused
      if (b.arch.empty())
        runargs::applyArch("sm_90a", inv.compile);
      if (r.file.empty())
        throw UsageError("no input file");
      inv.compile.kernel = r.kernel.empty() ? runargs::onlyKernel(r.file) : r.kernel;
      inv.file = r.file;
      return std::nullopt;
    }
    // run --arch: an older target's code on this GPU (sm_89's FP8 mma.sync on an H200, say).
    if (!b.divisibility.empty() || (!b.arch.empty() && inv.command == TkcCommand::Tune))
      throw UsageError("--divisibility, and tune's --arch, are --dry-run's (a launch takes the arguments' and the GPU's)");
    if (!b.arch.empty() && r.backend == "interp")
      throw UsageError("--arch picks the GPU's code; --backend=interp runs none");
    r.arch = b.arch;
    if (!r.arch.empty())
      r.backend = "cuda"; // asked for GPU code: no quiet fallback to the interpreter
    runargs::finishRunOptions(r);
  } catch (const std::exception &e) {
    err << prefix << ": error: " << e.what() << "\n";
    return 1;
  }
  return std::nullopt;
}

} // namespace tk
