// Types of the tk language, shared by the compiler and the runtime: scalars, pointers, tiles, plus the
// compile-time-only kinds (types used as values, strings, shape lists, functions, tensor descriptors).
#ifndef TK_SUPPORT_TYPES_H
#define TK_SUPPORT_TYPES_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tk {

enum class Scalar : uint8_t {
  I1, I8, I16, I32, I64, U8, U16, U32, U64, F8E4M3, F8E5M2, F16, BF16, F32, F64
};

int bitWidth(Scalar s);
bool isFloat(Scalar s);
bool isInteger(Scalar s); // includes i1
bool isUnsigned(Scalar s);
const char *scalarName(Scalar s);
std::optional<Scalar> parseScalar(const std::string &name);

/// An element: a scalar, or a pointer to one (`ptr<f16>`).
struct ElemType {
  Scalar scalar = Scalar::I32;
  bool isPtr = false;
  bool operator==(const ElemType &o) const { return scalar == o.scalar && isPtr == o.isPtr; }
  bool operator!=(const ElemType &o) const { return !(*this == o); }
  std::string str() const;
};

struct FnItem;

struct Type {
  enum class Kind { Error, Void, Value, TypeName, String, None, List, Function, Desc };
  Kind kind = Kind::Error;
  ElemType elem;              // Value, TypeName; Desc: the element type of the described tensor
  std::vector<int64_t> shape; // Value: empty for a scalar; Desc: the block shape
  bool weak = false;          // a literal (or arithmetic on literals only): yields to others
  const FnItem *fn = nullptr; // Function

  static Type error() { return Type{}; }
  static Type voidType() { return make(Kind::Void); }
  static Type value(ElemType elem, std::vector<int64_t> shape = {}, bool weak = false) {
    Type t = make(Kind::Value);
    t.elem = elem;
    t.shape = std::move(shape);
    t.weak = weak;
    return t;
  }
  static Type scalar(Scalar s, bool weak = false) { return value(ElemType{s, false}, {}, weak); }
  /// A tensor descriptor (`tensor_desc`): loads and stores blocks of `block` elements of type `elem`.
  static Type desc(Scalar elem, std::vector<int64_t> block) {
    Type t = make(Kind::Desc);
    t.elem = ElemType{elem, false};
    t.shape = std::move(block);
    return t;
  }
  static Type typeName(ElemType elem) {
    Type t = make(Kind::TypeName);
    t.elem = elem;
    return t;
  }
  static Type make(Kind kind) {
    Type t;
    t.kind = kind;
    return t;
  }

  bool isError() const { return kind == Kind::Error; }
  bool isValue() const { return kind == Kind::Value; }
  bool isDesc() const { return kind == Kind::Desc; }
  bool isTile() const { return isValue() && !shape.empty(); }
  bool isScalarValue() const { return isValue() && shape.empty(); }
  bool isPtr() const { return isValue() && elem.isPtr; }
  bool isFloatValue() const { return isValue() && !elem.isPtr && isFloat(elem.scalar); }
  bool isIntValue() const { return isValue() && !elem.isPtr && isInteger(elem.scalar); }
  bool isBool() const { return isValue() && !elem.isPtr && elem.scalar == Scalar::I1; }
  int64_t numElements() const;
  /// Same kind, element and shape (weakness ignored).
  bool sameAs(const Type &o) const;
  Type withShape(std::vector<int64_t> newShape) const;
  Type withElem(ElemType newElem) const;
  Type strong() const;
  /// `f32`, `f16[64, 32]`, `ptr<f16>[64]`, `type f32`, `string`, `desc<f16, [64, 128]>`...
  std::string str() const;
};

std::string shapeStr(const std::vector<int64_t> &shape);

} // namespace tk

#endif
