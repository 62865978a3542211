// The operands of tensor-core `dot`s: stages read in place, tiles staged swizzled into the
// dot's shared region (16-byte stores into rows whose 16-byte chunks are XOR-swizzled), A
// from registers in an earlier dot's accumulator layout.
#include "TensorCoreOperands.h"
#include "IndexArithmetic.h"
#include "SharedRegion.h"
#include "StageRings.h"
#include "Swizzle.h"
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tk::codegen {

Value roundToTf32(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type();
  Value u = arith::BitcastOp::create(b, loc, i32, x);
  Value exponent = arith::AndIOp::create(b, loc, u, i32Constant(b, loc, 0x7f800000));
  Value finite = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, exponent, i32Constant(b, loc, 0x7f800000));
  Value odd =
      arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, u, i32Constant(b, loc, 13)), i32Constant(b, loc, 1));
  Value rounded = arith::AddIOp::create(b, loc, u, arith::AddIOp::create(b, loc, odd, i32Constant(b, loc, 0xFFF)));
  rounded = arith::AndIOp::create(b, loc, rounded, i32Constant(b, loc, ~0x1FFF));
  return arith::SelectOp::create(b, loc, finite, arith::BitcastOp::create(b, loc, b.getF32Type(), rounded), x);
}

/// The stage a tensor-core operand is read from when `tkg.local_load` names one (B with `trans`:
/// stored as rows of N); null when the dot stages the operand in its own region.
LocalLoadOp tensorCoreStage(Value operand, const ThreadTypeConverter &converter) {
  auto local = operand.getDefiningOp<LocalLoadOp>();
  return local && feedsTensorCoresOnly(local, converter) ? local : LocalLoadOp();
}

void stageSwizzled(OpBuilder &rewriter, Location loc, const SharedRegion &shared, ValueRange values,
                   const BlockedLayout &l, Value tid, int64_t offset, const SwizzleParams &swizzle, bool tf32) {
  auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, isOwner(rewriter, loc, l, tid), false);
  OpBuilder b = ifOp.getThenBodyBuilder();
  Type element = values[0].getType();
  int64_t group = l.sizePerThread >= swizzle.chunk ? swizzle.chunk : 1;
  auto valueAt = [&](size_t slot) { return tf32 ? roundToTf32(b, loc, values[slot]) : values[slot]; };
  for (size_t slot = 0; slot < values.size(); slot += group) {
    Value index = elementIndex(b, loc, l, slot, tid);
    auto [row, column] = rowAndColumn(b, loc, index, swizzle.rowLength);
    Value at = swizzledIndex(b, loc, swizzle, row, column);
    if (group == 1) {
      shared.store(b, loc, valueAt(slot), at, offset);
      continue;
    }
    auto vectorType = VectorType::get({group}, element);
    Value vector = LLVM::PoisonOp::create(b, loc, vectorType);
    for (int64_t j = 0; j < group; ++j)
      vector = LLVM::InsertElementOp::create(b, loc, vector, valueAt(slot + j), i32Constant(b, loc, j));
    LLVM::StoreOp::create(b, loc, vector, shared.address(b, loc, element, at, offset), /*alignment=*/16);
  }
}

SmallVector<Value> registerFragment(OpBuilder &b, Location loc, ValueRange a, int64_t k, int64_t tile, int64_t kk) {
  // Slots of the 8-column n-tile t of m-tile `tile`: (t + k/8 * tile) * 4 + (column pair,
  // row + 8); k-step kk is n-tiles 2 kk and 2 kk + 1.
  auto pair = VectorType::get({2}, a[0].getType());
  SmallVector<Value> registers;
  for (auto [nTile, rowHalf] : {std::pair{2 * kk, 0}, {2 * kk, 1}, {2 * kk + 1, 0}, {2 * kk + 1, 1}}) {
    int64_t first = (nTile + k / 8 * tile) * 4 + 2 * rowHalf;
    Value packed = LLVM::PoisonOp::create(b, loc, pair);
    for (int64_t e = 0; e < 2; ++e)
      packed = LLVM::InsertElementOp::create(b, loc, packed, a[first + e], i32Constant(b, loc, e));
    registers.push_back(packed);
  }
  return registers;
}

} // namespace tk::codegen
