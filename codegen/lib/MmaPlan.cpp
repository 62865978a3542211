// Tensor-core plans: the split of a dot over warps or warpgroups, and the accumulator layouts.
#include "MmaPlan.h"
#include "AccumulatorLayouts.h"
#include "Swizzle.h"

using namespace mlir;

namespace tk::codegen {

std::optional<MmaPlan> planWarpgroupShapes(DotOp op, int64_t threads, bool bRowsOfN) {
  auto aType = cast<RankedTensorType>(op.getA().getType()), bType = cast<RankedTensorType>(op.getB().getType());
  Type element = aType.getElementType();
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1), n = bType.getDimSize(1);
  // Dots chained in one loop body (attention) split rows only, as on mma.sync.
  bool chained = llvm::any_of(op->getBlock()->getOps<DotOp>(), [&](DotOp other) { return other != op; });
  // Rows of at least 32 bytes: a swizzle mode. FP8 (e4m3 and e5m2, mixed too) reads both
  // operands K-major only.
  int64_t bRow = bRowsOfN ? k : n, bytes = elementBytes(element);
  bool sixteenBit = (element.isF16() || element.isBF16()) && bType.getElementType() == element;
  bool float8 = isFloat8(element) && isFloat8(bType.getElementType()) && bRowsOfN;
  if (!(sixteenBit || float8) || !cast<RankedTensorType>(op.getType()).getElementType().isF32() || threads % 128 ||
      k % mmaKStep(element) || m % 64 || bRow * bytes < 32)
    return std::nullopt;
  int64_t groups = threads / 128;
  MmaPlan plan;
  plan.warpgroup = true;
  while (plan.warpsM < groups && m / (plan.warpsM * 2) >= 64)
    plan.warpsM *= 2;
  plan.warpsN = groups / plan.warpsM;
  if (chained && plan.warpsN > 1)
    return std::nullopt;
  int64_t instructionN = n / plan.warpsN;
  auto bSwizzle = SwizzleParams::ofElements(bRowsOfN ? n : k, bRow, bytes);
  // N rows of K: each group starts at a row; K rows of N: at a column block.
  if (instructionN < 8 || instructionN % 8 || instructionN > 256 ||
      (!bRowsOfN && plan.warpsN > 1 && instructionN % bSwizzle.blockLength))
    return std::nullopt;
  plan.mTiles = m / plan.warpsM / 64;
  plan.nTiles = instructionN / 8;
  plan.accumulator = warpgroupAccumulatorBits(m, n, plan.warpsM, plan.warpsN);
  return plan;
}

namespace {

/// The layout of m16n8 fragments: slots (column pair, row + 8, n-tiles of 8 columns, m-tiles),
/// lanes (column pairs, row groups), then `innerWarpBits` bits of warps that each hold 16 rows
/// of every m-tile (wgmma's 4 warps of a group), then the warps along N and along M. Element
/// index bits: column c is bit c, row r is bit log2(n) + r.
LayoutBits fragmentBits(int64_t n, int64_t mTiles, int64_t nTiles, int innerWarpBits, int64_t warpsM, int64_t warpsN) {
  int rowBit = log2Of(n), tileRowBit = rowBit + 4 + innerWarpBits;
  int nTileBits = log2Of(nTiles), mTileBits = log2Of(mTiles);
  LayoutBits bits;
  bits.slot = {0, rowBit + 3};
  for (int b = 0; b < nTileBits; ++b)
    bits.slot.push_back(3 + b);
  for (int b = 0; b < mTileBits; ++b)
    bits.slot.push_back(tileRowBit + b);
  bits.thread = {1, 2, rowBit + 0, rowBit + 1, rowBit + 2};
  for (int b = 0; b < innerWarpBits; ++b)
    bits.thread.push_back(rowBit + 4 + b);
  for (int b = 0; b < log2Of(warpsN); ++b)
    bits.thread.push_back(3 + nTileBits + b);
  for (int b = 0; b < log2Of(warpsM); ++b)
    bits.thread.push_back(tileRowBit + mTileBits + b);
  return bits;
}

} // namespace

LayoutBits warpgroupAccumulatorBits(int64_t m, int64_t n, int64_t groupsM, int64_t groupsN) {
  // wgmma's register order is the slots' (column pair, row + 8, n-tile); tiles of 64 rows.
  return fragmentBits(n, m / groupsM / 64, n / groupsN / 8, 2, groupsM, groupsN);
}

