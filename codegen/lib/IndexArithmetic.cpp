// Per-thread index arithmetic: element indices of slots, bit maps, swizzled indices.
#include "IndexArithmetic.h"
#include "Swizzle.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

namespace tk::codegen {

Value i32Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(value)));
}

Value ctaThreadId(OpBuilder &b, Location loc) { return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type()); }

namespace {
/// The op holding the builder's insertion point (which finds its kernel), or null.
Operation *insertionParent(OpBuilder &b) {
  Block *block = b.getInsertionBlock();
  return block ? block->getParentOp() : nullptr;
}
} // namespace

Value threadId(OpBuilder &b, Location loc) {
  Value tid = ctaThreadId(b, loc);
  Operation *at = insertionParent(b);
  if (!at || programsPerCtaOf(at) == 1)
    return tid;
  return arith::AndIOp::create(b, loc, tid, i32Constant(b, loc, threadsOf(at) - 1));
}

Value gridIndex(OpBuilder &b, Location loc, int axis, bool count, std::optional<int64_t> namedProgram) {
  Type i32 = b.getI32Type();
  Value value;
  switch (axis) {
  case 0: value = count ? (Value)NVVM::GridDimXOp::create(b, loc, i32) : (Value)NVVM::BlockIdXOp::create(b, loc, i32); break;
  case 1: value = count ? (Value)NVVM::GridDimYOp::create(b, loc, i32) : (Value)NVVM::BlockIdYOp::create(b, loc, i32); break;
  default: value = count ? (Value)NVVM::GridDimZOp::create(b, loc, i32) : (Value)NVVM::BlockIdZOp::create(b, loc, i32); break;
  }
  Operation *at = insertionParent(b);
  int64_t programs = at ? programsPerCtaOf(at) : 1;
  if (axis != 0 || programs == 1)
    return value;
  if (count)
    return arith::MulIOp::create(b, loc, value, i32Constant(b, loc, programs));
  // Program w of CTA c is w * nctaid.x + c (as CUTLASS's ping-pong numbers its warpgroups'
  // tiles): a loop over tiles' first pass gives each CTA one program's tile before any CTA a
  // second, so that tiles fewer than the programs (TAIL_SPLIT's parts) spread over the CTAs.
  Value program = namedProgram ? i32Constant(b, loc, *namedProgram) : programInCta(b, loc);
  Value ctas = NVVM::GridDimXOp::create(b, loc, i32);
  return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, program, ctas), value);
}

Value programInCta(OpBuilder &b, Location loc) {
  Operation *at = insertionParent(b);
  if (!at || programsPerCtaOf(at) == 1)
    return i32Constant(b, loc, 0);
  // In a program's own copy of the consumers' code: then region program 0, else program 1.
  for (Region *region = b.getInsertionBlock()->getParent(); region; region = region->getParentRegion()) {
    Operation *owner = region->getParentOp();
    if (owner && owner->hasAttr(TkgDialect::kProgramsSplit))
      return i32Constant(b, loc, region->getRegionNumber());
  }
  return arith::DivUIOp::create(b, loc, ctaThreadId(b, loc), i32Constant(b, loc, threadsOf(at)));
}

Value inlinePtx(OpBuilder &b, Location loc, TypeRange results, ValueRange operands, StringRef text,
                StringRef constraints, bool sideEffects) {
  auto op = LLVM::InlineAsmOp::create(b, loc, results, operands, text, constraints, sideEffects,
                                      /*is_align_stack=*/false, LLVM::TailCallKind::None,
                                      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr());
  return results.empty() ? Value() : op->getResult(0);
}

Value elementIndex(OpBuilder &b, Location loc, const BlockedLayout &l, int64_t slot, Value tid) {
  // The thread's bits or'ed with the slot's (LLVM then carries the slot's through the index
  // arithmetic of addresses as constant offsets), wrapped when the tile is replicated.
  Value index = arith::MulIOp::create(b, loc, tid, i32Constant(b, loc, l.sizePerThread));
  int64_t offset = l.slotOffset(slot);
  if (l.size < l.threads * l.sizePerThread)
    return arith::AndIOp::create(b, loc, arith::AddIOp::create(b, loc, index, i32Constant(b, loc, offset)),
                                 i32Constant(b, loc, l.size - 1));
  return offset ? (Value)arith::OrIOp::create(b, loc, index, i32Constant(b, loc, offset)) : index;
}

