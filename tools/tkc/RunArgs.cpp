#include "RunArgs.h"
#include "tk/Support/Philox.h"
#include "tk/Support/IntegerLiteral.h"

#include "tk/Driver/Compiler.h"
#include "tk/Frontend/FileIO.h"

#include "tk/Support/FloatFormats.h"
#include "tk/Runtime/Npy.h"

#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <string_view>

namespace tk::runargs {

const std::vector<std::string> &archNames() {
  static const std::vector<std::string> names{"sm_80", "sm_89", "sm_90", "sm_90a"};
  return names;
}

bool applyArch(const std::string &arch, CompileOptions &options) {
  if (std::find(archNames().begin(), archNames().end(), arch) == archNames().end())
    return false;
  options.sm = std::stoi(arch.substr(3, 2)); // "sm_NN" or "sm_NNa"
  options.archSpecific = arch.back() == 'a';
  return true;
}

std::optional<std::pair<std::string, std::string>> parseAssignment(const std::string &text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    return std::nullopt;
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

std::pair<std::string, std::string> splitAssignment(const std::string &text, const std::string &what) {
  if (auto assignment = parseAssignment(text))
    return *assignment;
  throw UsageError(what + " needs NAME=VALUE, got '" + text + "'");
}

/// The kernel of a file that has one; a usage error naming them when it has several (a file
/// that does not load is left to the compile, which reports why).
std::string onlyKernel(const std::string &file) {
  Compiler compiler(CompileOptions{});
  std::vector<KernelDecl> kernels;
  if (!compiler.load(file) || !compiler.declarations(kernels) || kernels.size() == 1)
    return kernels.size() == 1 ? kernels.front().name : std::string();
  std::string names;
  for (const KernelDecl &k : kernels)
    names += (names.empty() ? "" : ", ") + k.name;
  if (kernels.empty())
    throw UsageError(file + " has no kernels to run");
  throw UsageError(file + " has " + std::to_string(kernels.size()) + " kernels (" + names +
                   "): choose one with --kernel NAME");
}

void finishRunOptions(RunOptions &o) {
  if (o.file.empty())
    throw UsageError("no input file");
  if (o.kernel.empty())
    o.kernel = onlyKernel(o.file);
  if (o.grid.empty())
    throw UsageError("--grid X[,Y,Z] is required (the programs in each dimension; not empty)");
  if (!o.backend.empty() && o.backend != "interp" && o.backend != "cuda")
    throw UsageError("unknown backend '" + o.backend + "' (interp, cuda)");
  if (o.profile && o.timedRuns == 0)
    o.timedRuns = 20;
}

std::vector<int64_t> parseShape(const std::string &text, const std::string &arg) {
  // Decimal sizes, none empty: "", "64x", "+64" and " 64" are mistakes, not one element or 64
  // (strtoll and getline took them so).
  std::vector<int64_t> shape;
  size_t start = 0;
  while (true) {
    size_t end = std::min(text.find('x', start), text.size());
    uint64_t v = 0;
    // (A size of 0 is a buffer of no elements, as an empty .npy is: a matmul's K of 0.)
    if (getAsInteger(text.substr(start, end - start), 10, v) || v > uint64_t(INT64_MAX))
      throw UsageError("argument '" + arg + "': bad shape '" + text + "' (use e.g. 64x64)");
    shape.push_back(int64_t(v));
    if (end == text.size())
      return shape;
    start = end + 1;
  }
}

/// Fills a generated buffer from Philox-4x32-10 (tk/Support/Philox.h, the language's rand), so
/// that any language can make the same values: element k is word k % 4 of counter k / 4 under
/// key seed ^ FNV-1a-64(name); floats 2u - 1 for u = uniformOf(word) (in [-1, 1), rounded to the
/// element type), integers word % 100, bools word & 1.
void fillRandom(HostBuffer &buffer, uint64_t seed) {
  uint64_t key = 0xcbf29ce484222325ull; // FNV-1a 64 of the name
  for (unsigned char c : buffer.name)
    key = (key ^ c) * 0x100000001b3ull;
  key ^= seed;
  int bytes = (bitWidth(buffer.elem) + 7) / 8;
  uint32_t words[4];
  for (size_t k = 0; k < buffer.elementCount(); ++k) {
    if (k % 4 == 0)
      philox::generate(key, uint32_t(k / 4), words);
    uint32_t word = words[k % 4];
    float f = 2.0f * philox::uniformOf(word) - 1.0f;
    double r = f;
    uint64_t bits = 0;
    switch (buffer.elem) {
    case Scalar::F64: std::memcpy(&bits, &r, 8); break;
    case Scalar::F32: { uint32_t u; std::memcpy(&u, &f, 4); bits = u; break; }
    case Scalar::F16: bits = fp::floatToHalf(f); break;
    case Scalar::BF16: bits = fp::floatToBf16(f); break;
    case Scalar::F8E4M3: bits = fp::floatToF8e4m3(f); break;
    case Scalar::F8E5M2: bits = fp::floatToF8e5m2(f); break;
    case Scalar::I1: bits = word & 1; break;
    default: bits = word % 100; break;
    }
    std::memcpy(buffer.bytes.data() + k * bytes, &bits, bytes);
  }
}

namespace {

/// A generated buffer's spec (zeros:T:SHAPE or rand:T:SHAPE) checked against the kernel's
/// pointee: its shape and bytes. Throws UsageError.
struct GeneratedBuffer {
  bool random = false;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
};
GeneratedBuffer parseGenerated(const std::string &name, const std::string &spec, Scalar pointee) {
  size_t colon1 = spec.find(':'), colon2 = spec.find(':', colon1 + 1);
  std::string kind = spec.substr(0, colon1);
  if (colon1 == std::string::npos || colon2 == std::string::npos || (kind != "zeros" && kind != "rand"))
    throw UsageError("argument '" + name + "': '" + spec + "' is not a buffer (use @file.npy, zeros:T:SHAPE or rand:T:SHAPE)");
  std::string type = spec.substr(colon1 + 1, colon2 - colon1 - 1);
  auto scalar = parseScalar(type);
  if (!scalar)
    throw UsageError("argument '" + name + "': '" + type + "' is not an element type (f32, bf16, f8e4m3, i32, ...)");
  if (*scalar != pointee)
    throw UsageError("argument '" + name + "': generated type '" + type + "' does not match the kernel's ptr<" +
                     scalarName(pointee) + ">");
  GeneratedBuffer out;
  out.random = kind == "rand";
  out.shape = parseShape(spec.substr(colon2 + 1), name);
  uint64_t count = 1;
  for (int64_t d : out.shape) {
    uint64_t product;
    if (__builtin_mul_overflow(count, uint64_t(d), &product) || product > kMaxBufferElements)
      throw UsageError("argument '" + name + "': the shape " + spec.substr(colon2 + 1) + " has more than " +
                       std::to_string(kMaxBufferElements) + " elements, the limit of a buffer");
    count = product;
  }
  out.bytes = count * uint64_t((bitWidth(pointee) + 7) / 8);
  return out;
}

/// A UsageError unless `bytes` more (argument `name`'s, after `before` of the arguments ahead
/// of it) fit the machine's memory.
void requireMemory(const std::string &name, uint64_t bytes, uint64_t before) {
  double physical = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  if (double(before) + double(bytes) > physical)
    throw UsageError("argument '" + name + "': " + std::to_string(bytes) + " bytes" +
                     (before ? " after the " + std::to_string(before) + " of the buffers before it" : "") +
                     ", more than the " + std::to_string(int64_t(physical)) + " bytes of this machine's memory");
}

} // namespace

HostBuffer makeBuffer(const std::string &name, const std::string &spec, Scalar pointee, uint64_t seed) {
  HostBuffer buffer;
  buffer.name = name;
  buffer.elem = pointee;
  int bytes = (bitWidth(pointee) + 7) / 8;
  if (!spec.empty() && spec[0] == '@') {
    std::string path = spec.substr(1);
    NpyArray array;
    try {
      array = readNpy(path);
    } catch (const std::runtime_error &e) {
      throw UsageError("argument '" + name + "': " + e.what());
    }
    if (array.descriptor != npyDescriptor(pointee)) {
      std::string need = npyTypeName(npyDescriptor(pointee));
      bool raw = pointee == Scalar::BF16 || pointee == Scalar::F8E4M3 || pointee == Scalar::F8E5M2;
      throw UsageError("argument '" + name + "': " + path + " holds " + npyTypeName(array.descriptor) +
                       " but the kernel reads ptr<" + scalarName(pointee) + ">, which needs " + need +
                       (raw ? " (raw bits: numpy has no " + std::string(scalarName(pointee)) + ")" : ""));
    }
    buffer.shape = array.shape;
    buffer.bytes = std::move(array.bytes);
    return buffer;
  }
  GeneratedBuffer generated = parseGenerated(name, spec, pointee);
  buffer.shape = generated.shape;
  uint64_t count = generated.bytes / uint64_t(bytes);
  // Past the machine's memory the allocation may well succeed (overcommitted) and the kernel
  // then be killed filling it: refused first.
  requireMemory(name, generated.bytes, 0);
  try {
    buffer.bytes.assign(count * bytes, 0);
  } catch (const std::bad_alloc &) {
    throw UsageError("argument '" + name + "': cannot allocate " + std::to_string(count * bytes) +
                     " bytes of host memory for it");
  }
  if (generated.random)
    fillRandom(buffer, seed);
  return buffer;
}

/// `value` rounded once to the float type `s`, as the kernel receives it.
static double roundedTo(Scalar s, double value) {
  switch (s) {
  case Scalar::F64: return value;
  case Scalar::F16: return fp::halfToFloat(fp::toHalfRoundedOnce(value));
  case Scalar::BF16: return fp::bf16ToFloat(fp::toBf16RoundedOnce(value));
  case Scalar::F8E4M3: return fp::f8e4m3ToFloat(fp::floatToF8e4m3(fp::toFloatRoundToOdd(value)));
  case Scalar::F8E5M2: return fp::f8e5m2ToFloat(fp::floatToF8e5m2(fp::toFloatRoundToOdd(value)));
  default: return double(float(value));
  }
}

ArgValue scalarArg(const std::string &name, const std::string &text, const Type &type) {
  ArgValue v;
  char *end = nullptr;
  bool fits = true;
  if (type.isFloatValue()) {
    errno = 0;
    v.f = std::strtod(text.c_str(), &end);
    // A finite value must stay finite in the parameter's own type (f32's range was checked for
    // every type: s=1000 for an f8e4m3 became NaN, s=70000 for an f16 inf).
    fits = !(errno == ERANGE && std::isinf(v.f)) && !(std::isfinite(v.f) && !std::isfinite(roundedTo(type.elem.scalar, v.f)));
  } else if (type.isBool()) {
    if (text == "true" || text == "1") v.i = 1;
    else if (text == "false" || text == "0") v.i = 0;
    else end = const_cast<char *>("x");
  } else {
    // The language's literal grammar, as in source (`010` is ten), with an optional sign.
    std::string why;
    std::optional<SignedLiteral> literal = parseSignedIntegerLiteral(text, why);
    if (!literal)
      throw UsageError("argument '" + name + "': '" + text + "' is not a valid " + type.str() + " (it " + why + ")");
    std::optional<int64_t> value = literal->fitting(bitWidth(type.elem.scalar), isUnsigned(type.elem.scalar));
    v.i = value.value_or(0);
    fits = value.has_value();
  }
  if (text.empty() || (end && *end))
    throw UsageError("argument '" + name + "': '" + text + "' is not a valid " + type.str());
  if (!fits)
    throw UsageError("argument '" + name + "': " + text + " does not fit in " + type.str());
  return v;
}

std::vector<ArgValue> bindArguments(const std::string &kernel, const std::vector<std::pair<std::string, Type>> &params,
                                    const RunOptions &options, std::vector<HostBuffer> &buffers,
                                    std::map<std::string, int64_t> &integers) {
  std::map<std::string, std::string> given;
  for (auto &[name, value] : options.args) {
    bool known = false;
    for (auto &[param, type] : params)
      known |= param == name;
    if (!known) {
      std::string names;
      for (auto &[param, type] : params)
        names += (names.empty() ? "" : ", ") + param;
      throw UsageError("unknown argument '" + name + "' (kernel '" + kernel + "' takes " + names + ")");
    }
    if (!given.emplace(name, value).second)
      throw UsageError("argument '" + name + "' given twice");
  }
  // Every missing argument at once, each with its type.
  std::string missing;
  for (auto &[param, type] : params)
    if (!given.count(param))
      missing += (missing.empty() ? "" : ", ") + param + ": " + type.str();
  if (!missing.empty())
    throw UsageError(std::string(missing.find(',') == std::string::npos ? "missing argument " : "missing arguments ") +
                     missing);
  // The generated buffers fit the machine's memory together, each alone (makeBuffer) too: all
  // checked before any is allocated.
  uint64_t generatedBytes = 0;
  for (auto &[param, type] : params) {
    const std::string &spec = given.find(param)->second;
    if (type.isPtr() && !(!spec.empty() && spec[0] == '@')) {
      uint64_t bytes = parseGenerated(param, spec, type.elem.scalar).bytes;
      requireMemory(param, bytes, generatedBytes);
      generatedBytes += bytes;
    }
  }
  std::vector<ArgValue> args;
  for (auto &[param, type] : params) {
    auto it = given.find(param);
    if (type.isPtr()) {
      buffers.push_back(makeBuffer(param, it->second, type.elem.scalar, options.seed));
      ArgValue v;
      v.buffer = int(buffers.size() - 1);
      args.push_back(v);
    } else {
      ArgValue v = scalarArg(param, it->second, type);
      args.push_back(v);
      if (type.isIntValue())
        integers[param] = v.i;
    }
  }
  return args;
}

/// Splits "a,cdiv(n,b),1" at top-level commas; a usage error names an empty dimension ('4,').
std::vector<std::string> splitGrid(const std::string &grid) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (char c : grid) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) parts.emplace_back();
    else parts.back() += c;
  }
  for (size_t d = 0; d < parts.size(); ++d)
    if (parts[d].find_first_not_of(" \t") == std::string::npos)
      throw UsageError("--grid '" + grid + "': dimension " + std::to_string(d + 1) + " of " +
                       std::to_string(parts.size()) + " is empty");
  return parts;
}