std::optional<MmaPlan> planMma(DotOp op, int64_t threads, bool warpgroupMma) {
  // wgmma reads B from shared memory: a stage; A from a stage as rows of K, or from registers
  // (an earlier dot's accumulator), or staged by the dot.
  auto aStage = op.getA().getDefiningOp<LocalLoadOp>(), bStage = op.getB().getDefiningOp<LocalLoadOp>();
  auto onlyOperand = [](LocalLoadOp stage, unsigned operand) {
    return stage && llvm::all_of(stage->getUses(), [&](OpOperand &use) {
             return isa<DotOp>(use.getOwner()) && use.getOperandNumber() == operand;
           });
  };
  // (wgmma's FP8 A from a stage only: the dot stages 1-byte tiles for mma.sync alone.)
  bool float8 = isFloat8(cast<RankedTensorType>(op.getA().getType()).getElementType());
  if (warpgroupMma && (!aStage || !aStage.getTrans()) && (aStage || !float8) && onlyOperand(bStage, 1))
    if (std::optional<MmaPlan> plan = planWarpgroupShapes(op, threads, bStage.getTrans()))
      return plan;
  auto aType = cast<RankedTensorType>(op.getA().getType()), bType = cast<RankedTensorType>(op.getB().getType());
  Type element = aType.getElementType();
  auto result = cast<RankedTensorType>(op.getType());
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1), n = bType.getDimSize(1);
  // f16/bf16 into f32 or f16 into f16 (m16n8k16), f32 at tf32 precision (m16n8k8; "ieee"
  // keeps the exact FMA path), i8 into i32 (m16n8k32), e4m3/e5m2 (mixed too) into f32
  // (m16n8k32, sm_89 and later: checkSupported refuses it for sm_80).
  bool tf32 = element.isF32() && op.getPrecision() == DotPrecision::tf32;
  Type acc = result.getElementType();
  bool float8Pair = float8 && isFloat8(bType.getElementType());
  bool supported = ((element.isF16() || element.isBF16() || tf32 || float8Pair) && acc.isF32()) ||
                   (element.isF16() && acc.isF16()) || (element.isInteger(8) && acc.isInteger(32));
  if (!supported || (bType.getElementType() != element && !float8Pair) || m % 16 || n % 8 || k % mmaKStep(element))
    return std::nullopt;
  // 1-byte B stored as K rows of N (all but a `trans` stage, rows of K) needs rows of whole
  // 16-byte chunks, the swizzle's unit.
  if (elementBytes(element) == 1 && !(bStage && bStage.getTrans()) && n % 16)
    return std::nullopt;
  MmaPlan plan;
  int64_t warps = threads / 32;
  // Dots chained in one loop body (attention's S = QK^T, then O += PV): warps split rows
  // only, so row statistics of S stay within a warp, as in Triton.
  bool chained = llvm::any_of(op->getBlock()->getOps<DotOp>(), [&](DotOp other) { return other != op; });
  while (chained && plan.warpsM < warps && m / (plan.warpsM * 2) >= 16)
    plan.warpsM *= 2;
  while (plan.warpsM * plan.warpsN < warps) {
    bool splitM = m / (plan.warpsM * 2) >= 16, splitN = n / (plan.warpsN * 2) >= 8;
    if (!splitM && !splitN)
      return std::nullopt; // too small a tile for every warp to own a 16x8 block
    if (splitM && (!splitN || m / plan.warpsM >= n / plan.warpsN))
      plan.warpsM *= 2;
    else
      plan.warpsN *= 2;
  }
  plan.mTiles = m / plan.warpsM / 16;
  plan.nTiles = n / plan.warpsN / 8;
  plan.accumulator = accumulatorBits(m, n, plan.warpsM, plan.warpsN);
  return plan;
}

bool takesTensorCores(DotOp op, int64_t threads) {
  if (planMma(op, threads))
    return true;
  // B through `trans`, or already a transposed stage (a loop invariant copied before the loop):
  // FP8 that wgmma takes, or that mma.sync takes once B is a `trans` stage (N of 8 too).
  auto bStage = op.getB().getDefiningOp<LocalLoadOp>();
  bool bRowsOfN = op.getB().getDefiningOp<TransOp>() || (bStage && bStage.getTrans());
  return isFloat8(cast<RankedTensorType>(op.getA().getType()).getElementType()) && bRowsOfN &&
         !op.getA().getDefiningOp<TransOp>() && planWarpgroupShapes(op, threads, /*bRowsOfN=*/true);
}

LayoutBits accumulatorBits(int64_t m, int64_t n, int64_t warpsM, int64_t warpsN) {
  return fragmentBits(n, m / warpsM / 16, n / warpsN / 8, 0, warpsM, warpsN);
}

