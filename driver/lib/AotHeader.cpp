// `tkc FILE --emit=header`: every selected kernel, at each config of its @autotune space (or
// at the -D constants), compiled to a cubin (ptxas) and PTX, embedded in a C++ header with a
// typed launcher per kernel and config that needs only libtkc-runtime.
#include "tk/Driver/AotHeader.h"

#include "tk/Codegen/Target.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

#include <cctype>
#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <thread>
#include <sstream>
#include <system_error>

namespace tk {

namespace {

/// A C++ identifier from a name or a config ("BLOCK=0.5, X=-1" -> "BLOCK_0p5__X_m1").
std::string identifier(const std::string &text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool negative = c == '-' && i > 0 && text[i - 1] == '=';
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : c == '.' ? 'p' : negative ? 'm' : '_';
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "k" + out;
  return out;
}

/// `name` as a C++ name that is no keyword and none of `taken` (a '_' appended until so): tk
/// names may be C++ keywords (`int`, `class`) or the launcher's own names.
std::string cppName(const std::string &name, const std::set<std::string> &taken = {}) {
  static const std::set<std::string> keywords = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
      "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
      "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
      "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
      "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
      "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union",
      "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "int8_t", "int16_t",
      "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "std", "tk", "tk_aot",
      // Macros of the C library and of GCC's GNU dialects (predefined `linux`, `unix`).
      "linux", "unix", "i386", "errno", "assert", "NULL", "EOF", "major", "minor", "stdin", "stdout", "stderr"};
  // The limit and constant macros of <cstdint>, which the header includes (INT32_MAX as a
  // parameter's name was the number 2147483647 in the launcher's parameter list).
  static const llvm::Regex stdintMacro("^(U?INT(8|16|32|64|_LEAST(8|16|32|64)|_FAST(8|16|32|64)|PTR|MAX)_(MIN|MAX|C)|"
                                       "PTRDIFF_(MIN|MAX)|SIZE_MAX|SIG_ATOMIC_(MIN|MAX)|WCHAR_(MIN|MAX)|WINT_(MIN|MAX))$");
  std::string out = identifier(name);
  while (keywords.count(out) || taken.count(out) || stdintMacro.match(out))
    out += '_';
  return out;
}

/// A constant's value as C++ of its type: infinities and NaN by numeric_limits, i64's minimum as
/// an expression (its literal is an unsigned number negated), u64 past i64 with its suffix.
std::string constantDefinition(const std::string &name, const Type *type, const std::string &value) {
  bool floating = type ? type->isFloatValue() : value.find_first_of(".eE") != std::string::npos;
  if (floating) {
    llvm::StringRef text(value);
    bool negative = text.consume_front("-");
    std::string number = text == "inf"   ? "::std::numeric_limits<double>::infinity()"
                         : text == "nan" ? "::std::numeric_limits<double>::quiet_NaN()"
                                         : value;
    if (number != value && negative)
      number = "-" + number;
    return "  static constexpr double " + name + " = " + number + ";\n";
  }
  if (type && type->isIntValue() && type->elem.scalar == Scalar::I1)
    return "  static constexpr bool " + name + " = " + (value == "0" || value == "false" ? "false" : "true") + ";\n";
  if (type && type->isIntValue() && isUnsigned(type->elem.scalar)) { // (u64's past i64 are kept as negative i64)
    long long bits = 0;
    if (!llvm::StringRef(value).getAsInteger(10, bits))
      return "  static constexpr uint64_t " + name + " = " + std::to_string(static_cast<unsigned long long>(bits)) +
             "ull;\n";
  }
  if (value == "-9223372036854775808")
    return "  static constexpr int64_t " + name + " = -9223372036854775807 - 1;\n";
  return "  static constexpr int64_t " + name + " = " + value + ";\n";
}

/// `text` for a // comment: control characters (a newline in a file's name would end the
/// comment, and the rest of the name would be code) as '?'.
std::string commentText(std::string text) {
  for (char &c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '?';
  return text;
}

const char *cppType(Scalar s) {
  switch (s) {
  case Scalar::I1: return "bool";
  case Scalar::I8: return "int8_t";
  case Scalar::I16: return "int16_t";
  case Scalar::I32: return "int32_t";
  case Scalar::I64: return "int64_t";
  case Scalar::U8: return "uint8_t";
  case Scalar::U16: return "uint16_t";
  case Scalar::U32: return "uint32_t";
  case Scalar::U64: return "uint64_t";
  case Scalar::F32: return "float";
  case Scalar::F64: return "double";
  default: return "uint16_t"; // f16, bf16 (and f8 in the low byte): raw bits
  }
}

const char *scalarEnum(Scalar s) {
  static const char *names[] = {"I1",     "I8",     "I16", "I32",  "I64", "U8",  "U16", "U32",
                                "U64",    "F8E4M3", "F8E5M2", "F16", "BF16", "F32", "F64"};
  return names[int(s)];
}

std::string byteArray(const std::string &bytes) {
  std::ostringstream out;
  for (size_t i = 0; i < bytes.size(); ++i)
    out << (i % 20 == 0 ? "\n    " : "") << unsigned(static_cast<unsigned char>(bytes[i])) << ",";
  return out.str();
}

/// PTX as a C++ string literal, in pieces a compiler accepts.
std::string stringLiteral(const std::string &text) {
  std::string out;
  constexpr size_t kPiece = 8000;
  for (size_t at = 0; at < text.size(); at += kPiece)
    out += "\n    R\"tkptx(" + text.substr(at, kPiece) + ")tkptx\"";
  return out.empty() ? "\"\"" : out;
}

struct Variant {
  std::string kernel, config, ptx, cubin;
  KernelSignature sig;
  int64_t sharedBytes = 0;
  int threads = 128;
};

} // namespace

bool emitAotHeader(const std::string &file, const CompileOptions &base, std::string &header, std::string &diagnostics,
                   std::string &warnings) {
  Compiler declarations(base);
  std::vector<KernelDecl> decls;
  if (!declarations.load(file) || !declarations.declarations(decls)) {
    diagnostics = declarations.diagnosticsText();
    return false;
  }
  // Every (kernel, config) to compile, in the header's order; compiled on all cores (each
  // with its own Compiler), then gathered in that order.
  struct Job {
    const KernelDecl *decl;
    std::optional<size_t> config; // the index in decl's @autotune space
  };
  std::vector<Job> jobs;
  for (const KernelDecl &decl : decls) {
    // The configs of the @autotune space, unless -D fixes a tuned constant.
    bool fixed = false;
    for (const auto &config : decl.configs)
      for (const auto &[name, value] : config)
        fixed |= base.defines.count(name) > 0;
    if (fixed || decl.configs.empty())
      jobs.push_back(Job{&decl, std::nullopt});
    else
      for (size_t i = 0; i < decl.configs.size(); ++i)
        jobs.push_back(Job{&decl, i});
  }
  std::vector<Variant> variants(jobs.size());
  std::vector<std::string> failures(jobs.size()), cubinErrors(jobs.size());
  std::vector<char> failed(jobs.size(), 0);
  std::vector<std::exception_ptr> thrown(jobs.size()); // (out of memory, say): rethrown after the join
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t j; (j = next++) < jobs.size();) try {
      CompileOptions options = base;
      options.kernel = jobs[j].decl->name;
      // The -D were checked against every kernel above; each names a constant of some, not of all.
      options.ignoreUnknownDefines = true;
      options.autotuneConfig = jobs[j].config;
      Compiler compiler(options);
      std::ostringstream ptx;
      if (!compiler.load(file) || !compiler.emit(EmitKind::PTX, ptx)) {
        failures[j] = compiler.diagnosticsText();
        failed[j] = 1;
        continue;
      }
      Variant &v = variants[j];
      v.kernel = jobs[j].decl->name;
      v.sig = compiler.signatures().at(0);
      v.ptx = ptx.str();
      v.sharedBytes = compiler.sharedBytes();
      v.threads = compiler.launchThreads();
      v.config = configText(v.sig.constants);
      v.config += std::string(v.config.empty() ? "" : ", ") + "num_warps=" + std::to_string(v.sig.numWarps) +
                  ", num_stages=" + std::to_string(v.sig.numStages) +
                  (v.sig.warpSpecialize ? ", warp_specialize=" + std::to_string(v.sig.warpSpecialize) : "") +
                  (v.sig.clusterSize > 1 ? ", cluster_size=" + std::to_string(v.sig.clusterSize) : "");
      GpuTarget target;
      target.sm = base.sm;
      target.archSpecific = base.archSpecific;
      v.cubin = assembleCubin(v.ptx, target, cubinErrors[j]);
      if (v.cubin.empty() && cubinErrors[j].empty())
        cubinErrors[j] = "ptxas gave nothing";
    } catch (...) {
      thrown[j] = std::current_exception();
      failed[j] = 1;
    }
  };
  size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 16);
  threads = std::min(threads, jobs.size());
  std::vector<std::thread> pool;
  try {
    for (size_t t = 1; t < threads; ++t)
      pool.emplace_back(work);
  } catch (const std::system_error &) { // no more threads: the ones there (and this one) do the rest
  }
  work();
  for (std::thread &thread : pool)
    thread.join();
  // A config of a space that does not compile (one past the shared memory, or refused by an
  // assertion under the -D given) is left out, as the JIT's tuner leaves it out, with a warning
  // naming it; a kernel none of whose configs compiles is an error (the first failure's).
  std::set<const KernelDecl *> compiled;
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (thrown[j])
      std::rethrow_exception(thrown[j]);
    if (!failed[j])
      compiled.insert(jobs[j].decl);
  }
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (!failed[j])
      continue;
    std::string which = "kernel '" + jobs[j].decl->name + "'";
    if (jobs[j].config)
      which = "@autotune config " + std::to_string(*jobs[j].config) + " {" +
              configText(jobs[j].decl->configs[*jobs[j].config]) + "} of " + which;
    if (!compiled.count(jobs[j].decl)) {
      diagnostics = "tkc: error: " + which + " does not compile" + (failures[j].empty() ? "\n" : ":\n" + failures[j]);
      return false;
    }
    size_t at = failures[j].find("error: ");
    std::string why = at == std::string::npos ? "" : failures[j].substr(at + 7);
    warnings += "tkc: warning: " + which + " left out: it does not compile" +
                (why.empty() ? "" : " (" + why.substr(0, why.find('\n')) + ")") + "\n";
  }
  for (size_t j = 0; j < jobs.size(); ++j)
    if (!failed[j] && variants[j].cubin.empty()) {
      const std::string &error = cubinErrors[j];
      warnings += "tkc: warning: no cubin (" + error.substr(0, error.find('\n')) +
                  "); the header embeds PTX only, which the driver compiles at first launch\n";
      break;
    }

  std::string stem = cppName(std::filesystem::path(file).stem().string());
  std::ostringstream h;
  h << "// Generated by tkc from " << commentText(std::filesystem::path(file).filename().string())
    << " (--emit=header): kernels compiled ahead of time, a cubin for sm_" << base.sm
    << " and PTX for newer GPUs.\n// Include it and link tkc::runtime (libtkc-runtime); no compiler is needed at run time."
       " Do not edit.\n#pragma once\n\n#include <tk/Runtime/Aot.h>\n\n#include <cstdint>\n#include <cstring>\n#include <limits>\n\n"
    << "namespace tk_aot {\nnamespace " << stem << " {\n";
  // The launcher's own names (parameters, locals, members): a kernel's parameter or constant of
  // the same name is renamed (a '_' appended), as is a C++ keyword; tk's types are spelled
  // ::tk:: (a file named tk.tk makes a namespace tk_aot::tk).
  const std::set<std::string> launcherNames = {"tk_context", "tk_grid", "tk_stream", "tk_kernel", "tk_params",
                                               "tk_slots", "tk_cubin", "tk_ptx"};
  const std::set<std::string> memberNames = {"launch", "tk_cubin", "tk_ptx", "num_warps", "num_stages"};
  // The namespace's names: each kernel's alias (below), then each config's struct, each unique
  // (configs 1e22 and 1e-22 both spell ..._1e_22, and a kernel may be named as another's config).
  std::map<std::string, int> firstOfKernel;
  for (size_t i = 0; i < variants.size(); ++i)
    if (!failed[i])
      firstOfKernel.emplace(variants[i].kernel, int(i));
  std::set<std::string> namespaceNames; // (kernels `int` and `int_` would both be int_)
  std::map<std::string, std::string> aliases;
  for (const auto &[kernel, index] : firstOfKernel)
    namespaceNames.insert(aliases[kernel] = cppName(kernel, namespaceNames));
  std::vector<std::string> structNames(variants.size());
  for (size_t i = 0; i < variants.size(); ++i) {
    if (failed[i]) // (left out above)
      continue;
    const Variant &v = variants[i];
    std::string name = structNames[i] = cppName(v.kernel + "__" + v.config, namespaceNames);
    namespaceNames.insert(name);
    h << "\n/// " << v.kernel << " {" << v.config << "}: " << v.threads << " threads, " << v.sharedBytes
      << " bytes of dynamic shared memory.\nstruct " << name << " {\n";
    std::set<std::string> members = memberNames;
    for (const auto &[constant, value] : v.sig.constants) {
      std::string member = cppName(constant, members);
      members.insert(member);
      if (std::optional<Scalar> dtype = parseScalar(value)) { // a `const T: dtype` parameter
        h << "  static constexpr ::tk::Scalar " << member << " = ::tk::Scalar::" << scalarEnum(*dtype) << ";\n";
        continue;
      }
      auto typed = llvm::find_if(v.sig.constantTypes, [&, name = constant](const auto &c) { return c.first == name; });
      h << constantDefinition(member, typed != v.sig.constantTypes.end() ? &typed->second : nullptr, value);
    }
    h << "  static constexpr int num_warps = " << v.sig.numWarps << ", num_stages = " << v.sig.numStages << ";\n";
    h << "  static inline const unsigned char tk_cubin[] = {" << byteArray(v.cubin) << (v.cubin.empty() ? "0" : "")
      << "\n  };\n  static inline const char tk_ptx[] = " << stringLiteral(v.ptx) << ";\n\n";
    std::set<std::string> names = launcherNames;
    std::vector<std::string> params;
    for (const auto &[param, type] : v.sig.args) {
      params.push_back(cppName(param, names));
      names.insert(params.back());
    }
    h << "  static void launch(::tk::Context &tk_context, ::tk::Grid tk_grid";
    for (size_t k = 0; k < params.size(); ++k) {
      const Type &type = v.sig.args[k].second;
      h << ", " << (type.isPtr() ? "const ::tk::Buffer &" : std::string(cppType(type.elem.scalar)) + " ") << params[k];
    }
    h << ", const ::tk::Stream &tk_stream = ::tk::Stream()) {\n";
    h << "    static ::tk::AotKernel tk_kernel(\"" << v.kernel << "\", tk_cubin, " << v.cubin.size() << ", " << base.sm
      << ", tk_ptx, " << v.threads << ", " << v.sharedBytes << ");\n";
    if (!params.empty())
      h << "    unsigned long long tk_slots[" << params.size() << "] = {};\n";
    for (size_t k = 0; k < params.size(); ++k) {
      const auto &[param, type] = v.sig.args[k];
      std::string slot = "tk_slots[" + std::to_string(k) + "]";
      auto divisibility = base.divisibility.find(param);
      if (type.isPtr()) {
        int64_t alignment = divisibility != base.divisibility.end() ? divisibility->second : 16;
        h << "    " << slot << " = ::tk::aotBufferPointer(\"" << v.kernel << "\", \"" << param << "\", " << params[k]
          << ", ::tk::Scalar::" << scalarEnum(type.elem.scalar) << ", tk_context);\n";
        if (alignment > 1)
          h << "    ::tk::checkAotPointer(\"" << v.kernel << "\", \"" << param << "\", " << slot << ", " << alignment
            << ");\n";
        continue;
      }
      if (type.isIntValue() && divisibility != base.divisibility.end() && divisibility->second > 1)
        h << "    ::tk::checkAotDivisible(\"" << v.kernel << "\", \"" << param << "\", int64_t(" << params[k] << "), "
          << divisibility->second << ");\n";
      h << "    std::memcpy(&" << slot << ", &" << params[k] << ", sizeof(" << params[k] << "));\n";
    }
    h << "    void *tk_params[] = {";
    for (size_t k = 0; k < params.size(); ++k)
      h << (k ? ", " : "") << "&tk_slots[" << k << "]";
    h << (params.empty() ? "nullptr" : "") << "};\n    tk_kernel.launch(tk_context, tk_grid, tk_params, tk_stream);\n  }\n};\n";
  }
  h << "\n// Each kernel under its own name: its first config.\n";
  for (const auto &[kernel, index] : firstOfKernel)
    h << "using " << aliases[kernel] << " = " << structNames[index] << ";\n";
  h << "\n} // namespace " << stem << "\n} // namespace tk_aot\n";
  header = h.str();
  return true;
}

} // namespace tk
