#include "tk/Runtime/KernelCompile.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace tk {

namespace {

std::string ptxCacheKey(const Compiler &compiler, const CompileOptions &options) {
  std::string arch = "sm_" + std::to_string(options.sm) + (options.archSpecific ? "a" : "");
  std::vector<std::string> parts{"ptx2", compilerBuildId(), arch, options.kernel,
                                 options.debug ? "debug" : "", options.optimize ? "O3" : "O0"};
  for (const auto &[name, value] : options.defines)
    parts.push_back("-D" + name + "=" + value);
  for (const auto &[name, divisibility] : options.divisibility)
    parts.push_back(name + "%" + std::to_string(divisibility));
  for (const std::string &name : options.equalToOne)
    parts.push_back(name + "==1");
  for (const auto &[file, source] : compiler.sources()) {
    parts.push_back(file);
    parts.push_back(source);
  }
  return cacheKey(parts);
}

} // namespace

void targetDevice(CompileOptions &options, int sm) {
  options.sm = sm >= 90 ? 90 : sm >= 89 ? 89 : 80; // (sm_89: Ada's FP8 mma.sync)
  options.archSpecific = sm == 90;
}

std::string compiledEntry(const CompiledKernel &kernel) {
  return std::to_string(kernel.sharedBytes) + " " + std::to_string(kernel.threads) + "\n" + kernel.ptx;
}

/// An entry is "<shared bytes> <threads>\n<code>"; anything else is a miss.
std::optional<CompiledKernel> parseCompiledEntry(const std::string &entry) {
  size_t newline = entry.find('\n');
  if (newline == std::string::npos)
    return std::nullopt;
  char *end = nullptr;
  long long sharedBytes = std::strtoll(entry.c_str(), &end, 10);
  if (sharedBytes < 0 || *end != ' ')
    return std::nullopt;
  long long threads = std::strtoll(end + 1, &end, 10);
  if (threads <= 0 || threads > 1024 || end != entry.c_str() + newline)
    return std::nullopt;
  return CompiledKernel{entry.substr(newline + 1), sharedBytes, int(threads), /*fromCache=*/true};
}

namespace {

/// $TK_DUMP_DIR: every stage of each kernel compiled, as `<kernel>-<key>.<stage>`.
bool dumpStages(Compiler &compiler, const std::string &dir, const std::string &name, std::string &diagnostics) {
  // (The folder TK_DUMP_DIR names is made when missing: outputs need an existing one.)
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    diagnostics += "tk: TK_DUMP_DIR: cannot create " + dir + ": " + ec.message() + "\n";
  static const std::pair<EmitKind, const char *> stages[] = {
      {EmitKind::Tk, "tk.mlir"}, {EmitKind::TkGpu, "tkgpu.mlir"}, {EmitKind::LLVM, "ll"}, {EmitKind::PTX, "ptx"}};
  for (const auto &[kind, extension] : stages) {
    std::ostringstream text;
    std::string error;
    if (!compiler.emit(kind, text)) {
      diagnostics = compiler.diagnosticsText();
      return false;
    }
    if (!writeAtomically(dir + "/" + name + "." + extension, text.str(), error))
      diagnostics += "tk: TK_DUMP_DIR: " + error + "\n"; // the compile itself goes on
  }
  return true;
}

} // namespace

std::optional<CompiledKernel> compileToPtx(const std::string &path, const std::string *text, const CompileOptions &options,
                                           DiskCache &cache, std::string &diagnostics) {
  Compiler compiler(options);
  if (!compiler.load(path, text)) {
    diagnostics = compiler.diagnosticsText();
    return std::nullopt;
  }
  std::string key = ptxCacheKey(compiler, options);
  // Dumping compiles every time, so that each kernel's stages are written.
  const char *dumpDir = std::getenv("TK_DUMP_DIR");
  bool dump = dumpDir && *dumpDir;
  if (!dump)
    if (std::optional<std::string> entry = cache.get(key))
      if (std::optional<CompiledKernel> cached = parseCompiledEntry(*entry)) {
        cached->key = key;
        return cached;
      }
  if (dump && !dumpStages(compiler, dumpDir, options.kernel + "-" + key.substr(0, 12), diagnostics))
    return std::nullopt;
  std::ostringstream ptx;
  if (!compiler.emit(EmitKind::PTX, ptx)) {
    diagnostics = compiler.diagnosticsText();
    return std::nullopt;
  }
  CompiledKernel compiled{ptx.str(), compiler.sharedBytes(), compiler.launchThreads(),
                          /*fromCache=*/false, key};
  std::string error; // best-effort: an unwritable cache only costs the next run a compile
  cache.put(key, compiledEntry(compiled), error);
  return compiled;
}

} // namespace tk