std::optional<LayoutBits> registerOperandBits(DotOp op, int64_t threads, bool warpgroupMma) {
  std::optional<MmaPlan> plan = planMma(op, threads, warpgroupMma);
  auto a = cast<RankedTensorType>(op.getA().getType());
  // Two 2-byte accumulator columns per register make an A fragment; tf32's do not line up.
  if (!plan || plan->warpsN != 1 || a.getElementTypeBitWidth() != 16)
    return std::nullopt;
  if (plan->warpgroup)
    return warpgroupAccumulatorBits(a.getDimSize(0), a.getDimSize(1), plan->warpsM, 1);
  return accumulatorBits(a.getDimSize(0), a.getDimSize(1), plan->warpsM, 1);
}

namespace {

/// The k-step bits a loaded fragment keeps below the lanes' k bits (MmaPlan.h).
int lowStepBits(int64_t k) { return std::min(2, log2Of(k / 16)); }

} // namespace

std::optional<LayoutBits> loadedOperandBits(DotOp op, int64_t threads, unsigned operandNumber) {
  std::optional<MmaPlan> plan = planMma(op, threads);
  auto a = cast<RankedTensorType>(op.getA().getType()), b = cast<RankedTensorType>(op.getB().getType());
  if (!plan || plan->warpgroup || plan->warpsN != 1 || a.getElementTypeBitWidth() != 16 || operandNumber > 1)
    return std::nullopt;
  int kBits = log2Of(a.getDimSize(1)), steps = kBits - 4, c = lowStepBits(a.getDimSize(1));
  int mTileBits = log2Of(plan->mTiles), nTileBits = log2Of(b.getDimSize(1) / 8), nBits = log2Of(b.getDimSize(1));
  // The physical k bits in slot order: pair, half, the low k-step bits; then the others.
  std::vector<int> lowK = {0, 1}, highK;
  for (int j = 0; j < steps; ++j)
    (j < c ? lowK : highK).push_back(j < c ? 2 + j : 4 + j);
  LayoutBits bits;
  if (operandNumber == 0) {
    // A [m, k]: k is bits 0 .. kBits - 1, row r is kBits + r.
    bits.slot = lowK;
    bits.slot.push_back(kBits + 3);
    llvm::append_range(bits.slot, highK);
    for (int t = 0; t < mTileBits; ++t)
      bits.slot.push_back(kBits + 4 + t);
    bits.thread = {2 + c, 3 + c, kBits, kBits + 1, kBits + 2};
    for (int w = 0; w < log2Of(plan->warpsM); ++w)
      bits.thread.push_back(kBits + 4 + mTileBits + w);
    return bits;
  }
  // B [k, n]: column c is bit c, k is nBits + k; the warps (all along M) hold replicas.
  for (int bit : llvm::concat<const int>(lowK, highK))
    bits.slot.push_back(nBits + bit);
  for (int t = 0; t < nTileBits; ++t)
    bits.slot.push_back(3 + t);
  bits.thread = {nBits + 2 + c, nBits + 3 + c, 0, 1, 2};
  bits.thread.resize(5 + log2Of(plan->warpsM), -1);
  return bits;
}

int64_t loadedASlot(int64_t k, int64_t mTile, int64_t kStep, int64_t half, int64_t pair, int64_t rowHalf) {
  int c = lowStepBits(k), steps = log2Of(k) - 4;
  return pair | half << 1 | (kStep & ((1 << c) - 1)) << 2 | rowHalf << (2 + c) | (kStep >> c) << (3 + c) |
         mTile << (3 + steps);
}

int64_t loadedBSlot(int64_t k, int64_t nTile, int64_t kStep, int64_t half, int64_t pair) {
  int c = lowStepBits(k), steps = log2Of(k) - 4;
  return pair | half << 1 | (kStep & ((1 << c) - 1)) << 2 | (kStep >> c) << (2 + c) | nTile << (2 + steps);
}

bool takesLoadedFragments(DotOp op, int64_t threads) {
  std::optional<LayoutBits> a = loadedOperandBits(op, threads, 0), b = loadedOperandBits(op, threads, 1);
  return a && b && hasLinearLayout(op.getA().getType()) && hasLinearLayout(op.getB().getType()) &&
         *layoutBitsOf(op.getA().getType()) == *a && *layoutBitsOf(op.getB().getType()) == *b;
}

bool warpgroupAInRegisters(DotOp op, int64_t threads) {
  std::optional<LayoutBits> wanted = registerOperandBits(op, threads, /*warpgroupMma=*/true);
  return hasLinearLayout(op.getA().getType()) && wanted && *layoutBitsOf(op.getA().getType()) == *wanted;
}

} // namespace tk::codegen