std::string outputConflict(const std::vector<std::pair<std::string, std::string>> &outputs,
                           const std::vector<std::string> &inputs) {
  namespace fs = std::filesystem;
  // One file by two names: the same path once symbolic links and "." / ".." are resolved, or,
  // for files that exist, the same file (a hard link).
  auto same = [](const std::string &a, const std::string &b) {
    std::error_code ignored, ec1, ec2;
    if (fs::equivalent(a, b, ignored))
      return true;
    fs::path ca = fs::weakly_canonical(fs::absolute(a), ec1), cb = fs::weakly_canonical(fs::absolute(b), ec2);
    return !ec1 && !ec2 && ca == cb;
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto &[label, path] = outputs[i];
    if (path == "-" || path.empty())
      continue;
    std::error_code ignored;
    if (fs::is_directory(path, ignored))
      return label + " '" + path + "' is a folder: it needs a file";
    for (const std::string &input : inputs)
      if (same(path, input))
        return label + " '" + path + "' is " + (input == inputs.front() ? "the source file" : "a file it imports") +
               ": writing it would replace it";
    for (size_t j = 0; j < i; ++j)
      if (outputs[j].second != "-" && same(path, outputs[j].second))
        return label + " '" + path + "' names the file of " + outputs[j].first + " too";
  }
  return "";
}

