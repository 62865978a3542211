#include "tk/Runtime/RunCommand.h"

#include "tk/Frontend/Compiler.h"
#include "tk/Runtime/CudaBackend.h"
#include "tk/Runtime/KernelCompile.h"
#include "tk/Runtime/CudaDriver.h"
#include "tk/Runtime/FloatFormats.h"
#include "tk/Runtime/Interpreter.h"
#include "tk/Runtime/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <sstream>

namespace tk {

namespace {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunOptions {
  std::string file, kernel, grid, backend; // backend: cuda when a GPU is present, else interp
  uint64_t seed = 0;
  int timedRuns = 0;
  bool debug = false; // check `assert` on the GPU too (the interpreter always does)
  std::map<std::string, std::string> defines;
  std::vector<std::pair<std::string, std::string>> args;  // NAME=VALUE in order
  std::vector<std::pair<std::string, std::string>> saves; // NAME=PATH
};

std::pair<std::string, std::string> splitAssignment(const std::string &text, const std::string &what) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError(what + " needs NAME=VALUE, got '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

RunOptions parseOptions(const std::vector<std::string> &args) {
  RunOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&](const std::string &flag) -> std::optional<std::string> {
      if (a.rfind(flag + "=", 0) == 0)
        return a.substr(flag.size() + 1);
      if (a == flag) {
        if (i + 1 >= args.size())
          throw UsageError(flag + " needs a value");
        return args[++i];
      }
      return std::nullopt;
    };
    if (a.rfind("-D", 0) == 0) {
      auto [name, v] = splitAssignment(a.size() > 2 ? a.substr(2) : (i + 1 < args.size() ? args[++i] : ""), "-D");
      o.defines[name] = v;
    } else if (auto v = value("--kernel")) {
      o.kernel = *v;
    } else if (auto v = value("--grid")) {
      o.grid = *v;
    } else if (auto v = value("--backend")) {
      o.backend = *v;
    } else if (auto v = value("--save")) {
      o.saves.push_back(splitAssignment(*v, "--save"));
    } else if (auto v = value("--seed")) {
      o.seed = std::stoull(*v);
    } else if (auto v = value("--time")) {
      o.timedRuns = std::stoi(*v);
    } else if (a == "--debug") {
      o.debug = true;
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option '" + a + "'");
    } else if (o.file.empty()) {
      o.file = a;
    } else {
      o.args.push_back(splitAssignment(a, "argument"));
    }
  }
  if (o.file.empty())
    throw UsageError("no input file");
  if (o.kernel.empty())
    throw UsageError("--kernel NAME is required");
  if (o.grid.empty())
    throw UsageError("--grid X[,Y,Z] is required");
  if (!o.backend.empty() && o.backend != "interp" && o.backend != "cuda")
    throw UsageError("unknown backend '" + o.backend + "' (interp, cuda)");
  return o;
}

std::vector<int64_t> parseShape(const std::string &text, const std::string &arg) {
  std::vector<int64_t> shape;
  std::stringstream ss(text);
  std::string dim;
  while (std::getline(ss, dim, 'x')) {
    char *end = nullptr;
    long long v = std::strtoll(dim.c_str(), &end, 10);
    if (dim.empty() || *end || v <= 0)
      throw UsageError("argument '" + arg + "': bad shape '" + text + "' (use e.g. 64x64)");
    shape.push_back(v);
  }
  return shape;
}

/// Fills a generated buffer: floats uniform in [-1, 1) (rounded to the element type),
/// integers uniform in [0, 100), bools fair coins; deterministic for a seed and the name.
void fillRandom(HostBuffer &buffer, uint64_t seed) {
  std::mt19937_64 rng(seed ^ std::hash<std::string>()(buffer.name));
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(0, 99);
  int bytes = (bitWidth(buffer.elem) + 7) / 8;
  for (size_t k = 0; k < buffer.elementCount(); ++k) {
    uint64_t bits = 0;
    double r = real(rng);
    float f = float(r);
    switch (buffer.elem) {
    case Scalar::F64: std::memcpy(&bits, &r, 8); break;
    case Scalar::F32: { uint32_t u; std::memcpy(&u, &f, 4); bits = u; break; }
    case Scalar::F16: bits = fp::floatToHalf(f); break;
    case Scalar::BF16: bits = fp::floatToBf16(f); break;
    case Scalar::F8E4M3: bits = fp::floatToF8e4m3(f); break;
    case Scalar::F8E5M2: bits = fp::floatToF8e5m2(f); break;
    case Scalar::I1: bits = small(rng) & 1; break;
    default: bits = uint64_t(small(rng)); break;
    }
    std::memcpy(buffer.bytes.data() + k * bytes, &bits, bytes);
  }
}

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
  size_t colon1 = spec.find(':'), colon2 = spec.find(':', colon1 + 1);
  std::string kind = spec.substr(0, colon1);
  if (colon1 == std::string::npos || colon2 == std::string::npos || (kind != "zeros" && kind != "rand"))
    throw UsageError("argument '" + name + "': '" + spec + "' is not a buffer (use @file.npy, zeros:T:SHAPE or rand:T:SHAPE)");
  std::string type = spec.substr(colon1 + 1, colon2 - colon1 - 1);
  auto scalar = parseScalar(type);
  if (!scalar || *scalar != pointee)
    throw UsageError("argument '" + name + "': generated type '" + type + "' does not match the kernel's ptr<" +
                     scalarName(pointee) + ">");
  buffer.shape = parseShape(spec.substr(colon2 + 1), name);
  size_t count = 1;
  for (int64_t d : buffer.shape)
    count *= d;
  if (count > (size_t(1) << 32))
    throw UsageError("argument '" + name + "': buffer of " + std::to_string(count) + " elements is too large");
  buffer.bytes.assign(count * bytes, 0);
  if (kind == "rand")
    fillRandom(buffer, seed);
  return buffer;
}

