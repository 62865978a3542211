// tkc: the tk compiler's command line (LANGUAGE.md, "The command line").
#include "tk/Driver/Compiler.h"
#include "tk/Driver/AotHeader.h"
#include "tk/Driver/LanguageServer.h"
#include "tk/Frontend/FileIO.h"
#include "RunCommand.h"

#include <unistd.h>

#include "Color.h"
#include "Help.h"
#include "RunArgs.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <new>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace {



int usageError(const std::string &message) {
  std::cerr << "tkc: error: " << message << "\n" << tk::kUsage;
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

/// `tkc lsp [-D NAME=VALUE]...`: the language server on standard input and output.
int lspCommand(const std::vector<std::string> &args) {
  tk::CompileOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::cout << tk::kUsage << "\n" << tk::helpFor("lsp");
      return 0;
    }
    if (args[i] == "--stdio") // what some clients pass: standard input and output is the only transport
      continue;
    if (args[i].rfind("-D", 0) != 0)
      return usageError("tkc lsp takes no '" + args[i] + "' (only -D NAME=VALUE and --stdio)");
    std::string def = args[i].size() > 2 ? args[i].substr(2) : (i + 1 < args.size() ? args[++i] : "");
    size_t eq = def.find('=');
    if (eq == std::string::npos || eq == 0)
      return usageError("-D needs NAME=VALUE, got '" + def + "'");
    options.defines[def.substr(0, eq)] = def.substr(eq + 1);
  }
  return tk::languageServer(std::cin, std::cout, options);
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
  std::vector<std::string> args(argv + 1, argv + argc);
  if (std::string error; !tk::takeColorOption(args, error))
    return usageError(error);
  if (args.empty())
    return usageError("no input file");
  std::string command = "compile";
  size_t first = 0;
  if (args[0] == "lsp")
    return lspCommand(std::vector<std::string>(args.begin() + 1, args.end()));
  if (args[0] == "check" || args[0] == "run" || args[0] == "tune") {
    command = args[0];
    first = 1;
  } else if (args[0] == "--version") {
    std::cout << "tkc (tk) " << TK_VERSION << " (LLVM " << tk::Compiler::llvmVersion() << ")\n";
    return 0;
  }
  // `--help` anywhere before `--`: this command's options.
  for (size_t i = first; i < args.size() && args[i] != "--"; ++i)
    if (args[i] == "--help" || args[i] == "-h") {
      std::cout << tk::kUsage << "\n" << tk::helpFor(command);
      return 0;
    }
  if (command == "run")
    return tk::runCommand(std::vector<std::string>(args.begin() + 1, args.end()), std::cout, std::cerr);
  if (command == "tune")
    return tk::tuneCommand(std::vector<std::string>(args.begin() + 1, args.end()), std::cout, std::cerr);

  tk::CompileOptions options;
  std::string file, output = "-", emit = "tk", depfile;
  bool stats = false, dependencies = false;
  bool optionsEnded = false;
  for (size_t i = first; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (!optionsEnded && a == "--") {
      optionsEnded = true;
      continue;
    }
    if (optionsEnded) { // everything after `--` is a file name, '-' and '-x' too
      if (!file.empty())
        return usageError("more than one input file ('" + file + "' and '" + a + "')");
      file = a;
      continue;
    }
    auto value = [&](const std::string &flag) -> std::optional<std::string> {
      if (a.rfind(flag + "=", 0) == 0)
        return a.substr(flag.size() + 1);
      if (a == flag && i + 1 < args.size())
        return args[++i];
      return std::nullopt;
    };
    for (const char *flag : {"--emit", "--kernel", "--arch", "--divisibility"})
      if (a == flag && i + 1 >= args.size())
        return usageError(std::string(flag) + " needs a value");
    if (a.rfind("-D", 0) == 0) {
      std::string def = a.size() > 2 ? a.substr(2) : (i + 1 < args.size() ? args[++i] : "");
      size_t eq = def.find('=');
      if (eq == std::string::npos || eq == 0)
        return usageError("-D needs NAME=VALUE, got '" + def + "'");
      options.defines[def.substr(0, eq)] = def.substr(eq + 1);
    } else if (auto v = value("--emit")) {
      emit = *v;
    } else if (auto v = value("--kernel")) {
      options.kernel = *v;
    } else if (a == "-o") {
      if (i + 1 >= args.size())
        return usageError("-o needs a file name");
      output = args[++i];
    } else if (auto v = value("--arch")) {
      if (!tk::runargs::applyArch(*v, options))
        return usageError("unknown --arch '" + *v + "' (sm_80, sm_90, sm_90a)");
    } else if (auto v = value("--divisibility")) {
      size_t eq = v->find('=');
      std::string amount = eq == std::string::npos ? "" : v->substr(eq + 1);
      // What the JIT specializes an argument by: 1, 2, 4, 8 or 16.
      if (eq == std::string::npos || eq == 0 ||
          (amount != "1" && amount != "2" && amount != "4" && amount != "8" && amount != "16"))
        return usageError("--divisibility needs NAME=N with N one of 1, 2, 4, 8, 16 (as the JIT specializes "
                          "arguments), got '" + *v + "'");
      options.divisibility[v->substr(0, eq)] = std::atoll(amount.c_str());
    } else if (a == "-O0") {
      options.optimize = false;
    } else if (a == "-O3") {
      options.optimize = true;
    } else if (a == "--debug") {
      options.debug = true;
    } else if (a == "--locs") {
      options.printLocations = true;
    } else if (a == "--stats") {
      stats = true;
    } else if (a == "-MD") {
      dependencies = true;
    } else if (a == "-MF") {
      if (i + 1 >= args.size())
        return usageError("-MF needs a file name");
      depfile = args[++i];
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return usageError("unknown option '" + a + "'");
    } else if (file.empty()) {
      file = a;
    } else {
      return usageError("more than one input file ('" + file + "' and '" + a + "')");
    }
  }
  if (file.empty())
    return usageError("no input file");
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
    return usageError("unknown --emit '" + emit + "' (ast, tk, tkgpu, llvm, ptx, cubin, header)");

  if (emit == "header" && command == "compile") {
    if (!options.divisibility.empty()) {
      tk::Compiler checker(options);
      if (checker.load(file))
        if (std::string error = unknownDivisibility(checker, options); !error.empty())
          return usageError(error);
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
    if (dependencies) { // (the header's compiler loaded the same files)
      tk::Compiler loader(options);
      if (!loader.load(file) || !writeDependencies(loader.sources()))
        return 1;
    }
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
  if (ok)
    if (std::string error = unknownDivisibility(compiler, options); !error.empty())
      return usageError(error);
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