Value elementIndex(OpBuilder &b, Location loc, const Distribution &d, int64_t slot, Value tid) {
  if (d.blocked)
    return elementIndex(b, loc, *d.blocked, slot, tid);
  BitMap threadMap(d.bits.thread.begin(), d.bits.thread.end());
  int64_t constant = 0;
  for (size_t bit = 0; bit < d.bits.slot.size(); ++bit)
    if ((slot >> bit & 1) && d.bits.slot[bit] >= 0)
      constant |= int64_t(1) << d.bits.slot[bit];
  Value index = remapIndex(b, loc, tid, threadMap);
  return constant ? (Value)arith::OrIOp::create(b, loc, index, i32Constant(b, loc, constant)) : index;
}

Value isOwner(OpBuilder &b, Location loc, const BlockedLayout &layout, Value tid) {
  if (layout.owners() >= layout.threads)
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, i32Constant(b, loc, layout.owners()));
}

Value isOwner(OpBuilder &b, Location loc, const Distribution &d, Value tid) {
  if (d.blocked)
    return isOwner(b, loc, *d.blocked, tid);
  int64_t replicas = 0;
  for (size_t bit = 0; bit < d.bits.thread.size(); ++bit)
    if (d.bits.thread[bit] < 0)
      replicas |= int64_t(1) << bit;
  if (!replicas)
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                               arith::AndIOp::create(b, loc, tid, i32Constant(b, loc, replicas)),
                               i32Constant(b, loc, 0));
}

Distribution distributionOf(Value tile) {
  Type type = tile.getType();
  if (hasLinearLayout(type))
    return Distribution{*layoutBitsOf(type), std::nullopt};
  if (std::optional<BlockedLayout> blocked = blockedLayoutOf(type))
    return Distribution::of(*blocked);
  // A scalar: the one element every thread holds.
  return Distribution::of(BlockedLayout{1, threadsOf(tile.getParentBlock()->getParentOp()), 1});
}

BitMap identityMap(int bits) {
  BitMap map(bits);
  for (int bit = 0; bit < bits; ++bit)
    map[bit] = bit;
  return map;
}

Value remapIndex(OpBuilder &b, Location loc, Value index, const BitMap &map) {
  Value result;
  for (size_t bit = 0; bit < map.size();) {
    if (map[bit] < 0) {
      ++bit;
      continue;
    }
    size_t length = 1;
    while (bit + length < map.size() && map[bit + length] == map[bit] + int(length))
      ++length;
    Value piece = index;
    if (bit)
      piece = arith::ShRUIOp::create(b, loc, piece, i32Constant(b, loc, bit));
    piece = arith::AndIOp::create(b, loc, piece, i32Constant(b, loc, (int64_t(1) << length) - 1));
    if (map[bit])
      piece = arith::ShLIOp::create(b, loc, piece, i32Constant(b, loc, map[bit]));
    result = result ? (Value)arith::OrIOp::create(b, loc, result, piece) : piece;
    bit += length;
  }
  return result ? result : i32Constant(b, loc, 0);
}

BitMap dropAxis(ArrayRef<int64_t> shape, int64_t axis) {
  int low = 0;
  for (int64_t d = axis + 1; d < (int64_t)shape.size(); ++d)
    low += log2Of(shape[d]);
  int width = log2Of(shape[axis]), total = log2Of(llvm::product_of(shape));
  BitMap map;
  for (int bit = 0; bit < total; ++bit)
    map.push_back(bit < low ? bit : bit < low + width ? -1 : bit - width);
  return map;
}

namespace {

/// The lowest index bit of each dimension of a row-major tile.
SmallVector<int> lowBits(ArrayRef<int64_t> shape) {
  SmallVector<int> low(shape.size());
  int bit = 0;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    low[d] = bit;
    bit += log2Of(shape[d]);
  }
  return low;
}

} // namespace