ArgValue scalarArg(const std::string &name, const std::string &text, const Type &type) {
  ArgValue v;
  char *end = nullptr;
  if (type.isFloatValue()) {
    v.f = std::strtod(text.c_str(), &end);
  } else if (type.isBool()) {
    if (text == "true" || text == "1") v.i = 1;
    else if (text == "false" || text == "0") v.i = 0;
    else end = const_cast<char *>("x");
  } else {
    errno = 0;
    if (isUnsigned(type.elem.scalar))
      v.i = int64_t(std::strtoull(text.c_str(), &end, 0));
    else
      v.i = std::strtoll(text.c_str(), &end, 0);
    if (errno)
      end = const_cast<char *>("x");
  }
  if (text.empty() || (end && *end))
    throw UsageError("argument '" + name + "': '" + text + "' is not a valid " + type.str());
  return v;
}

/// Splits "a,cdiv(n,b),1" at top-level commas.
std::vector<std::string> splitGrid(const std::string &grid) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (char c : grid) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) parts.emplace_back();
    else parts.back() += c;
  }
  return parts;
}

} // namespace

namespace {
int saveBuffers(const RunOptions &options, std::vector<HostBuffer> &buffers, std::ostream &err);
int runCuda(const RunOptions &options, const KernelSignature &sig, const InterpreterLaunch &launch,
            std::vector<HostBuffer> &buffers, bool chosen, std::ostream &err);
} // namespace

int runCommand(const std::vector<std::string> &argv, std::ostream &out, std::ostream &err) {
  RunOptions options;
  try {
    options = parseOptions(argv);
  } catch (const std::exception &e) {
    err << "tkc run: error: " << e.what() << "\n";
    return 1;
  }
  bool chosen = !options.backend.empty();
  if (!chosen) {
    options.backend = cuda::available() ? "cuda" : "interp";
  } else if (options.backend == "cuda") {
    try {
      cuda::Device::current();
    } catch (const Error &e) {
      err << "tkc run: error: " << e.what() << "\n";
      return 1;
    }
  }

  CompileOptions compileOptions;
  compileOptions.kernel = options.kernel;
  compileOptions.defines = options.defines;
  Compiler compiler(compileOptions);
  std::ostringstream ir;
  bool compiled = compiler.load(options.file) && compiler.emit(EmitKind::Tk, ir);
  err << compiler.diagnosticsText();
  if (!compiled)
    return compiler.hadInternalError() ? 70 : 1;
  KernelSignature sig = compiler.signatures().at(0);
  auto module = mlir::ModuleOp(static_cast<mlir::Operation *>(compiler.moduleOperation()));
  auto kernel = module.lookupSymbol<mlir::func::FuncOp>(sig.name);

  std::vector<HostBuffer> buffers;
  InterpreterLaunch launch;
  launch.buffers = &buffers;
  launch.printStream = &out;
  std::map<std::string, int64_t> gridNames;
  try {
    std::map<std::string, std::string> given;
    for (auto &[name, value] : options.args) {
      bool known = false;
      for (auto &[param, type] : sig.args)
        known |= param == name;
      if (!known) {
        std::string names;
        for (auto &[param, type] : sig.args)
          names += (names.empty() ? "" : ", ") + param;
        throw UsageError("unknown argument '" + name + "' (kernel '" + sig.name + "' takes " + names + ")");
      }
      if (!given.emplace(name, value).second)
        throw UsageError("argument '" + name + "' given twice");
    }
    for (auto &[param, type] : sig.args) {
      auto it = given.find(param);
      if (it == given.end())
        throw UsageError("missing argument '" + param + "' of type " + type.str());
      if (type.isPtr()) {
        buffers.push_back(makeBuffer(param, it->second, type.elem.scalar, options.seed));
        ArgValue v;
        v.buffer = int(buffers.size() - 1);
        launch.args.push_back(v);
      } else {
        ArgValue v = scalarArg(param, it->second, type);
        launch.args.push_back(v);
        if (type.isIntValue())
          gridNames[param] = v.i;
      }
    }
    for (auto &[name, value] : sig.constants)
      if (value.find('.') == std::string::npos && value.find('e') == std::string::npos)
        gridNames[name] = std::stoll(value);
    for (auto &[name, path] : options.saves) {
      bool isBuffer = false;
      for (auto &b : buffers)
        isBuffer |= b.name == name;
      if (!isBuffer)
        throw UsageError("--save " + name + ": '" + name + "' is not a buffer argument");
    }
    std::vector<std::string> dims = splitGrid(options.grid);
    if (dims.size() > 3)
      throw UsageError("--grid has " + std::to_string(dims.size()) + " dimensions; at most 3");
    for (size_t d = 0; d < dims.size(); ++d) {
      int64_t value;
      std::string error;
      if (!evaluateIntExpression(dims[d], gridNames, value, error))
        throw UsageError("--grid '" + dims[d] + "': " + error);
      int64_t limit = d == 0 ? INT32_MAX : 65535;
      if (value <= 0 || value > limit)
        throw UsageError("--grid dimension " + std::to_string(d) + " is " + std::to_string(value) +
                         "; it must be in [1, " + std::to_string(limit) + "]");
      launch.grid[d] = value;
    }
  } catch (const std::exception &e) {
    err << "tkc run: error: " << e.what() << "\n";
    return 1;
  }

  if (options.backend == "cuda") {
    int status = runCuda(options, sig, launch, buffers, chosen, err);
    if (status >= 0) {
      if (status != 0)
        return status;
      return saveBuffers(options, buffers, err);
    }
    // -1: the GPU backend cannot compile this kernel yet and no backend was asked for.
  }
  try {
    interpretKernel(kernel, launch);
  } catch (const RunFault &fault) {
    out.flush();
    err << fault.what() << "\n";
    return 2;
  }
  return saveBuffers(options, buffers, err);
}

