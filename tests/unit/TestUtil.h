// Helpers for the unit tests and the fuzz targets: compile a source string and look at what came
// out; a private temporary folder; a safetensors file.
#ifndef TK_TESTS_UNIT_TESTUTIL_H
#define TK_TESTS_UNIT_TESTUTIL_H

#include "tk/Driver/Compiler.h"
#include "tk/Frontend/Sema.h"

#include <cstdlib>
#include <sstream>
#include <unistd.h>
#include <string>

namespace tk::test {

/// The message of the exception of type E that `body` throws ("" when it throws none).
template <typename E, typename F> std::string messageOf(F body) {
  try {
    body();
  } catch (const E &e) {
    return e.what();
  }
  return "";
}

/// A fresh directory under /tmp, removed with everything in it at the end of its scope.
class TempDir {
public:
  explicit TempDir(const std::string &prefix = "tk-test") {
    std::string pattern = "/tmp/" + prefix + "-XXXXXX";
    if (char *made = ::mkdtemp(pattern.data()))
      path_ = made;
  }
  ~TempDir() {
    if (!path_.empty())
      std::system(("rm -rf '" + path_ + "'").c_str());
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

/// A safetensors file: the 8-byte little-endian header length, the header, the data.
inline std::string safetensors(const std::string &header, const std::string &data) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i)
    out[i] = char(n >> (8 * i) & 0xff);
  return out + header + data;
}

/// The first error as "LINE:COL: message", or "" when the source compiled to tk IR.
inline std::string firstError(const std::string &source, std::map<std::string, std::string> defines = {}) {
  CompileOptions options;
  options.defines = std::move(defines);
  Compiler compiler(options);
  std::ostringstream out;
  bool ok = compiler.load("test.tk", &source) && compiler.emit(EmitKind::Tk, out);
  for (const Diagnostic &d : compiler.diagnostics().diagnostics())
    if (d.severity == Severity::Error)
      return std::to_string(d.range.begin.line) + ":" + std::to_string(d.range.begin.col) + ": " + d.message;
  return ok ? "" : "failed without a diagnostic";
}

/// The tk IR of a source that must compile.
inline std::string emitTk(const std::string &source, bool optimize = false) {
  CompileOptions options;
  options.optimize = optimize;
  Compiler compiler(options);
  std::ostringstream out;
  if (!compiler.load("test.tk", &source) || !compiler.emit(EmitKind::Tk, out))
    return "ERROR: " + compiler.diagnosticsText();
  return out.str();
}

/// The type Sema gives `expr` inside a kernel with these parameters and leading statements,
/// written as the language writes types (`f16[64, 32]`), or the first error; with `withValue`,
/// an integer constant's value before it (`-5 i64 (weak)`).
inline std::string typeOf(const std::string &expr, const std::string &prelude = "", bool withValue = false) {
  std::string source =
      "fn twice(v) { return v + v; }\n"
      "fn pick(c, a, b) { return where(c, a, b); }\n"
      "fn add2(a, b) { return a + b; }\n"
      "kernel k(pf32: ptr<f32>, pf16: ptr<f16>, pi8: ptr<i8>, pu32: ptr<u32>, n: i32, m: i64,\n"
      "         u: u32, h: f16, bf: bf16, f: f32, d: f64, flag: i1, const B: i32 = 64) {\n"
      "  let r16 = arange(0, 16); let r32 = arange(0, 32); let r64 = arange(0, 64);\n"
      "  let t16x32 = zeros([16, 32], f16); let t32x16 = zeros([32, 16], f16); let t16x16 = zeros([16, 16], f32);\n" +
      prelude + "\n  let result = " + expr + ";\n}\n";
  SourceManager sources;
  DiagEngine diags(sources);
  Program program(sources, diags, {});
  if (!program.loadMain("test.tk", &source))
    return "parse error: " + (diags.diagnostics().empty() ? std::string() : diags.diagnostics()[0].message);
  Sema sema(program, diags);
  auto instance = sema.instantiate(*program.mainModule()->kernels[0], {}, nullptr);
  if (!instance)
    return diags.diagnostics().empty() ? "error" : diags.diagnostics()[0].message;
  for (const StmtPtr &stmt : instance->body->stmts)
    if (auto *let = dyn<LetStmt>(stmt.get()); let && let->name == "result") {
      const Type &type = let->init->type;
      std::string value;
      if (withValue && let->init->value && let->init->value->kind == ConstValue::Kind::Int)
        value = (type.elem.scalar == Scalar::U64 ? std::to_string(uint64_t(let->init->value->i))
                                                 : std::to_string(let->init->value->i)) + " ";
      return value + type.str() + (type.weak ? " (weak)" : "");
    }
  return "no result";
}

} // namespace tk::test

#endif