BitMap resultToSource(Operation *op) {
  auto source = cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  ArrayRef<int64_t> in = source.getShape(), out = result.getShape();
  BitMap map(log2Of(result.getNumElements()));
  SmallVector<int> inLow = lowBits(in), outLow = lowBits(out);
  if (isa<BroadcastOp>(op)) {
    for (size_t d = 0; d < out.size(); ++d)
      for (int p = 0; p < log2Of(out[d]); ++p)
        map[outLow[d] + p] = in[d] == 1 ? -1 : inLow[d] + p;
  } else if (auto trans = dyn_cast<TransOp>(op)) {
    ArrayRef<int32_t> order = trans.getOrder();
    for (size_t d = 0; d < out.size(); ++d)
      for (int p = 0; p < log2Of(out[d]); ++p)
        map[outLow[d] + p] = inLow[order[d]] + p;
  } else {
    for (size_t bit = 0; bit < map.size(); ++bit)
      map[bit] = bit; // expand_dims and reshape keep the row-major order
  }
  return map;
}

std::pair<Value, Value> rowAndColumn(OpBuilder &b, Location loc, Value index, int64_t rowLength) {
  return {arith::ShRUIOp::create(b, loc, index, i32Constant(b, loc, log2Of(rowLength))),
          arith::AndIOp::create(b, loc, index, i32Constant(b, loc, rowLength - 1))};
}

Value swizzledIndex(OpBuilder &b, Location loc, const SwizzleParams &swizzle, Value row, Value column) {
  auto c = [&](int64_t v) { return i32Constant(b, loc, v); };
  int chunkBits = log2Of(swizzle.chunk), blockBits = log2Of(swizzle.blockLength);
  Value phase = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, row, c(log2Of(swizzle.perPhase))),
                                      c(swizzle.maxPhase - 1));
  Value inBlock = swizzle.blockLength < swizzle.rowLength
                      ? (Value)arith::AndIOp::create(b, loc, column, c(swizzle.blockLength - 1))
                      : column;
  Value chunk = arith::XOrIOp::create(b, loc, arith::ShRUIOp::create(b, loc, inBlock, c(chunkBits)), phase);
  Value within = arith::AndIOp::create(b, loc, column, c(swizzle.chunk - 1));
  Value rowStart = arith::ShLIOp::create(b, loc, row, c(blockBits));
  if (swizzle.blockLength < swizzle.rowLength) {
    Value block = arith::ShRUIOp::create(b, loc, column, c(blockBits));
    rowStart = arith::AddIOp::create(b, loc, rowStart, arith::MulIOp::create(b, loc, block, c(swizzle.blockStride())));
  }
  return arith::AddIOp::create(
      b, loc, rowStart, arith::OrIOp::create(b, loc, arith::ShLIOp::create(b, loc, chunk, c(chunkBits)), within));
}

bool partsChosenBySlots(const Distribution &d, int64_t columns, int64_t width) {
  int low = llvm::Log2_64(width), high = llvm::Log2_64(columns);
  return llvm::none_of(d.bits.thread, [&](int bit) { return bit >= low && bit < high; });
}

Value SwizzledOffsets::at(int64_t rows, int64_t columns) {
  auto c = [&](int64_t v) { return i32Constant(b_, loc_, v); };
  std::optional<SwizzleParams::Fold> fold = swizzle_.fold(rows, columns);
  if (!fold)
    return swizzledIndex(b_, loc_, swizzle_, arith::AddIOp::create(b_, loc_, row_, c(rows)),
                         arith::AddIOp::create(b_, loc_, column_, c(columns)));
  Value &base = bases_[fold->lowChunk];
  if (!base)
    base = swizzledIndex(b_, loc_, swizzle_, row_,
                         arith::AddIOp::create(b_, loc_, column_, c(fold->lowChunk * swizzle_.chunk)));
  return arith::AddIOp::create(b_, loc_, base, c(fold->offset));
}

} // namespace tk::codegen
