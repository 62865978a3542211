// How elements sit in memory.
#include "MemoryTypes.h"

#include "tk/Dialect/Tk/IR/Tk.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace tk::codegen {

Type memoryType(Type element) {
  if (element.isInteger(1) || isFloat8(element))
    return IntegerType::get(element.getContext(), 8);
  return element;
}

Value toMemory(OpBuilder &b, Location loc, Value v) {
  Type stored = memoryType(v.getType());
  if (stored == v.getType())
    return v;
  if (isa<FloatType>(v.getType()))
    return arith::BitcastOp::create(b, loc, stored, v);
  return arith::ExtUIOp::create(b, loc, stored, v);
}

Value fromMemory(OpBuilder &b, Location loc, Value stored, Type type) {
  if (stored.getType() == type)
    return stored;
  if (isa<FloatType>(type))
    return arith::BitcastOp::create(b, loc, type, stored);
  return arith::TruncIOp::create(b, loc, type, stored);
}

bool isFloat8(Type element) { return isa<Float8E4M3FNType, Float8E5M2Type>(element); }

int64_t elementBytes(Type type) {
  Type element = tk::elementTypeOf(type);
  if (isa<PtrType, LLVM::LLVMPointerType>(element))
    return 8;
  return std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
}

} // namespace tk::codegen
