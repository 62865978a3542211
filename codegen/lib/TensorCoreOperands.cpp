// The operands of tensor-core `dot`s: stages read in place, tiles staged swizzled into the
// dot's shared region (16-byte stores into rows whose 16-byte chunks are XOR-swizzled), A
// from registers in an earlier dot's accumulator layout; and mma.sync's fragments, read by
// ldmatrix (`.trans` for B as loaded, K rows of N; without it for B from a stage's `trans`,
// stored as N rows of K; tf32's and i8's B, which ldmatrix cannot transpose, element by element).
#include "TensorCoreOperands.h"
#include "IndexArithmetic.h"
#include "MemoryTypes.h"
#include "MmaPlan.h"
#include "SharedAllocation.h"
#include "SharedRegion.h"
#include "StageRings.h"
#include "Swizzle.h"
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
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
LocalLoadOp tensorCoreStage(Value operand) {
  auto local = operand.getDefiningOp<LocalLoadOp>();
  return local && feedsTensorCoresOnly(local) ? local : LocalLoadOp();
}

bool lowersToWarpgroupMma(DotOp op, int64_t threads, bool warpgroupMma) {
  if (!hasLinearLayout(op.getResult().getType()))
    return false;
  std::optional<MmaPlan> plan = planMma(op, threads, warpgroupMma);
  return plan && plan->warpgroup;
}

bool warpgroupStagesA(DotOp op, int64_t threads) {
  return !tensorCoreStage(op.getA()) && !warpgroupAInRegisters(op, threads);
}

void stageSwizzled(OpBuilder &rewriter, Location loc, const SharedRegion &shared, ValueRange values,
                   const BlockedLayout &l, Value tid, int64_t offset, const SwizzleParams &swizzle, bool tf32) {
  auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, isOwner(rewriter, loc, l, tid), false);
  OpBuilder b = ifOp.getThenBodyBuilder();
  // (FP8 as its bytes: vectors of 8-bit floats do not reach LLVM.)
  Type element = memoryType(values[0].getType());
  int64_t group = l.sizePerThread >= swizzle.chunk ? swizzle.chunk : 1;
  auto valueAt = [&](size_t slot) { return tf32 ? roundToTf32(b, loc, values[slot]) : toMemory(b, loc, values[slot]); };
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

Value packPair(OpBuilder &b, Location loc, ValueRange values, int64_t first) {
  Value packed = LLVM::PoisonOp::create(b, loc, VectorType::get({2}, values[first].getType()));
  for (int64_t e = 0; e < 2; ++e)
    packed = LLVM::InsertElementOp::create(b, loc, packed, values[first + e], i32Constant(b, loc, e));
  return packed;
}

SmallVector<Value> registerFragment(OpBuilder &b, Location loc, ValueRange a, int64_t k, int64_t tile, int64_t kk) {
  // Slots of the 8-column n-tile t of m-tile `tile`: (t + k/8 * tile) * 4 + (column pair,
  // row + 8); k-step kk is n-tiles 2 kk and 2 kk + 1.
  SmallVector<Value> registers;
  for (auto [nTile, rowHalf] : {std::pair{2 * kk, 0}, {2 * kk, 1}, {2 * kk + 1, 0}, {2 * kk + 1, 1}})
    registers.push_back(packPair(b, loc, a, (nTile + k / 8 * tile) * 4 + 2 * rowHalf));
  return registers;
}