namespace {
int saveBuffers(const RunOptions &options, std::vector<HostBuffer> &buffers, std::ostream &err) {
  for (auto &[name, path] : options.saves) {
    for (auto &b : buffers)
      if (b.name == name) {
        try {
          writeNpy(path, b);
        } catch (const std::exception &e) {
          err << "tkc run: error: " << e.what() << "\n";
          return 1;
        }
      }
  }
  return 0;
}

/// Compiles the kernel for the GPU, specialized on the arguments (the power of two up to 16
/// that divides each integer; Triton specializes on 16 only), or takes it from the disk cache,
/// and runs it. Returns the exit status, or -1 when the GPU backend cannot compile the kernel
/// and the user did not ask for it (the caller falls back to the interpreter).
int runCuda(const RunOptions &options, const KernelSignature &sig, const InterpreterLaunch &launch,
            std::vector<HostBuffer> &buffers, bool chosen, std::ostream &err) {
  CompileOptions compileOptions;
  compileOptions.kernel = options.kernel;
  compileOptions.defines = options.defines;
  compileOptions.debug = options.debug;
  for (size_t k = 0; k < sig.args.size(); ++k) {
    if (!sig.args[k].second.isIntValue())
      continue;
    // The largest power of two up to 16 that divides the value: a row stride of 1000 f16
    // elements (divisible by 8) still starts every row on a 16-byte boundary.
    int64_t value = launch.args[k].i, divisibility = 1;
    while (divisibility < 16 && value % (divisibility * 2) == 0)
      divisibility *= 2;
    if (divisibility > 1)
      compileOptions.divisibility[sig.args[k].first] = divisibility;
  }
  DiskCache cache(DiskCache::defaultDir());
  std::string diagnostics;
  std::optional<CompiledKernel> compiled = compileToPtx(options.file, nullptr, compileOptions, cache, diagnostics);
  for (const std::string &warning : cache.takeWarnings())
    err << warning << "\n";
  if (!compiled) {
    if (!chosen) {
      err << "tkc run: note: kernel '" << sig.name << "' does not compile for the GPU yet; running it in the interpreter\n";
      return -1;
    }
    err << diagnostics;
    return 1;
  }
  CudaLaunch cudaLaunch;
  cudaLaunch.ptx = compiled->ptx;
  cudaLaunch.sharedBytes = compiled->sharedBytes;
  cudaLaunch.kernel = sig.name;
  cudaLaunch.threads = sig.numWarps * 32;
  cudaLaunch.grid = launch.grid;
  cudaLaunch.params = sig.args;
  cudaLaunch.args = launch.args;
  cudaLaunch.buffers = &buffers;
  cudaLaunch.timedRuns = options.timedRuns;
  try {
    double ms = runOnCuda(cudaLaunch);
    if (options.timedRuns > 0)
      err << "kernel '" << sig.name << "': " << ms << " ms (median of " << options.timedRuns << " runs)\n";
  } catch (const Error &e) {
    err << "tkc run: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
} // namespace

} // namespace tk
