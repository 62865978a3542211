// tkc: the tk compiler's command line (LANGUAGE.md, "The command line").
#include "tk/Driver/Compiler.h"
#include "tk/Driver/AotHeader.h"
#include "tk/Driver/LanguageServer.h"
#include "tk/Frontend/FileIO.h"
#include "RunCommand.h"

#include <unistd.h>

#include "Color.h"
#include "CommandLine.h"
#include "RunArgs.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <iostream>
#include <new>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace {



int usageError(const std::string &message) {
  std::cerr << "tkc: error: " << message << "\n";
  return 1;
}

/// Flushes standard output; false with `error` (the OS's reason) when it could not be written
/// (a full disk, /dev/full, a closed pipe).
bool flushStdout(std::string &error) {
  errno = 0;
  if (std::cout.flush() && std::fflush(stdout) == 0 && !std::ferror(stdout))
    return true;
  error = std::string("cannot write standard output: ") + (errno ? std::strerror(errno) : "write error");
  return false;
}

/// `-` is standard output; anything else is written through tk::writeAtomically (a temporary
/// file and a rename), so that no reader ever sees a half-written output.
bool writeOutput(const std::string &path, const std::string &text, std::string &error) {
  if (path == "-") {
    std::cout << text;
    return flushStdout(error);
  }
  return tk::writeAtomically(path, text, error);
}

/// A path as a make rule (and ninja's depfile parser) reads it, as gcc writes it: a space and
/// '#' escaped, '$' doubled (a backslash elsewhere stands for itself).
std::string makeEscaped(const std::string &path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#')
      out += '\\';
    else if (c == '$')
      out += '$';
    out += c;
  }
  return out;
}

/// The dependency file of `target`: `target: file import...` (each file once, in load order).
std::string dependencyRule(const std::string &target, const std::vector<std::pair<std::string, std::string>> &sources) {
  std::string rule = makeEscaped(target) + ":";
  for (const auto &[path, text] : sources)
    rule += " \\\n  " + makeEscaped(path);
  return rule + "\n";
}

/// The usage error of a --divisibility name that no runtime parameter of the kernels `loaded`
/// selects has; empty when every name is one.
std::string unknownDivisibility(tk::Compiler &loaded, const tk::CompileOptions &options) {
  std::vector<tk::KernelDecl> declared;
  if (options.divisibility.empty() || !loaded.declarations(declared))
    return "";
  for (const auto &[name, amount] : options.divisibility) {
    std::string params;
    bool known = false;
    for (const tk::KernelDecl &k : declared)
      for (const tk::KernelDecl::Param &p : k.params)
        if (!p.isConst) {
          known |= p.name == name;
          params += (params.empty() ? "" : ", ") + p.name;
        }
    if (!known)
      return "--divisibility " + name + "=" + std::to_string(amount) + ": no kernel compiled has a parameter '" + name +
             "' (" + params + ")";
  }
  return "";
}

int tkcMain(int argc, char **argv);

} // namespace

int main(int argc, char **argv) {
  int status;
  try {
    status = tkcMain(argc, argv);
  } catch (const std::bad_alloc &) {
    std::cerr << "tkc: error: out of memory\n";
    return 1;
  } catch (const std::exception &e) { // every library error is caught nearer; this is the net
    std::cerr << "tkc: error: " << e.what() << "\n";
    return 1;
  }
  // Whatever a command printed (IR, `print` output, tables) must have reached its destination.
  std::string error;
  if (!flushStdout(error)) {
    std::cerr << "tkc: error: " << error << "\n";
    return status == 0 ? 1 : status;
  }
  return status;
}