MmaOperands stageMmaOperands(DotOp op, ValueRange aValues, ValueRange bValues, ConversionPatternRewriter &rewriter,
                             const ThreadTypeConverter &converter) {
  Location loc = op.getLoc();
  auto aType = cast<RankedTensorType>(op.getA().getType()), bType = cast<RankedTensorType>(op.getB().getType());
  int64_t k = aType.getDimSize(1), n = bType.getDimSize(1);
  Type element = aType.getElementType();
  bool tf32 = element.isF32();
  // 16-byte chunks hold 8 elements of 2 bytes, 4 of tf32 or 16 of i8; a k-step is two.
  int64_t chunk = mmaKStep(element) / 2;
  LocalLoadOp aStage = tensorCoreStage(op.getA()), bStage = tensorCoreStage(op.getB());
  SwizzleParams unused(16, k, chunk);
  if (takesLoadedFragments(op, converter.threads()))
    return MmaOperands{threadId(rewriter, loc), true, false, true, unused, unused, Value(), Value()};
  // A in the accumulator layout of an earlier dot over the same rows: its registers are the
  // A fragments already (two n-tiles of 8 columns make one k-step of 16).
  bool aInRegisters = hasLinearLayout(op.getA().getType());
  bool bRowsOfN = bStage && bStage.getTrans();
  SwizzleParams aSwizzle(aType.getDimSize(0), k, chunk), bSwizzle(bRowsOfN ? n : k, bRowsOfN ? k : n, chunk);

  // Operands not already in a stage go to the op's region: A first, then B.
  SharedRegion shared(rewriter, loc, op);
  Value tid = threadId(rewriter, loc);
  int64_t bOffset = aStage || aInRegisters ? 0 : roundUp16(aType.getNumElements() * elementBytes(aType));
  auto baseOf = [&](LocalLoadOp stage, int64_t offset) -> Value {
    if (!stage)
      return shared.address(rewriter, loc, element, i32Constant(rewriter, loc, 0), offset);
    return stageBase(rewriter, loc, rewriter.getRemappedValue(stage.getBuffer()),
                     rewriter.getRemappedValue(stage.getStage()), stage.getBuffer().getType());
  };
  if ((!aStage && !aInRegisters) || !bStage) {
    shared.beginWrites(rewriter, loc);
    if (!aStage && !aInRegisters)
      stageSwizzled(rewriter, loc, shared, aValues, converter.layoutOf(aType), tid, 0, aSwizzle, tf32);
    if (!bStage)
      stageSwizzled(rewriter, loc, shared, bValues, converter.layoutOf(bType), tid, bOffset, bSwizzle, tf32);
    shared.endWrites(rewriter, loc);
  }
  Value aBase = baseOf(aStage, 0), bBase = baseOf(bStage, bOffset);
  return MmaOperands{tid, aInRegisters, bRowsOfN, false, aSwizzle, bSwizzle, aBase, bBase};
}

MmaFragments::MmaFragments(ConversionPatternRewriter &rewriter, Location loc, DotOp op, const MmaPlan &plan,
                           const MmaOperands &operands, ValueRange aValues, ValueRange bValues)
    : rewriter_(rewriter), loc_(loc), plan_(plan), operands_(operands), aValues_(aValues), bValues_(bValues) {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  // (FP8 addressed as bytes; A's and B's formats may differ, not their size.)
  element_ = memoryType(aType.getElementType());
  k_ = aType.getDimSize(1);
  kStep_ = mmaKStep(element_);
  chunk_ = kStep_ / 2;
  Value tid = operands.tid;
  Value lane = arith::AndIOp::create(rewriter, loc, tid, constant(31));
  Value warp = arith::ShRUIOp::create(rewriter, loc, tid, constant(5));
  warpN_ = arith::AndIOp::create(rewriter, loc, warp, constant(plan.warpsN - 1));
  Value warpM = arith::ShRUIOp::create(rewriter, loc, warp, constant(log2Of(plan.warpsN)));
  int64_t rowsPerWarp = plan.mTiles * 16;
  colsPerWarp_ = plan.nTiles * 8;

  // ldmatrix: lanes 8i..8i+7 give the row addresses of 8x8 matrix i of 16-byte rows; A's
  // four matrices are (rows +0/+8) x (k +0/+chunk), B's (k +0/+8) x (columns +0/+8),
  // transposed on the way in; B stored as rows of N: (columns +0/+8) x (k +0/+chunk), read as
  // they are.
  Value laneRow = arith::AndIOp::create(rewriter, loc, lane, constant(7));
  Value laneMid =
      arith::AndIOp::create(rewriter, loc, arith::ShRUIOp::create(rewriter, loc, lane, constant(3)), constant(1));
  Value laneHigh = arith::ShRUIOp::create(rewriter, loc, lane, constant(4));
  Value rowInMatrix = add(laneRow, mul(laneMid, 8));
  Value aRowBase = add(mul(warpM, rowsPerWarp), rowInMatrix), aColumn = mul(laneHigh, chunk_);
  bool bRowsOfN = operands.bRowsOfN;
  Value bColBase = add(mul(warpN_, colsPerWarp_), bRowsOfN ? add(laneRow, mul(laneHigh, 8)) : mul(laneHigh, 8));

  groupRow_ = arith::ShRUIOp::create(rewriter, loc, lane, constant(2));
  inGroup_ = arith::AndIOp::create(rewriter, loc, lane, constant(3));
  // The lanes' ldmatrix rows and columns; B's single n-tile (an odd last one) reads its two
  // matrices from the warp's first column.
  const SwizzleParams &aSwizzle = operands.aSwizzle, &bSwizzle = operands.bSwizzle;
  if (operands.loadedFragments)
    return;
  aIndex_.emplace(rewriter, loc, aSwizzle, aRowBase, aColumn);
  if (bRowsOfN)
    bIndex_.emplace(rewriter, loc, bSwizzle, bColBase, mul(laneMid, chunk_));
  else
    bIndex_.emplace(rewriter, loc, bSwizzle, rowInMatrix, bColBase);
  bSingle_.emplace(rewriter, loc, bSwizzle, rowInMatrix, mul(warpN_, colsPerWarp_));
}

