// The JIT's arguments: constants and configs as text, and each launch's arguments checked
// against the kernel's signature (naming the parameter), packed for cuLaunchKernel, and
// classified for specialization.
#include "JitImpl.h"

#include "tk/Support/FloatFormats.h"
#include "tk/Runtime/KernelCompile.h"

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

std::string paramList(const std::vector<ParamInfo> &params) {
  std::string list;
  for (const ParamInfo &p : params)
    list += (list.empty() ? "" : ", ") + p.name + ": " + p.type.str();
  return list;
}

Const::Const(double value) {
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", value);
  this->text = text;
  if (this->text.find_first_of(".eEn") == std::string::npos)
    this->text += ".0"; // stays a float literal
}

Config configOf(const Consts &consts) {
  Config config;
  for (const auto &[name, value] : consts)
    config.values[name] = value.text;
  return config;
}

std::optional<int64_t> Config::integer(const std::string &name) const {
  auto it = values.find(name);
  if (it == values.end())
    return std::nullopt;
  char *end = nullptr;
  long long value = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end)
    return std::nullopt;
  return value;
}

int64_t Config::operator[](const std::string &name) const {
  if (std::optional<int64_t> value = integer(name))
    return *value;
  throw Error("the config {" + str() + "} has no integer '" + name + "'");
}

std::string Config::str() const {
  std::string text;
  for (const auto &[name, value] : values)
    text += (text.empty() ? "" : ", ") + name + "=" + value;
  return text;
}

void Kernel::Impl::pack(const Arg *args, size_t count, PackedArgs &packed) const {
  const std::string &kernel = decl.name;
  if (count != params.size())
    throw Error("kernel '" + kernel + "' takes " + std::to_string(params.size()) + " argument" +
                (params.size() == 1 ? "" : "s") + " (" + paramList(params) + "), got " + std::to_string(count));
  bool cuda = context().backend() == Backend::Cuda;
  packed.slots.assign(count, 0);
  packed.pointers.resize(count);
  packed.spec.assign(cuda ? count : 0, '-');
  for (size_t k = 0; k < count; ++k) {
    const ParamInfo &param = params[k];
    const Arg &arg = args[k];
    const Type &type = param.type;
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
        packed.spec[k] = char('a' + divisibilityLog2(address));
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
        packed.spec[k] = value == 1 ? '1' : char('a' + divisibilityLog2(uint64_t(value)));
      continue;
    }
    if (arg.kind() != Arg::Kind::Float && arg.kind() != Arg::Kind::Int && arg.kind() != Arg::Kind::Unsigned)
      throw mismatch(kindName(arg.kind()));
    double value = arg.kind() == Arg::Kind::Float ? arg.real() : double(arg.integer());
    float single = float(value);
    switch (type.elem.scalar) {
    case Scalar::F64: std::memcpy(&packed.slots[k], &value, 8); break;
    case Scalar::F32: std::memcpy(&packed.slots[k], &single, 4); break;
    case Scalar::F16: packed.slots[k] = fp::floatToHalf(single); break;
    case Scalar::BF16: packed.slots[k] = fp::floatToBf16(single); break;
    default: throw mismatch(std::string("a value, but ") + type.str() + " scalars cannot be passed yet");
    }
  }
}

} // namespace tk
