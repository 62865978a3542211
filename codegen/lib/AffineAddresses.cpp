// Affine pointer tiles: when a pointer (or integer) tile is an affine function of its element
// index, the slots a thread holds differ from its first slot by constants, so one address
// register serves them all (the constants fold into the instructions' offsets).
// Rematerializable tiles: cheap functions of the element index and scalars, which a broadcast
// recomputes in each thread (ShapeToThreads.cpp's elementAt) instead of moving them.

#include "AffineAddresses.h"
#include "IndexArithmetic.h"
#include "MemoryTypes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace tk::codegen {

namespace {

/// The integer a splat constant tile (or a splat of a scalar constant) holds.
std::optional<int64_t> splatConstant(Value value) {
  if (auto splat = value.getDefiningOp<SplatOp>())
    value = splat.getSrc();
  APInt constant;
  if (!matchPattern(value, m_ConstantInt(&constant)))
    return std::nullopt;
  return constant.getSExtValue();
}

std::optional<std::vector<int64_t>> coefficientsWithin(Value value, int depth) {
  auto tile = dyn_cast<RankedTensorType>(value.getType());
  Operation *def = value.getDefiningOp();
  if (!tile)
    return std::vector<int64_t>(); // a scalar: uniform
  std::vector<int64_t> zero(log2Of(tile.getNumElements()), 0);
  if (!def || depth == 0)
    return std::nullopt;
  if (isa<SplatOp>(def) || splatConstant(value))
    return zero;
  auto operand = [&](unsigned k) -> std::optional<std::vector<int64_t>> {
    auto c = coefficientsWithin(def->getOperand(k), depth - 1);
    if (c && c->empty())
      return zero;
    return c;
  };
  if (isa<MakeRangeOp>(def)) {
    for (size_t bit = 0; bit < zero.size(); ++bit)
      zero[bit] = int64_t(1) << bit;
    return zero;
  }
  if (isa<BroadcastOp, ExpandDimsOp, ReshapeOp, TransOp>(def)) {
    auto source = operand(0);
    if (!source)
      return std::nullopt;
    BitMap map = resultToSource(def);
    for (size_t bit = 0; bit < zero.size(); ++bit)
      zero[bit] = map[bit] < 0 ? 0 : (*source)[map[bit]];
    return zero;
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(def))
    return operand(0);
  if (isa<arith::AddIOp, arith::SubIOp, AddPtrOp>(def)) {
    auto a = operand(0), b = operand(1);
    if (!a || !b)
      return std::nullopt;
    for (size_t bit = 0; bit < zero.size(); ++bit)
      zero[bit] = (*a)[bit] + (isa<arith::SubIOp>(def) ? -(*b)[bit] : (*b)[bit]);
    return zero;
  }
  if (isa<arith::MulIOp, arith::ShLIOp>(def)) {
    for (unsigned k = 0; k < 2; ++k) {
      std::optional<int64_t> factor = splatConstant(def->getOperand(1 - k));
      if (!factor || (isa<arith::ShLIOp>(def) && k == 1))
        continue;
      auto other = operand(k);
      if (!other)
        return std::nullopt;
      int64_t scale = isa<arith::ShLIOp>(def) ? int64_t(1) << *factor : *factor;
      for (size_t bit = 0; bit < zero.size(); ++bit)
        zero[bit] = (*other)[bit] * scale;
      return zero;
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<std::vector<int64_t>> indexBitCoefficients(Value tile) { return coefficientsWithin(tile, 24); }

Value slotPointer(OpBuilder &b, Location loc, Value ptrTile, ValueRange ptrs, const Distribution &layout, size_t slot,
                  const std::optional<std::vector<int64_t>> &coefficients) {
  // A replicated blocked tile wraps its indices: its slots are not constants or'ed in.
  const std::optional<BlockedLayout> &l = layout.blocked;
  if (!coefficients || slot == 0 || ptrs.size() != size_t(layout.perThread()) ||
      (l && l->size < l->threads * l->sizePerThread))
    return ptrs[slot];
  int64_t slotBits = 0, offset = 0;
  for (size_t bit = 0; bit < layout.bits.slot.size(); ++bit)
    if ((slot >> bit & 1) && layout.bits.slot[bit] >= 0)
      slotBits |= int64_t(1) << layout.bits.slot[bit];
  for (size_t bit = 0; bit < coefficients->size(); ++bit)
    if (slotBits >> bit & 1)
      offset += (*coefficients)[bit];
  if (offset != int64_t(int32_t(offset)))
    return ptrs[slot]; // beyond a GEP's constant index
  Type element = memoryType(cast<PtrType>(tk::elementTypeOf(ptrTile.getType())).getPointee());
  return LLVM::GEPOp::create(b, loc, ptrs[0].getType(), element, ptrs[0], ArrayRef<LLVM::GEPArg>{int32_t(offset)});
}

namespace {

/// Tiles that are cheap functions of element indices and scalars (ranges, splats, constants,
/// shape changes and elementwise arithmetic over them): a broadcast of such a tile computes its
/// elements where they are needed instead of moving them through shared memory, as Triton's
/// layout propagation rematerializes them. The limit bounds the walk, not the cost: a GEMV
/// row's activation pointers broadcast over its weight rows take ~15 ops (12 sent them through
/// shared memory, four barriers an iteration: lit Codegen/broadcast-remat.tk).
/// `loads`: plain loads of such pointers count too, and are collected there (each thread reads
/// the elements it needs; the caller makes sure that nothing writes memory before).
constexpr int kMaxRematerializedOps = 32;

bool rematerializableWithin(Value value, int &budget, SetVector<Operation *> *loads) {
  Operation *def = value.getDefiningOp();
  if (!isa<RankedTensorType>(value.getType()))
    return true; // a scalar, used as it is
  if (!def || --budget < 0 || def->getNumResults() != 1 || def->getNumRegions())
    return false;
  if (isa<MakeRangeOp, SplatOp>(def))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    return isa<SplatElementsAttr>(constant.getValue());
  if (auto load = dyn_cast<LoadOp>(def)) {
    bool plain = load.getCache() == CacheModifier::none && load.getEvict() == EvictionPolicy::normal &&
                 load.getPrefetchSize() == 0;
    if (!loads || !plain ||
        !llvm::all_of(def->getOperands(), [&](Value operand) { return rematerializableWithin(operand, budget, nullptr); }))
      return false;
    loads->insert(def);
    return true;
  }
  bool elementwise = isa<arith::ArithDialect>(def->getDialect()) && isPure(def);
  if (!elementwise && !isa<BroadcastOp, ExpandDimsOp, ReshapeOp, TransOp, AddPtrOp>(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) { return rematerializableWithin(operand, budget, loads); });
}

} // namespace

bool rematerializable(Value value, SetVector<Operation *> *loads) {
  int budget = kMaxRematerializedOps;
  return rematerializableWithin(value, budget, loads);
}

bool recomputedInEachThread(BroadcastOp broadcast) {
  if (rematerializable(broadcast.getSrc()))
    return true;
  // Only into a tensor-core layout (`#tkg.linear`), where it was measured (block-wise FP8
  // scales): between default layouts (decode's kernels) the exchange stays.
  SetVector<Operation *> loads;
  if (!broadcast->hasAttr(TkgDialect::kRereadable) || !hasLinearLayout(broadcast.getType()) ||
      !rematerializable(broadcast.getSrc(), &loads))
    return false;
  // A load each for the distinct source elements a thread holds (slots differing only in
  // broadcast bits share one), for each load of the chain: a few registers of addresses and
  // values. Many more (a 256-column tile's per-column factors, 64 a thread) spilled; those
  // move through shared memory.
  constexpr int64_t kMaxLoadsPerThread = 8;
  Distribution result = distributionOf(broadcast.getResult());
  BitMap map = resultToSource(broadcast);
  int64_t distinct = 1;
  for (int bit : result.bits.slot)
    if (bit >= 0 && map[bit] >= 0)
      distinct *= 2;
  return distinct * int64_t(loads.size()) <= kMaxLoadsPerThread;
}

} // namespace tk::codegen