Value MmaFragments::constant(int64_t v) { return i32Constant(rewriter_, loc_, v); }

Value MmaFragments::add(Value x, Value y) { return arith::AddIOp::create(rewriter_, loc_, x, y).getResult(); }

Value MmaFragments::mul(Value x, int64_t y) {
  return arith::MulIOp::create(rewriter_, loc_, x, constant(y)).getResult();
}

Value MmaFragments::elementPointer(Value base, Value index) {
  return LLVM::GEPOp::create(rewriter_, loc_, base.getType(), element_, base, ValueRange{index});
}

SmallVector<Value> MmaFragments::ldmatrix(Value base, Value elementIndex, int count, bool transpose) {
  Type i32 = rewriter_.getI32Type();
  bool bf16 = element_.isBF16(), tf32 = element_.isF32(), bytes = element_.isInteger(8);
  auto pair = VectorType::get({2}, element_);
  Type result = count == 1
                    ? (Type)i32
                    : (Type)LLVM::LLVMStructType::getLiteral(rewriter_.getContext(), SmallVector<Type>(count, i32));
  Value matrices = NVVM::LdMatrixOp::create(rewriter_, loc_, result, elementPointer(base, elementIndex), count,
                                            transpose ? NVVM::MMALayout::col : NVVM::MMALayout::row,
                                            NVVM::LdStMatrixShapeAttr::get(rewriter_.getContext(), 8, 8),
                                            NVVM::LdStMatrixEltType::B16);
  SmallVector<Value> registers;
  for (int i = 0; i < count; ++i) {
    Value r =
        count == 1 ? matrices : (Value)LLVM::ExtractValueOp::create(rewriter_, loc_, matrices, ArrayRef<int64_t>{i});
    registers.push_back(bf16 || tf32 || bytes ? r : (Value)LLVM::BitcastOp::create(rewriter_, loc_, pair, r));
  }
  return registers;
}

Value MmaFragments::registerPair(ValueRange values, int64_t first) {
  Value packed = packPair(rewriter_, loc_, values, first);
  return element_.isBF16() ? (Value)LLVM::BitcastOp::create(rewriter_, loc_, rewriter_.getI32Type(), packed) : packed;
}

