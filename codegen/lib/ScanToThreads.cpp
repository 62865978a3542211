// Inclusive scans of 1-D tiles (cumsum, cumprod, scan with a combine region; reverse too). In
// scan order: each thread scans its contiguous group, lanes scan the group totals with
// shuffles, warps pass their totals through shared memory, and each repetition of the groups
// carries the totals of the ones before it. The combine must be associative, as in Triton.
#include "Combine.h"
#include "IndexArithmetic.h"
#include "MemoryTypes.h"
#include "Patterns.h"
#include "SharedAllocation.h"
#include "SharedRegion.h"
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tk::codegen {

namespace {

Value combineOne(OpBuilder &b, Region &region, Value earlier, Value later) {
  return combineRegion(b, region, ValueRange{earlier}, ValueRange{later})[0];
}

/// The value of `value` in lane `lane` (a runtime lane index), for values of up to 32 bits.
Value shuffleIndex(OpBuilder &b, Location loc, Value value, Value lane) {
  Type type = value.getType(), i32 = b.getI32Type();
  unsigned bits = type.getIntOrFloatBitWidth();
  Type intType = b.getIntegerType(bits);
  Value asInt = type == intType ? value : (Value)LLVM::BitcastOp::create(b, loc, intType, value);
  Value wide = bits == 32 ? asInt : (Value)LLVM::ZExtOp::create(b, loc, i32, asInt);
  Value shuffled = NVVM::ShflOp::create(b, loc, i32, i32Constant(b, loc, -1), wide, lane, i32Constant(b, loc, 0x1f),
                                        NVVM::ShflKind::idx, UnitAttr());
  Value narrow = bits == 32 ? shuffled : (Value)LLVM::TruncOp::create(b, loc, intType, shuffled);
  return type == intType ? narrow : (Value)LLVM::BitcastOp::create(b, loc, type, narrow);
}

/// `has ? combine(prefix, x) : x`
Value applyPrefix(OpBuilder &b, Location loc, Region &region, Value has, Value prefix, Value x) {
  return arith::SelectOp::create(b, loc, has, combineOne(b, region, prefix, x), x);
}

/// 1-D scans of one value of up to 32 bits run in registers and shuffles.
bool isShuffleScan(ScanOp op) {
  auto tile = cast<RankedTensorType>(op.getSrcs()[0].getType());
  return op.getSrcs().size() == 1 && tile.getRank() == 1 && tile.getElementType().getIntOrFloatBitWidth() <= 32;
}

/// Byte offsets of the operands' arrays in the op's shared region (the last entry: the total).
SmallVector<int64_t> arrayOffsets(ScanOp op, int64_t elements) {
  SmallVector<int64_t> offsets{0};
  for (Value src : op.getSrcs())
    offsets.push_back(offsets.back() +
                      roundUp16(elements * elementBytes(src.getType())));
  return offsets;
}

struct ScanPattern : public OpConversionPattern<ScanOp> {
  ScanPattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context), converter(converter) {}

  LogicalResult matchAndRewrite(ScanOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    if (!isShuffleScan(op))
      return scanThroughShared(op, adaptor, rewriter);
    Location loc = op.getLoc();
    auto tile = cast<RankedTensorType>(op.getSrcs()[0].getType());
    BlockedLayout l = converter.layoutOf(tile);
    Region &region = op.getCombine();
    bool reverse = op.getReverse();
    Type type = converter.convertType(tile.getElementType());
    int64_t s = l.sizePerThread, reps = l.reps();
    SmallVector<Value> v(adaptor.getSrcs()[0].begin(), adaptor.getSrcs()[0].end());
    auto at = [&](int64_t rep, int64_t j) -> Value & { return v[rep * s + j]; };

    Value tid = threadId(rewriter, loc);
    int64_t group = std::min<int64_t>(32, l.owners());
    Value lane = arith::AndIOp::create(rewriter, loc, tid, i32Constant(rewriter, loc, 31));
    Value laneInGroup = arith::AndIOp::create(rewriter, loc, tid, i32Constant(rewriter, loc, group - 1));
    int64_t warps = std::max<int64_t>(1, l.owners() / 32);
    Value warp = arith::AndIOp::create(rewriter, loc, arith::ShRUIOp::create(rewriter, loc, tid, i32Constant(rewriter, loc, 5)),
                                       i32Constant(rewriter, loc, warps - 1));
    Value trueValue = arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
    Value falseValue = arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(false));

    Value carry;
    for (int64_t step = 0; step < reps; ++step) {
      int64_t rep = reverse ? reps - 1 - step : step;
      // 1. This thread's group, in scan order.
      for (int64_t k = 1; k < s; ++k) {
        int64_t j = reverse ? s - 1 - k : k, prev = reverse ? j + 1 : j - 1;
        at(rep, j) = combineOne(rewriter, region, at(rep, prev), at(rep, j));
      }
      Value total = at(rep, reverse ? 0 : s - 1);
      // 2. Inclusive scan of the group totals across the lanes of each group of lanes.
      // up: clamp 0 (lanes below the offset keep their value); down: clamp 31.
      NVVM::ShflKind kind = reverse ? NVVM::ShflKind::down : NVVM::ShflKind::up;
      int64_t clamp = reverse ? 0x1f : 0;
      Value inclusive = total;
      for (int64_t offset = 1; offset < group; offset *= 2) {
        Value other = shuffle(rewriter, loc, inclusive, offset, kind, clamp);
        Value valid = reverse ? (Value)arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                                               arith::AddIOp::create(rewriter, loc, laneInGroup, i32Constant(rewriter, loc, offset)),
                                                               i32Constant(rewriter, loc, group))
                              : (Value)arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge, laneInGroup,
                                                               i32Constant(rewriter, loc, offset));
        inclusive = applyPrefix(rewriter, loc, region, valid, other, inclusive);
      }
      // The exclusive prefix of this lane: the inclusive value of the lane before it.
      Value exclusive = shuffle(rewriter, loc, inclusive, 1, kind, clamp);
      Value hasExclusive = reverse ? (Value)arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne, laneInGroup,
                                                                    i32Constant(rewriter, loc, group - 1))
                                   : (Value)arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne, laneInGroup,
                                                                    i32Constant(rewriter, loc, 0));
      Value lastLane = i32Constant(rewriter, loc, reverse ? 0 : group - 1);
      Value blockTotal;
      if (warps > 1) {
        // 3. Warp totals through shared memory; each thread folds the warps before its own.
        SharedRegion scratch(rewriter, loc, op);
        Value isWriter = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, lane, lastLane);
        scratch.publish(rewriter, loc, isWriter, inclusive, warp);
        auto slot = [&](OpBuilder &b, Value w) { return scratch.slot(b, loc, 0, w); };
        Value warpPrefix, hasWarpPrefix = falseValue;
        for (int64_t k = 0; k < warps; ++k) {
          int64_t w = reverse ? warps - 1 - k : k;
          Value partial = LLVM::LoadOp::create(rewriter, loc, type, slot(rewriter, i32Constant(rewriter, loc, w)));
          blockTotal = blockTotal ? combineOne(rewriter, region, blockTotal, partial) : partial;
          // Warps before this thread's warp (in scan order) contribute to its prefix.
          Value before = arith::CmpIOp::create(rewriter, loc, reverse ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::ult,
                                               i32Constant(rewriter, loc, w), warp);
          Value combined = warpPrefix ? applyPrefix(rewriter, loc, region, hasWarpPrefix, warpPrefix, partial) : partial;
          warpPrefix = warpPrefix ? (Value)arith::SelectOp::create(rewriter, loc, before, combined, warpPrefix) : combined;
          hasWarpPrefix = arith::OrIOp::create(rewriter, loc, hasWarpPrefix, before);
        }
        exclusive = arith::SelectOp::create(rewriter, loc, hasExclusive,
                                            applyPrefix(rewriter, loc, region, hasWarpPrefix, warpPrefix, exclusive), warpPrefix);
        hasExclusive = arith::OrIOp::create(rewriter, loc, hasExclusive, hasWarpPrefix);
      } else {
        blockTotal = shuffleIndex(rewriter, loc, inclusive, lastLane);
      }
      // 4. The carry of earlier repetitions, then this lane's prefix, onto the group.
      Value prefix = exclusive, hasPrefix = hasExclusive;
      if (carry) {
        prefix = arith::SelectOp::create(rewriter, loc, hasExclusive, combineOne(rewriter, region, carry, exclusive), carry);
        hasPrefix = trueValue;
      }
      for (int64_t j = 0; j < s; ++j)
        at(rep, j) = applyPrefix(rewriter, loc, region, hasPrefix, prefix, at(rep, j));
      carry = carry ? combineOne(rewriter, region, carry, blockTotal) : blockTotal;
    }
    rewriter.replaceOpWithMultiple(op, {v});
    return success();
  }

  /// Any other scan (several operands, 64-bit values, any axis of any rank): the tile goes to
  /// shared memory, one thread scans each line along the axis in order, and every thread reads
  /// its elements back.
  LogicalResult scanThroughShared(ScanOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto tile = cast<RankedTensorType>(op.getSrcs()[0].getType());
    BlockedLayout l = converter.layoutOf(tile);
    ArrayRef<int64_t> shape = tile.getShape();
    int64_t axis = op.getAxis(), length = shape[axis];
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < (int64_t)shape.size(); ++d)
      inner *= shape[d];
    int64_t lines = tile.getNumElements() / length;
    size_t count = op.getSrcs().size();
    SmallVector<int64_t> offsets = arrayOffsets(op, l.size);
    SmallVector<Type> types;
    for (size_t k = 0; k < count; ++k)
      types.push_back(adaptor.getSrcs()[k][0].getType());

    SharedRegion shared(rewriter, loc, op);
    Value tid = threadId(rewriter, loc);
    shared.beginWrites(rewriter, loc);
    {
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, isOwner(rewriter, loc, l, tid), false);
      OpBuilder b = ifOp.getThenBodyBuilder();
      for (int64_t slot = 0; slot < l.perThread(); ++slot) {
        Value index = elementIndex(b, loc, l, slot, tid);
        for (size_t k = 0; k < count; ++k)
          shared.store(b, loc, adaptor.getSrcs()[k][slot], index, offsets[k]);
      }
    }
    shared.endWrites(rewriter, loc);

    // Thread t scans lines t, t + threads, ...: line = outer * inner + innerIndex.
    auto lineLoop = scf::ForOp::create(rewriter, loc, tid, i32Constant(rewriter, loc, lines),
                                       i32Constant(rewriter, loc, l.threads));
    {
      OpBuilder b = OpBuilder::atBlockBegin(lineLoop.getBody());
      Value line = lineLoop.getInductionVar();
      Value outer = arith::DivUIOp::create(b, loc, line, i32Constant(b, loc, inner));
      Value innerIndex = arith::RemUIOp::create(b, loc, line, i32Constant(b, loc, inner));
      Value start = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, outer, i32Constant(b, loc, length * inner)),
                                          innerIndex);
      auto indexOf = [&](OpBuilder &ib, Value position) {
        if (op.getReverse())
          position = arith::SubIOp::create(ib, loc, i32Constant(ib, loc, length - 1), position);
        return arith::AddIOp::create(ib, loc, start, arith::MulIOp::create(ib, loc, position, i32Constant(ib, loc, inner)));
      };
      SmallVector<Value> first;
      Value firstIndex = indexOf(b, i32Constant(b, loc, 0));
      for (size_t k = 0; k < count; ++k)
        first.push_back(shared.load(b, loc, types[k], firstIndex, offsets[k]));
      auto stepLoop = scf::ForOp::create(b, loc, i32Constant(b, loc, 1), i32Constant(b, loc, length), i32Constant(b, loc, 1), first);
      OpBuilder sb = OpBuilder::atBlockBegin(stepLoop.getBody());
      Value index = indexOf(sb, stepLoop.getInductionVar());
      SmallVector<Value> next;
      for (size_t k = 0; k < count; ++k)
        next.push_back(shared.load(sb, loc, types[k], index, offsets[k]));
      SmallVector<Value> acc = combineRegion(sb, op.getCombine(), stepLoop.getRegionIterArgs(), next);
      for (size_t k = 0; k < count; ++k)
        shared.store(sb, loc, acc[k], index, offsets[k]);
      scf::YieldOp::create(sb, loc, acc);
    }
    programBarrier(rewriter, loc);
    SmallVector<SmallVector<Value>> results(count);
    for (int64_t slot = 0; slot < l.perThread(); ++slot) {
      Value index = elementIndex(rewriter, loc, l, slot, tid);
      for (size_t k = 0; k < count; ++k)
        results[k].push_back(shared.load(rewriter, loc, types[k], index, offsets[k]));
    }
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }

  ThreadTypeConverter &converter;
};

} // namespace

int64_t scanSharedBytes(ScanOp op, const ThreadTypeConverter &converter) {
  if (isShuffleScan(op))
    return converter.layoutOf(op.getSrcs()[0].getType()).owners() > 32 ? 256 : 0;
  return arrayOffsets(op, cast<RankedTensorType>(op.getSrcs()[0].getType()).getNumElements()).back();
}

void populateScanToThreads(ThreadTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ScanPattern>(converter, patterns.getContext());
}

} // namespace tk::codegen
