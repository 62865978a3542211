// The steps reduce and scan build from: combine regions and warp shuffles.

#include "Combine.h"
#include "IndexArithmetic.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace tk::codegen {

SmallVector<Value> combineRegion(OpBuilder &b, Region &region, ValueRange acc, ValueRange next) {
  Block &block = region.front();
  IRMapping mapping;
  for (size_t k = 0; k < acc.size(); ++k) {
    mapping.map(block.getArgument(k), acc[k]);
    mapping.map(block.getArgument(acc.size() + k), next[k]);
  }
  for (Operation &op : block.without_terminator())
    b.clone(op, mapping);
  SmallVector<Value> results;
  for (Value v : block.getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(v));
  return results;
}

Value shuffle(OpBuilder &b, Location loc, Value value, int64_t offset, NVVM::ShflKind kind, int64_t clamp) {
  Type type = value.getType(), i32 = b.getI32Type();
  unsigned bits = type.getIntOrFloatBitWidth();
  auto shuffle32 = [&](Value v) -> Value {
    return NVVM::ShflOp::create(b, loc, i32, i32Constant(b, loc, -1), v, i32Constant(b, loc, offset),
                                i32Constant(b, loc, clamp), kind, UnitAttr());
  };
  if (bits == 64) {
    auto pair = VectorType::get({2}, i32);
    Value halves = LLVM::BitcastOp::create(b, loc, pair, value);
    Value lo = shuffle32(LLVM::ExtractElementOp::create(b, loc, halves, i32Constant(b, loc, 0)));
    Value hi = shuffle32(LLVM::ExtractElementOp::create(b, loc, halves, i32Constant(b, loc, 1)));
    Value joined =
        LLVM::InsertElementOp::create(b, loc, LLVM::PoisonOp::create(b, loc, pair), lo, i32Constant(b, loc, 0));
    joined = LLVM::InsertElementOp::create(b, loc, joined, hi, i32Constant(b, loc, 1));
    return LLVM::BitcastOp::create(b, loc, type, joined);
  }
  Type intType = b.getIntegerType(bits);
  Value asInt = type == intType ? value : (Value)LLVM::BitcastOp::create(b, loc, intType, value);
  Value wide = bits == 32 ? asInt : (Value)LLVM::ZExtOp::create(b, loc, i32, asInt);
  Value shuffled = shuffle32(wide);
  Value narrow = bits == 32 ? shuffled : (Value)LLVM::TruncOp::create(b, loc, intType, shuffled);
  return type == intType ? narrow : (Value)LLVM::BitcastOp::create(b, loc, type, narrow);
}

} // namespace tk::codegen