namespace {
int tkcMain(int argc, char **argv) {
  tk::TkcInvocation invocation;
  if (std::optional<int> status = tk::parseCommandLine(argc, argv, invocation, std::cout, std::cerr))
    return *status;
  // run and tune read the kernel's file more than once (its declarations, then each config):
  // standard input only once. (A file named '-' after `--` is still read as one.)
  bool runsOrTunes = invocation.command == tk::TkcCommand::Run || invocation.command == tk::TkcCommand::Tune;
  if (runsOrTunes && (invocation.run.file == "-" || invocation.file == "-") && !invocation.fileAfterOptionsEnd)
    return usageError(std::string(invocation.command == tk::TkcCommand::Run ? "tkc run" : "tkc tune") +
                      " reads the kernel from a file, not from standard input ('-'): write it to a file first");
  switch (invocation.command) {
  case tk::TkcCommand::Lsp:
    return tk::languageServer(std::cin, std::cout, invocation.compile);
  case tk::TkcCommand::Run:
    return tk::runCommand(invocation.run, std::cout, std::cerr);
  case tk::TkcCommand::Tune:
    return invocation.dryRun ? tk::tuneDryRun(invocation.compile, invocation.file, std::cout, std::cerr)
                             : tk::tuneCommand(invocation.run, std::cout, std::cerr);
  case tk::TkcCommand::Compile:
  case tk::TkcCommand::Check:
    break;
  }
  tk::CompileOptions &options = invocation.compile;
  options.tool = "tkc";
  const std::string &file = invocation.file, &emit = invocation.emit, &output = invocation.output;
  std::string depfile = invocation.depfile;
  bool stats = invocation.stats, dependencies = invocation.dependencies, optionsEnded = invocation.fileAfterOptionsEnd;
  std::string command = invocation.command == tk::TkcCommand::Check ? "check" : "compile";
  if (file == "-" && !optionsEnded && (emit == "header" || dependencies))
    return usageError(std::string(emit == "header" ? "--emit=header" : "-MD") +
                      " needs a file (its imports resolve beside it), not standard input");
  if (!depfile.empty() && !dependencies)
    return usageError("-MF names the dependency file of -MD, which is missing");
  if (dependencies && output == "-")
    return usageError("-MD needs -o FILE (the rule's target)");
  if (dependencies && command != "compile")
    return usageError("-MD writes the dependencies of an output: not with 'tkc " + command + "'");
  if (dependencies && depfile.empty())
    depfile = output + ".d";
  // Outputs that would replace the source or an import, or each other: checked once the
  // imports are known (after the load), before anything is written.
  std::vector<std::pair<std::string, std::string>> outputs{{"-o", output}};
  if (dependencies)
    outputs.emplace_back("-MF", depfile);
  auto outputsConflict = [&](const tk::Compiler &loaded) {
    return command == "compile" ? tk::runargs::outputConflict(outputs, tk::runargs::loadedFiles(loaded)) : "";
  };
  // The dependency file, after the output: the main file and every file it imports.
  auto writeDependencies = [&](const std::vector<std::pair<std::string, std::string>> &sources) {
    std::string error;
    if (dependencies && !writeOutput(depfile, dependencyRule(output, sources), error)) {
      std::cerr << "tkc: error: " << error << "\n";
      return false;
    }
    return true;
  };

  tk::EmitKind kind;
  if (emit == "ast")
    kind = tk::EmitKind::AST;
  else if (emit == "tk")
    kind = tk::EmitKind::Tk;
  else if (emit == "tkgpu")
    kind = tk::EmitKind::TkGpu;
  else if (emit == "llvm")
    kind = tk::EmitKind::LLVM;
  else if (emit == "ptx")
    kind = tk::EmitKind::PTX;
  else if (emit == "cubin")
    kind = tk::EmitKind::Cubin;
  else if (emit == "header")
    kind = tk::EmitKind::AST; // placeholder: headers are written by emitAotHeader below
  else
    return usageError("unknown --emit '" + emit + "'"); // (the command line checked it)

  if (emit == "header" && command == "compile") {
    tk::Compiler checker(options);
    if (checker.load(file)) { // (a file that does not load: emitAotHeader reports it)
      if (std::string error = unknownDivisibility(checker, options); !error.empty())
        return usageError(error);
      if (std::string conflict = outputsConflict(checker); !conflict.empty())
        return usageError(conflict);
    }
    std::string header, diagnostics, warnings;
    bool made = tk::emitAotHeader(file, options, header, diagnostics, warnings);
    std::cerr << tk::painted(diagnostics + warnings);
    if (!made)
      return 1;
    std::string error;
    if (!writeOutput(output, header, error)) {
      std::cerr << "tkc: error: " << error << "\n";
      return 1;
    }
    if (dependencies && !writeDependencies(checker.sources())) // (the header's compiler loaded the same files)
      return 1;
    return 0;
  }

  // A cubin is binary: not for a terminal (before any work, and before ptxas is looked for).
  if (kind == tk::EmitKind::Cubin && (output.empty() || output == "-") && isatty(STDOUT_FILENO)) {
    std::cerr << "tkc: error: refusing to write a cubin to a terminal; use -o FILE\n";
    return 1;
  }
  tk::Compiler compiler(options);
  // '-' (before `--`) is standard input, named "<stdin>" in diagnostics.
  std::string stdinText;
  bool fromStdin = file == "-" && !optionsEnded;
  if (fromStdin) {
    std::ostringstream text;
    text << std::cin.rdbuf();
    stdinText = text.str();
  }
  bool ok = fromStdin ? compiler.load("<stdin>", &stdinText) : compiler.load(file);
  if (ok) {
    if (std::string error = unknownDivisibility(compiler, options); !error.empty())
      return usageError(error);
    if (std::string conflict = outputsConflict(compiler); !conflict.empty())
      return usageError(conflict);
  }
  std::ostringstream out;
  if (ok)
    ok = command == "check" ? compiler.check() : compiler.emit(kind, out);
  std::cerr << tk::painted(compiler.diagnosticsText());
  if (compiler.hadInternalError())
    return 70; // EX_SOFTWARE: a compiler bug, never the user's fault
  if (!ok)
    return 1;
  // Statistics go to stderr, with the diagnostics: stdout carries only the output.
  if (stats) {
    for (const tk::KernelSummary &s : compiler.summaries())
      std::cerr << s.str() << "\n";
    // ptxas's own report: registers, shared memory, spills of each kernel.
    std::istringstream report(compiler.ptxasReport());
    for (std::string line; std::getline(report, line);)
      if (line.find("Used") != std::string::npos || line.find("spill") != std::string::npos ||
          line.find("Compiling entry") != std::string::npos)
        std::cerr << line << "\n";
  }
  std::string error;
  if (command == "compile" && !writeOutput(output, out.str(), error)) {
    std::cerr << "tkc: error: " << error << "\n";
    return 1;
  }
  return writeDependencies(compiler.sources()) ? 0 : 1;
}
} // namespace
