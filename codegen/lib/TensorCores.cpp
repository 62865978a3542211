// Tensor-core `dot`s on mma.sync: m16n8k16 for f16/bf16 into f32 (and f16 into f16), m16n8k8
// for tf32 into f32, m16n8k32 for i8 into i32 and for e4m3/e5m2 into f32 (sm_89+), issued
// over the fragments of the operands
// (TensorCoreOperands.cpp: from a stage ring, from registers, or staged by the dot). `planMma`
// (MmaPlan.cpp) splits the result over the warps.
#include "TensorCores.h"
#include "IndexArithmetic.h"
#include "MmaPlan.h"
#include "TensorCoreOperands.h"
#include "ThreadTypeConverter.h"
#include "tk/Codegen/Target.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

namespace tk::codegen {

namespace {

/// mma.sync m16n8k32 of FP8 into f32 as inline PTX (sm_89; PTX ISA 8.4, see ptxFeatures): MLIR
/// 22's `nvvm.mma.sync` verifier takes e4m3/e5m2 at m16n8k16 only. A is four registers of 4
/// bytes, B two, C and D four f32 (D a literal struct, as the op's).
Value float8Mma(OpBuilder &b, Location loc, Type resultType, std::array<NVVM::MMATypes, 2> types, ValueRange a,
                ValueRange bFragment, ValueRange c) {
  std::string text = (kFloat8MmaSync + NVVM::stringifyMMATypes(types[0]) + "." + NVVM::stringifyMMATypes(types[1]) +
                      ".f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, "
                      "{$10, $11, $12, $13};")
                         .str();
  SmallVector<Value> operands(a.begin(), a.end());
  llvm::append_range(operands, bFragment);
  llvm::append_range(operands, c);
  return inlinePtx(b, loc, resultType, operands, text, "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f", /*sideEffects=*/false);
}

} // namespace

/// mma.sync m16n8k16 (row.col; m16n8k8 for tf32, m16n8k32 for i8 and FP8) per k-step over the
/// warp's m-tiles and n-tiles, on the fragments MmaFragments reads.
void lowerToTensorCores(DotOp op, ValueRange aValues, ValueRange bValues, ValueRange accValues,
                        ConversionPatternRewriter &rewriter, const ThreadTypeConverter &converter) {
  Location loc = op.getLoc();
  auto aType = cast<RankedTensorType>(op.getA().getType());
  int64_t k = aType.getDimSize(1);
  MmaPlan plan = *planMma(op, converter.threads(), converter.warpgroupMma());
  Type element = aType.getElementType();
  Type accElement = cast<RankedTensorType>(op.getType()).getElementType();
  bool bf16 = element.isBF16(), tf32 = element.isF32(), int8 = element.isInteger(8), f16Acc = accElement.isF16();
  bool float8 = isFloat8(element);
  int64_t kStep = mmaKStep(element);
  MmaOperands operands = stageMmaOperands(op, aValues, bValues, rewriter, converter);
  MmaFragments fragments(rewriter, loc, op, plan, operands, aValues, bValues);
  auto c = [&](int64_t v) { return i32Constant(rewriter, loc, v); };

  SmallVector<Value> acc(accValues.begin(), accValues.end());
  if (acc.size() == 1)
    acc.assign(plan.mTiles * plan.nTiles * 4, acc[0]);
  // Four accumulators per m16n8 tile: f32 or s32 registers, or two f16x2 pairs (the same
  // elements in the same order).
  auto accPair = VectorType::get({2}, accElement);
  auto resultType = LLVM::LLVMStructType::getLiteral(rewriter.getContext(), f16Acc ? SmallVector<Type>(2, accPair)
                                                                                   : SmallVector<Type>(4, accElement));
  auto operandType = [&](Type type) {
    return tf32                          ? NVVM::MMATypes::tf32
           : bf16                        ? NVVM::MMATypes::bf16
           : int8                        ? NVVM::MMATypes::s8
           : isa<Float8E4M3FNType>(type) ? NVVM::MMATypes::e4m3
           : isa<Float8E5M2Type>(type)   ? NVVM::MMATypes::e5m2
                                         : NVVM::MMATypes::f16;
  };
  std::optional<NVVM::MMAIntOverflow> overflow;
  if (int8)
    overflow = NVVM::MMAIntOverflow::wrapped; // i32 arithmetic wraps, as the interpreter's
  // (FP8's A and B may differ: e5m2 x e4m3.)
  Type bElement = cast<RankedTensorType>(op.getB().getType()).getElementType();
  auto types = std::array<NVVM::MMATypes, 2>{operandType(element), operandType(bElement)};
  auto layouts = std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col};
  for (int64_t kk = 0; kk < k / kStep; ++kk) {
    SmallVector<SmallVector<Value>> aFragments = fragments.a(kk);
    SmallVector<SmallVector<Value>> bFragments = fragments.b(kk);
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
        Value mma = float8 ? float8Mma(rewriter, loc, resultType, types, aFragments[mi], bFragments[ni], accIn)
                           : (Value)NVVM::MmaOp::create(rewriter, loc, resultType, aFragments[mi], bFragments[ni],
                                                        accIn, ArrayRef<int64_t>{16, 8, kStep}, std::nullopt, overflow,
                                                        types, layouts);
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