std::vector<std::string> loadedFiles(const Compiler &compiler) {
  std::vector<std::string> files;
  for (const auto &[path, text] : compiler.sources())
    files.push_back(path);
  return files;
}

int saveBuffers(const RunOptions &options, const std::vector<HostBuffer> &buffers, std::ostream &err,
                const std::string &command) {
  std::vector<std::unique_ptr<AtomicFile>> files;
  std::string error;
  for (auto &[name, path] : options.saves)
    for (const auto &b : buffers)
      if (b.name == name) {
        files.push_back(AtomicFile::create(path, FileKind::Output, error));
        if (!files.back() || !files.back()->write(npyBytes(b), error)) {
          err << command << ": error: " << error << "\n";
          return 1;
        }
      }
  for (auto &file : files)
    if (!file->commit(error)) {
      err << command << ": error: " << error << "\n";
      return 1;
    }
  return 0;
}


namespace {

// llvm/lib/Support/StringRef.cpp's GetAutoSenseRadix, consumeUnsignedInteger and
// consumeSignedInteger, on a string_view.
unsigned autoSenseRadix(std::string_view &s) {
  auto consumeInsensitive = [&](char a, char b) {
    if (s.size() >= 2 && s[0] == a && std::tolower(static_cast<unsigned char>(s[1])) == b) {
      s.remove_prefix(2);
      return true;
    }
    return false;
  };
  if (s.empty())
    return 10;
  if (consumeInsensitive('0', 'x'))
    return 16;
  if (consumeInsensitive('0', 'b'))
    return 2;
  if (s.size() >= 2 && s[0] == '0' && s[1] == 'o') {
    s.remove_prefix(2);
    return 8;
  }
  if (s[0] == '0' && s.size() > 1 && std::isdigit(static_cast<unsigned char>(s[1]))) {
    s.remove_prefix(1);
    return 8;
  }
  return 10;
}

bool consumeUnsigned(std::string_view &s, unsigned radix, unsigned long long &result) {
  if (radix == 0)
    radix = autoSenseRadix(s);
  if (s.empty())
    return true;
  std::string_view rest = s;
  result = 0;
  while (!rest.empty()) {
    unsigned digit;
    if (rest[0] >= '0' && rest[0] <= '9')
      digit = rest[0] - '0';
    else if (rest[0] >= 'a' && rest[0] <= 'z')
      digit = rest[0] - 'a' + 10;
    else if (rest[0] >= 'A' && rest[0] <= 'Z')
      digit = rest[0] - 'A' + 10;
    else
      break;
    if (digit >= radix)
      break;
    unsigned long long previous = result;
    result = result * radix + digit;
    if (result / radix < previous)
      return true;
    rest.remove_prefix(1);
  }
  if (rest.size() == s.size())
    return true;
  s = rest;
  return false;
}

bool getAsSigned(const std::string &text, unsigned radix, long long &result) {
  std::string_view s = text;
  unsigned long long magnitude;
  if (s.empty() || s[0] != '-') {
    if (consumeUnsigned(s, radix, magnitude) || static_cast<long long>(magnitude) < 0 || !s.empty())
      return true;
    result = static_cast<long long>(magnitude);
    return false;
  }
  s.remove_prefix(1);
  if (consumeUnsigned(s, radix, magnitude) || static_cast<long long>(-magnitude) > 0 || !s.empty())
    return true;
  result = static_cast<long long>(-magnitude);
  return false;
}

} // namespace

bool getAsInteger(const std::string &text, unsigned radix, uint64_t &value) {
  std::string_view s = text;
  unsigned long long result;
  if (consumeUnsigned(s, radix, result) || !s.empty())
    return true;
  value = result;
  return false;
}

bool getAsInteger(const std::string &text, unsigned radix, int64_t &value) {
  long long result;
  if (getAsSigned(text, radix, result))
    return true;
  value = result;
  return false;
}

bool getAsInteger(const std::string &text, unsigned radix, int &value) {
  long long result;
  if (getAsSigned(text, radix, result) || static_cast<int>(result) != result)
    return true;
  value = int(result);
  return false;
}

} // namespace tk::runargs
