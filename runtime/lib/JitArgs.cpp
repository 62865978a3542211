// The JIT's arguments: typed constants and configs (and their one text form each), and each
// launch's arguments checked against the kernel's signature (naming the parameter), packed for
// cuLaunchKernel, and specialized.
#include "JitImpl.h"

#include "tk/Support/FloatFormats.h"
#include "tk/Runtime/KernelCompile.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace tk {

namespace {

const char *kindName(Arg::Kind kind) {
  switch (kind) {
  case Arg::Kind::Buffer: return "a buffer";
  case Arg::Kind::Pointer: return "a device pointer";
  case Arg::Kind::Int: return "a signed integer";
  case Arg::Kind::Unsigned: return "an unsigned integer";
  case Arg::Kind::Float: return "a floating-point value";
  case Arg::Kind::Bool: return "a bool";
  }
  return "a value";
}

bool fitsIn(int64_t value, bool isUnsignedArg, Scalar scalar) {
  int width = bitWidth(scalar);
  if (isUnsigned(scalar) || scalar == Scalar::I1) {
    if (!isUnsignedArg && value < 0)
      return false;
    return width == 64 || uint64_t(value) < (uint64_t(1) << width);
  }
  if (isUnsignedArg && value < 0) // above INT64_MAX
    return false;
  if (width == 64)
    return true;
  int64_t limit = int64_t(1) << (width - 1);
  return value >= -limit && value < limit;
}

} // namespace

std::string paramTypeText(const ParamInfo &p) {
  if (p.elemFrom.empty())
    return p.type.str();
  return p.type.elem.isPtr ? "ptr<" + p.elemFrom + ">" : p.elemFrom;
}

std::string paramList(const std::vector<ParamInfo> &params) {
  std::string list;
  for (const ParamInfo &p : params)
    list += (list.empty() ? "" : ", ") + p.name + ": " + paramTypeText(p);
  return list;
}

Const::Const(unsigned long long value) : kind_(Kind::Int), i_(int64_t(value)) {
  if (value > uint64_t(INT64_MAX))
    throw Error("tk::Const: " + std::to_string(value) + " does not fit in a 64-bit signed constant");
}

std::optional<Const> Const::parse(const std::string &text) {
  if (text.empty())
    return std::nullopt;
  if (text == "true" || text == "false")
    return Const(text == "true");
  if (std::optional<Scalar> type = parseScalar(text))
    return Const(*type);
  char *end = nullptr;
  errno = 0;
  long long integer = std::strtoll(text.c_str(), &end, 0); // as the compiler reads -D: 0x80 too
  if (!*end && !errno)
    return Const(integer);
  if (!*end && errno == ERANGE) // an integer past 64 bits: no value (strtod would make it a float)
    return std::nullopt;
  double real = std::strtod(text.c_str(), &end);
  if (!*end)
    return Const(real);
  return std::nullopt;
}

std::string Const::str() const {
  switch (kind_) {
  case Kind::Int: return std::to_string(i_);
  case Kind::Bool: return i_ ? "true" : "false";
  case Kind::DType: return scalarName(dtype());
  case Kind::Float: break;
  }
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", f_);
  std::string out = text;
  if (out.find_first_of(".eEn") == std::string::npos)
    out += ".0"; // stays a float literal
  return out;
}

Config configOf(const Consts &consts) {
  Config config;
  for (const auto &[name, value] : consts)
    config.values.emplace(name, value);
  return config;
}

std::map<std::string, std::string> compilerDefines(const Config &config) {
  std::map<std::string, std::string> defines;
  for (const auto &[name, value] : config.values)
    defines.emplace(name, value.str());
  return defines;
}

std::optional<int64_t> Config::integer(const std::string &name) const {
  auto it = values.find(name);
  if (it == values.end() || it->second.kind() != Const::Kind::Int)
    return std::nullopt;
  return it->second.integer();
}

int64_t Config::operator[](const std::string &name) const {
  if (std::optional<int64_t> value = integer(name))
    return *value;
  throw Error("the config {" + str() + "} has no integer '" + name + "'");
}

std::string Config::str() const {
  std::string text;
  for (const auto &[name, value] : values)
    text += (text.empty() ? "" : ", ") + name + "=" + value.str();
  return text;
}

std::string specializationKey(const std::vector<Specialization> &spec) {
  std::string text(spec.size(), '-');
  for (size_t k = 0; k < spec.size(); ++k)
    if (spec[k].equalsOne)
      text[k] = '1';
    else if (spec[k].divisibilityLog2)
      text[k] = char('a' + *spec[k].divisibilityLog2);
  return text;
}