SmallVector<SmallVector<Value>> MmaFragments::a(int64_t kk) {
  SmallVector<SmallVector<Value>> fragments;
  // Loaded fragments: a0..a3 = (row g, half 0), (row g + 8, half 0), (g, 1), (g + 8, 1).
  for (int64_t mi = 0; mi < plan_.mTiles && operands_.loadedFragments; ++mi) {
    SmallVector<Value> registers;
    for (auto [half, rowHalf] : {std::pair{0, 0}, {0, 1}, {1, 0}, {1, 1}})
      registers.push_back(registerPair(aValues_, loadedASlot(k_, mi, kk, half, 0, rowHalf)));
    fragments.push_back(registers);
  }
  if (operands_.loadedFragments)
    return fragments;
  for (int64_t mi = 0; mi < plan_.mTiles && operands_.aInRegisters; ++mi) {
    SmallVector<Value> pairs = registerFragment(rewriter_, loc_, aValues_, k_, mi, kk);
    if (element_.isBF16())
      for (Value &p : pairs)
        p = LLVM::BitcastOp::create(rewriter_, loc_, rewriter_.getI32Type(), p);
    fragments.push_back(pairs);
  }
  for (int64_t mi = 0; mi < plan_.mTiles && !operands_.aInRegisters; ++mi)
    fragments.push_back(ldmatrix(operands_.aBase, aIndex_->at(mi * 16, kk * kStep_), 4, false));
  return fragments;
}

SmallVector<SmallVector<Value>> MmaFragments::b(int64_t kk) {
  Type i32 = rewriter_.getI32Type();
  bool tf32 = element_.isF32(), bytes = element_.isInteger(8), bRowsOfN = operands_.bRowsOfN;
  const SwizzleParams &bSwizzle = operands_.bSwizzle;
  Value bBase = operands_.bBase;
  auto c = [&](int64_t v) { return constant(v); };
  SmallVector<SmallVector<Value>> fragments;
  for (int64_t ni = 0; ni < plan_.nTiles && operands_.loadedFragments; ++ni)
    fragments.push_back({registerPair(bValues_, loadedBSlot(k_, ni, kk, 0, 0)),
                         registerPair(bValues_, loadedBSlot(k_, ni, kk, 1, 0))});
  if (operands_.loadedFragments)
    return fragments;
  // B in elements ldmatrix cannot transpose, as K rows of N, element by element, for lane =
  // 4g + t: tf32's b0 = B[k + t][n + g], b1 = B[k + t + 4][n + g]; i8's and FP8's b0 holds
  // B[k + 4t + j][n + g] in byte j, b1 the same 16 rows further. (FP8's B as rows of N, from
  // a `trans` stage, is ldmatrix's without `.trans`: each 16-byte row 16 k of one column.)
  bool elementwiseB = tf32 || (bytes && !bRowsOfN);
  for (int64_t ni = 0; ni < plan_.nTiles && elementwiseB; ++ni) {
    Value column = add(add(mul(warpN_, colsPerWarp_), c(ni * 8)), groupRow_);
    SmallVector<Value> regs;
    for (int64_t half = 0; half < 2; ++half) {
      if (tf32) {
        Value index = swizzledIndex(rewriter_, loc_, bSwizzle, add(inGroup_, c(kk * kStep_ + half * 4)), column);
        regs.push_back(LLVM::LoadOp::create(rewriter_, loc_, i32, elementPointer(bBase, index)));
        continue;
      }
      Value word = c(0);
      for (int64_t j = 0; j < 4; ++j) {
        Value row = add(mul(inGroup_, 4), c(kk * kStep_ + half * 16 + j));
        Value byte = LLVM::LoadOp::create(rewriter_, loc_, element_,
                                          elementPointer(bBase, swizzledIndex(rewriter_, loc_, bSwizzle, row, column)));
        Value wide =
            arith::ShLIOp::create(rewriter_, loc_, arith::ExtUIOp::create(rewriter_, loc_, i32, byte), c(8 * j));
        word = arith::OrIOp::create(rewriter_, loc_, word, wide);
      }
      regs.push_back(word);
    }
    fragments.push_back(regs);
  }
  for (int64_t ni = 0; ni < plan_.nTiles && !elementwiseB; ni += 2) {
    bool both = ni + 1 < plan_.nTiles;
    Value index = bRowsOfN ? bIndex_->at(ni * 8, kk * kStep_)
                  : both   ? bIndex_->at(kk * kStep_, ni * 8)
                           : bSingle_->at(kk * kStep_, ni * 8);
    SmallVector<Value> regs = ldmatrix(bBase, index, both ? 4 : 2, !bRowsOfN);
    fragments.push_back({regs[0], regs[1]});
    if (both)
      fragments.push_back({regs[2], regs[3]});
  }
  return fragments;
}

} // namespace tk::codegen
