#include "tk/Support/Types.h"

namespace tk {

int bitWidth(Scalar s) {
  switch (s) {
  case Scalar::I1: return 1;
  case Scalar::I8: case Scalar::U8: case Scalar::F8E4M3: case Scalar::F8E5M2: return 8;
  case Scalar::I16: case Scalar::U16: case Scalar::F16: case Scalar::BF16: return 16;
  case Scalar::I32: case Scalar::U32: case Scalar::F32: return 32;
  case Scalar::I64: case Scalar::U64: case Scalar::F64: return 64;
  }
  return 32;
}

bool isFloat(Scalar s) {
  switch (s) {
  case Scalar::F8E4M3: case Scalar::F8E5M2: case Scalar::F16: case Scalar::BF16:
  case Scalar::F32: case Scalar::F64:
    return true;
  default:
    return false;
  }
}

bool isInteger(Scalar s) { return !isFloat(s); }

bool isUnsigned(Scalar s) {
  return s == Scalar::U8 || s == Scalar::U16 || s == Scalar::U32 || s == Scalar::U64;
}

static const char *const kScalarNames[] = {"i1",     "i8",     "i16", "i32",  "i64",
                                           "u8",     "u16",    "u32", "u64",  "f8e4m3",
                                           "f8e5m2", "f16",    "bf16", "f32", "f64"};

const char *scalarName(Scalar s) { return kScalarNames[(int)s]; }

std::optional<Scalar> parseScalar(const std::string &name) {
  for (int i = 0; i <= (int)Scalar::F64; ++i)
    if (name == kScalarNames[i])
      return (Scalar)i;
  if (name == "bool")
    return Scalar::I1;
  return std::nullopt;
}

std::string ElemType::str() const {
  return isPtr ? std::string("ptr<") + scalarName(scalar) + ">" : scalarName(scalar);
}

std::string shapeStr(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

int64_t Type::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool Type::sameAs(const Type &o) const {
  return kind == o.kind && ((kind != Kind::Value && kind != Kind::Desc) || (elem == o.elem && shape == o.shape)) &&
         (kind != Kind::TypeName || elem == o.elem);
}

Type Type::withShape(std::vector<int64_t> newShape) const {
  Type t = *this;
  t.shape = std::move(newShape);
  return t;
}

Type Type::withElem(ElemType newElem) const {
  Type t = *this;
  t.elem = newElem;
  return t;
}

Type Type::strong() const {
  Type t = *this;
  t.weak = false;
  return t;
}

std::string Type::str() const {
  switch (kind) {
  case Kind::Error: return "<error>";
  case Kind::Void: return "void";
  case Kind::Value: return elem.str() + (shape.empty() ? "" : shapeStr(shape));
  case Kind::TypeName: return "type " + elem.str();
  case Kind::String: return "string";
  case Kind::None: return "none";
  case Kind::List: return "list";
  case Kind::Function: return "function";
  case Kind::Desc: return "desc<" + elem.str() + ", " + shapeStr(shape) + ">";
  }
  return "<error>";
}

} // namespace tk