Type Kernel::Impl::paramType(const ParamInfo &param, const Consts &consts) const {
  if (param.elemFrom.empty())
    return param.type;
  Scalar elem = param.type.elem.scalar; // the dtype parameter's default
  if (auto it = consts.find(param.elemFrom); it != consts.end()) {
    if (it->second.kind() != Const::Kind::DType)
      throw Error("kernel '" + decl.name + "': constant '" + param.elemFrom +
                  "' is a dtype (such as tk::Scalar::F16), got " + it->second.str());
    elem = it->second.dtype();
  } else if (tunedNames.count(param.elemFrom)) {
    throw Error("kernel '" + decl.name + "': its tuning space sets the dtype '" + param.elemFrom + "' of parameter '" +
                param.name + "'; give it in the launch's constants");
  } else {
    for (const KernelDecl::Param &p : decl.params)
      if (p.name == param.elemFrom && !p.hasDefault)
        throw Error("kernel '" + decl.name + "': constant " + p.name +
                    " has no value: give it in the launch's constants ({{\"" + p.name +
                    "\", tk::Scalar::F16}}, ...) or a default (parameter '" + param.name + "' is " +
                    paramTypeText(param) + ")");
  }
  return param.type.withElem(ElemType{elem, param.type.elem.isPtr});
}

void Kernel::Impl::pack(const Arg *args, size_t count, const Consts &consts, PackedArgs &packed) const {
  const std::string &kernel = decl.name;
  if (count != params.size())
    throw Error("kernel '" + kernel + "' takes " + std::to_string(params.size()) + " argument" +
                (params.size() == 1 ? "" : "s") + " (" + paramList(params) + "), got " + std::to_string(count));
  bool cuda = context().backend() == Backend::Cuda;
  packed.slots.assign(count, 0);
  packed.pointers.resize(count);
  packed.spec.assign(cuda ? count : 0, Specialization());
  for (size_t k = 0; k < count; ++k) {
    const ParamInfo &param = params[k];
    const Arg &arg = args[k];
    Type bound; // only where a dtype constant gives the element type: the hot path copies nothing
    const Type &type = param.elemFrom.empty() ? param.type : (bound = paramType(param, consts));
    auto mismatch = [&](const std::string &got) {
      return Error("kernel '" + kernel + "': argument " + std::to_string(k + 1) + " ('" + param.name + "') is " +
                   type.str() + ", got " + got);
    };
    packed.pointers[k] = &packed.slots[k];
    if (type.isPtr()) {
      Scalar elem;
      uint64_t address = 0;
      if (arg.kind() == Arg::Kind::Buffer) {
        if (&arg.buffer()->context() != module->context)
          throw mismatch("a buffer of another tk::Context");
        elem = arg.buffer()->elem();
        address = arg.buffer()->devicePointer();
      } else if (arg.kind() == Arg::Kind::Pointer) {
        if (!cuda)
          throw mismatch("a device pointer, which the interpreter cannot read (pass a tk::Buffer)");
        elem = arg.pointer().elem;
        address = arg.pointer().address;
      } else {
        throw mismatch(kindName(arg.kind()));
      }
      if (elem != type.elem.scalar)
        throw mismatch(std::string("a buffer of ") + scalarName(elem));
      packed.slots[k] = address;
      if (cuda && !param.nospec)
        packed.spec[k] = Specialization::ofPointer(address);
      continue;
    }
    if (type.isBool()) {
      if (arg.kind() != Arg::Kind::Bool)
        throw mismatch(kindName(arg.kind()));
      packed.slots[k] = uint64_t(arg.integer());
      continue;
    }
    if (type.isIntValue()) {
      if (arg.kind() != Arg::Kind::Int && arg.kind() != Arg::Kind::Unsigned)
        throw mismatch(kindName(arg.kind()));
      int64_t value = arg.integer();
      if (!fitsIn(value, arg.kind() == Arg::Kind::Unsigned, type.elem.scalar))
        throw mismatch((arg.kind() == Arg::Kind::Unsigned ? std::to_string(uint64_t(value)) : std::to_string(value)) +
                       ", which does not fit");
      int width = bitWidth(type.elem.scalar);
      packed.slots[k] = width == 64 ? uint64_t(value) : uint64_t(value) & ((uint64_t(1) << width) - 1);
      if (cuda && !param.nospec)
        packed.spec[k] = Specialization::ofInteger(value);
      continue;
    }
    if (arg.kind() != Arg::Kind::Float && arg.kind() != Arg::Kind::Int && arg.kind() != Arg::Kind::Unsigned)
      throw mismatch(kindName(arg.kind()));
    // One rounding into the parameter's type, as the language's conversions round (an
    // integer is exact in a long double).
    long double exact = arg.kind() == Arg::Kind::Float      ? (long double)arg.real()
                        : arg.kind() == Arg::Kind::Unsigned ? (long double)uint64_t(arg.integer())
                                                            : (long double)arg.integer();
    double value = double(exact);
    float single = float(exact);
    switch (type.elem.scalar) {
    case Scalar::F64: std::memcpy(&packed.slots[k], &value, 8); break;
    case Scalar::F32: std::memcpy(&packed.slots[k], &single, 4); break;
    case Scalar::F16: packed.slots[k] = fp::toHalfRoundedOnce(exact); break;
    case Scalar::BF16: packed.slots[k] = fp::toBf16RoundedOnce(exact); break;
    default: throw mismatch(std::string("a value, but ") + type.str() + " scalars cannot be passed yet");
    }
  }
}

} // namespace tk
