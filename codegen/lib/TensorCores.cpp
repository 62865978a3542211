// Tensor-core `dot`s on mma.sync: m16n8k16 for f16/bf16 into f32 (and f16 into f16), m16n8k8
// for tf32 into f32, m16n8k32 for i8 into i32. Operands come from a stage ring (`tkg.local_load`),
// from registers (a chained dot's A in the accumulator layout of the first), or are staged by
// the dot into its shared region (TensorCoreOperands.cpp); ldmatrix reads them (`.trans` for B
// as loaded, K rows of N; without it for B from a stage's `trans`, stored as N rows of K; tf32's
// and i8's B, which ldmatrix cannot transpose, element by element). `planMma` (MmaPlan.cpp)
// splits the result over the warps.
#include "TensorCores.h"
#include "IndexArithmetic.h"
#include "MemoryTypes.h"
#include "MmaPlan.h"
#include "SharedAllocation.h"
#include "SharedRegion.h"
#include "StageRings.h"
#include "TensorCoreOperands.h"
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

namespace tk::codegen {

/// mma.sync m16n8k16 (row.col; m16n8k8 for tf32) over fragments read from shared memory
/// with ldmatrix (B transposed on the way, as the col operand wants it; tf32's B, whose
/// 4-byte elements ldmatrix cannot transpose, element by element).
void lowerToTensorCores(DotOp op, ValueRange aValues, ValueRange bValues, ValueRange accValues,
                        ConversionPatternRewriter &rewriter, const ThreadTypeConverter &converter) {
  Location loc = op.getLoc();
  auto aType = cast<RankedTensorType>(op.getA().getType()), bType = cast<RankedTensorType>(op.getB().getType());
  int64_t k = aType.getDimSize(1), n = bType.getDimSize(1);
  MmaPlan plan = *planMma(op, converter.threads(), converter.warpgroupMma());
  Type element = aType.getElementType(), i32 = rewriter.getI32Type();
  Type accElement = cast<RankedTensorType>(op.getType()).getElementType();
  bool bf16 = element.isBF16(), tf32 = element.isF32(), int8 = element.isInteger(8), f16Acc = accElement.isF16();
  auto pair = VectorType::get({2}, element);
  // 16-byte chunks hold 8 elements of 2 bytes, 4 of tf32 or 16 of i8; a k-step is two.
  int64_t kStep = mmaKStep(element), chunk = kStep / 2;
  LocalLoadOp aStage = tensorCoreStage(op.getA(), converter), bStage = tensorCoreStage(op.getB(), converter);
  // A in the accumulator layout of an earlier dot over the same rows: its registers are the
  // A fragments already (two n-tiles of 8 columns make one k-step of 16).
  bool aInRegisters = hasLinearLayout(op.getA().getType());
  bool bRowsOfN = bStage && bStage.getTrans();
  SwizzleParams aSwizzle(aType.getDimSize(0), k, chunk), bSwizzle(bRowsOfN ? n : k, bRowsOfN ? k : n, chunk);

  // Operands not already in a stage go to the op's region: A first, then B.
  SharedRegion shared(rewriter, loc, op);
  Value tid = threadId(rewriter, loc);
  int64_t bOffset = aStage || aInRegisters ? 0 : roundUp16(aType.getNumElements() * elementBytes(aType));
  auto elementPointer = [&](Value base, Value index) -> Value {
    return LLVM::GEPOp::create(rewriter, loc, base.getType(), element, base, ValueRange{index});
  };
  auto baseOf = [&](LocalLoadOp stage, int64_t offset) -> Value {
    if (!stage)
      return shared.address(rewriter, loc, element, i32Constant(rewriter, loc, 0), offset);
    return stageBase(rewriter, loc, rewriter.getRemappedValue(stage.getBuffer()), rewriter.getRemappedValue(stage.getStage()),
                     stage.getBuffer().getType());
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

  auto c = [&](int64_t v) { return i32Constant(rewriter, loc, v); };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(rewriter, loc, x, y).getResult(); };
  auto mul = [&](Value x, int64_t y) { return arith::MulIOp::create(rewriter, loc, x, c(y)).getResult(); };
  Value lane = arith::AndIOp::create(rewriter, loc, tid, c(31));
  Value warp = arith::ShRUIOp::create(rewriter, loc, tid, c(5));
  Value warpN = arith::AndIOp::create(rewriter, loc, warp, c(plan.warpsN - 1));
  Value warpM = arith::ShRUIOp::create(rewriter, loc, warp, c(log2Of(plan.warpsN)));
  int64_t rowsPerWarp = plan.mTiles * 16, colsPerWarp = plan.nTiles * 8;

  // ldmatrix: lanes 8i..8i+7 give the row addresses of 8x8 matrix i of 16-byte rows; A's
  // four matrices are (rows +0/+8) x (k +0/+chunk), B's (k +0/+8) x (columns +0/+8),
  // transposed on the way in; B stored as rows of N: (columns +0/+8) x (k +0/+chunk), read as
  // they are.
  Value laneRow = arith::AndIOp::create(rewriter, loc, lane, c(7));
  Value laneMid = arith::AndIOp::create(rewriter, loc, arith::ShRUIOp::create(rewriter, loc, lane, c(3)), c(1));
  Value laneHigh = arith::ShRUIOp::create(rewriter, loc, lane, c(4));
  Value rowInMatrix = add(laneRow, mul(laneMid, 8));
  Value aRowBase = add(mul(warpM, rowsPerWarp), rowInMatrix), aColumn = mul(laneHigh, chunk);
  Value bColBase = add(mul(warpN, colsPerWarp), bRowsOfN ? add(laneRow, mul(laneHigh, 8)) : mul(laneHigh, 8));
  auto ldmatrix = [&](Value base, Value elementIndex, int count, bool transpose) {
    Type result = count == 1 ? (Type)i32 : (Type)LLVM::LLVMStructType::getLiteral(rewriter.getContext(), SmallVector<Type>(count, i32));
    Value matrices = NVVM::LdMatrixOp::create(rewriter, loc, result, elementPointer(base, elementIndex),
                                              count, transpose ? NVVM::MMALayout::col : NVVM::MMALayout::row,
                                              NVVM::LdStMatrixShapeAttr::get(rewriter.getContext(), 8, 8), NVVM::LdStMatrixEltType::B16);
    SmallVector<Value> registers;
    for (int i = 0; i < count; ++i) {
      Value r = count == 1 ? matrices : (Value)LLVM::ExtractValueOp::create(rewriter, loc, matrices, ArrayRef<int64_t>{i});
      registers.push_back(bf16 || tf32 || int8 ? r : (Value)LLVM::BitcastOp::create(rewriter, loc, pair, r));
    }
    return registers;
  };

  SmallVector<Value> acc(accValues.begin(), accValues.end());
  if (acc.size() == 1)
    acc.assign(plan.mTiles * plan.nTiles * 4, acc[0]);
  // Four accumulators per m16n8 tile: f32 or s32 registers, or two f16x2 pairs (the same
  // elements in the same order).
  auto accPair = VectorType::get({2}, accElement);
  auto resultType = LLVM::LLVMStructType::getLiteral(rewriter.getContext(),
                                                     f16Acc ? SmallVector<Type>(2, accPair) : SmallVector<Type>(4, accElement));
  NVVM::MMATypes operandType = tf32   ? NVVM::MMATypes::tf32
                               : bf16 ? NVVM::MMATypes::bf16
                               : int8 ? NVVM::MMATypes::s8
                                      : NVVM::MMATypes::f16;
  std::optional<NVVM::MMAIntOverflow> overflow;
  if (int8)
    overflow = NVVM::MMAIntOverflow::wrapped; // i32 arithmetic wraps, as the interpreter's
  auto types = std::array<NVVM::MMATypes, 2>{operandType, operandType};
  auto layouts = std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col};
  Value groupRow = arith::ShRUIOp::create(rewriter, loc, lane, c(2)), inGroup = arith::AndIOp::create(rewriter, loc, lane, c(3));
  // The lanes' ldmatrix rows and columns; B's single n-tile (an odd last one) reads its two
  // matrices from the warp's first column.
  SwizzledOffsets aIndex(rewriter, loc, aSwizzle, aRowBase, aColumn);
  SwizzledOffsets bIndex = bRowsOfN ? SwizzledOffsets(rewriter, loc, bSwizzle, bColBase, mul(laneMid, chunk))
                                    : SwizzledOffsets(rewriter, loc, bSwizzle, rowInMatrix, bColBase);
  SwizzledOffsets bSingle(rewriter, loc, bSwizzle, rowInMatrix, mul(warpN, colsPerWarp));
  for (int64_t kk = 0; kk < k / kStep; ++kk) {
    SmallVector<SmallVector<Value>> aFragments;
    for (int64_t mi = 0; mi < plan.mTiles && aInRegisters; ++mi) {
      SmallVector<Value> pairs = registerFragment(rewriter, loc, aValues, k, mi, kk);
      if (bf16)
        for (Value &p : pairs)
          p = LLVM::BitcastOp::create(rewriter, loc, i32, p);
      aFragments.push_back(pairs);
    }
    for (int64_t mi = 0; mi < plan.mTiles && !aInRegisters; ++mi)
      aFragments.push_back(ldmatrix(aBase, aIndex.at(mi * 16, kk * kStep), 4, false));
    SmallVector<SmallVector<Value>> bFragments;
    // B in elements ldmatrix cannot transpose, element by element (always as K rows of N: the
    // pipeliner stages 2-byte operands only), for lane = 4g + t: tf32's b0 = B[k + t][n + g],
    // b1 = B[k + t + 4][n + g]; i8's b0 holds B[k + 4t + j][n + g] in byte j, b1 the same 16
    // rows further.
    bool elementwiseB = tf32 || int8;
    for (int64_t ni = 0; ni < plan.nTiles && elementwiseB; ++ni) {
      Value column = add(add(mul(warpN, colsPerWarp), c(ni * 8)), groupRow);
      SmallVector<Value> regs;
      for (int64_t half = 0; half < 2; ++half) {
        if (tf32) {
          Value index = swizzledIndex(rewriter, loc, bSwizzle, add(inGroup, c(kk * kStep + half * 4)), column);
          regs.push_back(LLVM::LoadOp::create(rewriter, loc, i32, elementPointer(bBase, index)));
          continue;
        }
        Value word = c(0);
        for (int64_t j = 0; j < 4; ++j) {
          Value row = add(mul(inGroup, 4), c(kk * kStep + half * 16 + j));
          Value byte = LLVM::LoadOp::create(rewriter, loc, element, elementPointer(bBase, swizzledIndex(rewriter, loc, bSwizzle, row, column)));
          Value wide = arith::ShLIOp::create(rewriter, loc, arith::ExtUIOp::create(rewriter, loc, i32, byte), c(8 * j));
          word = arith::OrIOp::create(rewriter, loc, word, wide);
        }
        regs.push_back(word);
      }
      bFragments.push_back(regs);
    }
    for (int64_t ni = 0; ni < plan.nTiles && !elementwiseB; ni += 2) {
      bool both = ni + 1 < plan.nTiles;
      Value index = bRowsOfN ? bIndex.at(ni * 8, kk * kStep) : both ? bIndex.at(kk * kStep, ni * 8) : bSingle.at(kk * kStep, ni * 8);
      SmallVector<Value> regs = ldmatrix(bBase, index, both ? 4 : 2, !bRowsOfN);
      bFragments.push_back({regs[0], regs[1]});
      if (both)
        bFragments.push_back({regs[2], regs[3]});
    }
    for (int64_t ni = 0; ni < plan.nTiles; ++ni) {
      for (int64_t mi = 0; mi < plan.mTiles; ++mi) {
        int64_t first = (mi * plan.nTiles + ni) * 4;
        SmallVector<Value> accIn(ArrayRef<Value>(acc).slice(first, 4));
        if (f16Acc) {
          SmallVector<Value> pairs;
          for (int64_t h = 0; h < 2; ++h) {
            Value packed = LLVM::PoisonOp::create(rewriter, loc, accPair);
            for (int64_t e = 0; e < 2; ++e)
              packed = LLVM::InsertElementOp::create(rewriter, loc, packed, accIn[2 * h + e], c(e));
            pairs.push_back(packed);
          }
          accIn = pairs;
        }
        auto mma = NVVM::MmaOp::create(rewriter, loc, resultType, aFragments[mi], bFragments[ni], accIn,
                                       ArrayRef<int64_t>{16, 8, kStep}, std::nullopt, overflow, types, layouts);
        for (int64_t e = 0; e < 4; ++e) {
          if (!f16Acc) {
            acc[first + e] = LLVM::ExtractValueOp::create(rewriter, loc, mma, ArrayRef<int64_t>{e});
            continue;
          }
          Value packed = LLVM::ExtractValueOp::create(rewriter, loc, mma, ArrayRef<int64_t>{e / 2});
          acc[first + e] = LLVM::ExtractElementOp::create(rewriter, loc, packed, c(e % 2));
        }
      }
    }
  }
  rewriter.replaceOpWithMultiple(op, {acc});
}

} // namespace tk::codegen
