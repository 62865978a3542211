// Tensor-core `dot`s on Hopper's warpgroup MMA (sm_90a): operands in stages are read in
// place (the stages already are wgmma's swizzle layouts, SwizzleParams) through matrix
// descriptors, and each warpgroup issues `wgmma.mma_async m64nNk16` (FP8: k32) per 64-row
// tile and k-step. B is a stage: N-major as loaded (K rows of N, `imm-trans-b`) or K-major from
// a `trans` stage (rows of N), FP8's K-major only (its MMAs have no transpose). A is a stage (K-major, rows of K), or registers in the
// accumulator layout of an earlier wgmma dot (attention's P: four f16x2 per k-step, as
// mma.sync's A fragment), or staged here. The accumulators stay in registers in each warp's
// m16n8 layout (warpgroupAccumulatorBits).
//
//   (fence.proxy.async       by the threads that wrote a stage, before the barrier that
//                            publishes it: cp.async's at its wait, A staged by the dot
//                            here; the tensor cores' async proxy sees thread writes only
//                            after it; TMA writes through that proxy and needs none)
//   wgmma.fence              orders the register writes of the accumulators and of A before
//                            the MMAs
//   wgmma.mma_async ...      mTiles x k/16 of them, one commit group
//   wgmma.wait_group 0       before anything reads the accumulators or reuses the stage;
//                            1 in a loop that leaves them in flight (`tkg.mma_in_flight`,
//                            PipelineDotLoads), whose `tkg.dot_wait` waits for them after it;
//                            none with `tkg.mma_async` (tk-async-dots): the `tkg.dot_wait`
//                            before the results' first use waits
//
// The fence and the wait are inline PTX that take and return the registers they order, so
// that LLVM moves no write of them below the fence and no read above the wait.
#include "IndexArithmetic.h"
#include "MemoryTypes.h"
#include "MmaPlan.h"
#include "SharedAllocation.h"
#include "SharedRegion.h"
#include "StageRings.h"
#include "Swizzle.h"
#include "TensorCoreOperands.h"
#include "TensorCores.h"
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

namespace tk::codegen {
namespace {

/// The 64-bit matrix descriptor of a stage laid out by `swizzle` (PTX ISA, "Matrix Descriptor
/// Format"), for its first byte at `base`: start address >> 4 in bits 0-13, the leading and
/// stride byte offsets >> 4 in bits 16-29 and 32-45, the swizzle mode in bits 62-63. K-major:
/// the stride offset is 8 rows of a column block (the leading one is unused with a swizzle);
/// MN-major: the leading offset is one column block (the next 64 elements along M or N), the
/// stride offset 8 rows of K.
Value descriptor(OpBuilder &b, Location loc, Value base, const SwizzleParams &swizzle, bool mnMajor) {
  int64_t blockBytes = swizzle.blockBytes(), bytes = blockBytes / swizzle.blockLength;
  int64_t mode = blockBytes == 128 ? 1 : blockBytes == 64 ? 2 : 3;
  int64_t leading = mnMajor ? swizzle.blockStride() * bytes : 16, stride = 8 * blockBytes;
  uint64_t fields = uint64_t(leading >> 4) << 16 | uint64_t(stride >> 4) << 32 | uint64_t(mode) << 62;
  Type i64 = b.getI64Type();
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), base);
  Value encoded = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, address, i32Constant(b, loc, 4)),
                                        i32Constant(b, loc, 0x3FFF));
  return arith::OrIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, encoded),
                              arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(int64_t(fields))));
}

/// `descriptor` moved `bytes` further into the stage (a multiple of 16).
Value advance(OpBuilder &b, Location loc, Value descriptor, Value bytes) {
  Value units =
      arith::ExtUIOp::create(b, loc, b.getI64Type(), arith::ShRUIOp::create(b, loc, bytes, i32Constant(b, loc, 4)));
  return arith::AddIOp::create(b, loc, descriptor, units);
}

std::string registerList(int64_t first, int64_t count) {
  std::string list;
  for (int64_t i = 0; i < count; ++i)
    list += (i ? ", $" : "$") + std::to_string(first + i);
  return "{" + list + "}";
}

/// Inline PTX over `values` (f32 or i32, tied in and out) and `extra` inputs with
/// `extraConstraints`.
SmallVector<Value> tiedAsm(OpBuilder &b, Location loc, const std::string &text, ValueRange values, ValueRange extra,
                           StringRef extraConstraints) {
  std::string constraints;
  for (Value v : values)
    constraints += v.getType().isF32() ? "=f," : "=r,";
  for (size_t i = 0; i < values.size(); ++i)
    constraints += std::to_string(i) + ",";
  constraints += extraConstraints.str();
  if (!constraints.empty() && constraints.back() == ',')
    constraints.pop_back();
  SmallVector<Value> operands(values.begin(), values.end());
  operands.append(extra.begin(), extra.end());
  auto result = LLVM::LLVMStructType::getLiteral(b.getContext(), llvm::to_vector(values.getTypes()));
  Value asmResult = inlinePtx(b, loc, result, operands, text, constraints, /*sideEffects=*/true);
  SmallVector<Value> out;
  for (size_t i = 0; i < values.size(); ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, asmResult, ArrayRef<int64_t>{int64_t(i)}));
  return out;
}

/// What the MMAs of a wgmma dot read: A and B through matrix descriptors already advanced to
/// this warpgroup's rows of A and columns of B, or A as registers (four per 64-row tile and
/// k-step).
struct WarpgroupOperands {
  bool registersA, bRowsOfN, stagedByDot;
  SwizzleParams aSwizzle, bSwizzle;
  Value aDescriptor, bDescriptor;
  SmallVector<Value> aRegisters;
};

/// Reads A and B in place from their stages, or stages A into the dot's region first (A in the
/// default layout), or packs A's registers (A in an earlier dot's accumulator layout).
WarpgroupOperands stageWarpgroupOperands(DotOp op, ValueRange aValues, const MmaPlan &plan,
                                         ConversionPatternRewriter &rewriter, const ThreadTypeConverter &converter) {
  Location loc = op.getLoc();
  LocalLoadOp aStage = tensorCoreStage(op.getA()), bStage = tensorCoreStage(op.getB());
  bool registersA = !aStage && warpgroupAInRegisters(op, converter.threads());
  auto aType = cast<RankedTensorType>(op.getA().getType()), bType = cast<RankedTensorType>(op.getB().getType());
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1), n = bType.getDimSize(1);
  bool bRowsOfN = bStage.getTrans();
  int64_t bytes = elementBytes(aType.getElementType()); // (FP8's mixed formats are one byte each)
  auto aSwizzle = SwizzleParams::ofElements(m, k, bytes);
  auto bSwizzle = bRowsOfN ? SwizzleParams::ofElements(n, k, bytes) : SwizzleParams::ofElements(k, n, bytes);
  auto baseOf = [&](LocalLoadOp stage) {
    return stageBase(rewriter, loc, rewriter.getRemappedValue(stage.getBuffer()),
                     rewriter.getRemappedValue(stage.getStage()), stage.getBuffer().getType());
  };
  auto c = [&](int64_t v) { return i32Constant(rewriter, loc, v); };
  Value tid = threadId(rewriter, loc);
  Value aBase;
  if (aStage) {
    aBase = baseOf(aStage);
  } else if (!registersA) {
    // A in the default layout: into the op's region (assignShared starts a dot's on 1024 bytes).
    SharedRegion shared(rewriter, loc, op);
    shared.beginWrites(rewriter, loc);
    stageSwizzled(rewriter, loc, shared, aValues, converter.layoutOf(aType), tid, 0, aSwizzle);
    // Each thread fences its writes for the tensor cores' (async) proxy before the barrier
    // that publishes them, as a cp.async stage's wait does.
    NVVM::FenceProxyOp::create(rewriter, loc, NVVM::ProxyKind::async_shared,
                               NVVM::SharedSpaceAttr::get(rewriter.getContext(), NVVM::SharedSpace::shared_cta));
    shared.endWrites(rewriter, loc);
    aBase = shared.base();
  }
  Value bDescriptor = descriptor(rewriter, loc, baseOf(bStage), bSwizzle, /*mnMajor=*/!bRowsOfN);
  Value aDescriptor = registersA ? Value() : descriptor(rewriter, loc, aBase, aSwizzle, /*mnMajor=*/false);

  // This warpgroup's rows of A and columns of B: whole 8-row groups of A (and of B as rows of
  // N), or whole column blocks of B as K rows of N (planMma checked), so the offsets are linear.
  int64_t instructionN = plan.nTiles * 8;
  Value group = arith::ShRUIOp::create(rewriter, loc, tid, c(7));
  Value groupN = arith::AndIOp::create(rewriter, loc, group, c(plan.warpsN - 1));
  Value groupM = arith::ShRUIOp::create(rewriter, loc, group, c(log2Of(plan.warpsN)));
  int64_t aGroupBytes = m / plan.warpsM * aSwizzle.blockBytes();
  int64_t bGroupBytes = bRowsOfN ? instructionN * bSwizzle.blockBytes()
                                 : instructionN / bSwizzle.blockLength * bSwizzle.blockStride() * bytes;
  if (aDescriptor)
    aDescriptor = advance(rewriter, loc, aDescriptor, arith::MulIOp::create(rewriter, loc, groupM, c(aGroupBytes)));
  bDescriptor = advance(rewriter, loc, bDescriptor, arith::MulIOp::create(rewriter, loc, groupN, c(bGroupBytes)));

  // A from registers: per 64-row tile and k-step, the four pairs of each warp's 16 rows, as
  // 32-bit registers for the inline PTX.
  SmallVector<Value> aRegisters;
  for (int64_t mt = 0; mt < plan.mTiles && registersA; ++mt)
    for (int64_t kk = 0; kk < k / 16; ++kk)
      for (Value pair : registerFragment(rewriter, loc, aValues, k, mt, kk))
        aRegisters.push_back(LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), pair));
  return WarpgroupOperands{registersA, bRowsOfN, /*stagedByDot=*/!aStage && !registersA, aSwizzle, bSwizzle, aDescriptor, bDescriptor, aRegisters};
}

} // namespace

int64_t warpgroupMmaSharedBytes(DotOp op, const ThreadTypeConverter &converter) {
  if (!warpgroupStagesA(op, converter.threads()))
    return 0;
  auto a = cast<RankedTensorType>(op.getA().getType());
  return roundUp16(a.getNumElements() * elementBytes(a));
}

/// The PTX type of a wgmma operand.
std::string warpgroupType(Type element) {
  return element.isBF16() ? "bf16" : element.isF16() ? "f16" : isa<Float8E4M3FNType>(element) ? "e4m3" : "e5m2";
}

/// Per k-step, one `wgmma.mma_async` for each of the warpgroup's 64-row tiles, between
/// wgmma.fence and the commit; then the wait.
void lowerToWarpgroupMma(DotOp op, ValueRange aValues, ValueRange accValues, ConversionPatternRewriter &rewriter,
                         const ThreadTypeConverter &converter) {
  Location loc = op.getLoc();
  MmaPlan plan = *planMma(op, converter.threads(), /*warpgroupMma=*/true);
  auto aType = cast<RankedTensorType>(op.getA().getType());
  int64_t k = aType.getDimSize(1);
  Type element = aType.getElementType(), bElement = cast<RankedTensorType>(op.getB().getType()).getElementType();
  int64_t bytes = elementBytes(element), kStep = mmaKStep(element);
  bool float8 = isFloat8(element);
  auto c = [&](int64_t v) { return i32Constant(rewriter, loc, v); };
  WarpgroupOperands operands = stageWarpgroupOperands(op, aValues, plan, rewriter, converter);
  // (FP8's A comes from a stage only: the register and dot-staged paths handle 2-byte elements.)
  assert((!float8 || (!operands.registersA && !operands.stagedByDot)) && "an FP8 A that is no stage");
  bool registersA = operands.registersA, bRowsOfN = operands.bRowsOfN;
  const SwizzleParams &aSwizzle = operands.aSwizzle, &bSwizzle = operands.bSwizzle;
  SmallVector<Value> &aRegisters = operands.aRegisters;

  int64_t instructionN = plan.nTiles * 8;
  SmallVector<Value> acc(accValues.begin(), accValues.end());
  int64_t perTile = instructionN / 2;
  if (acc.size() == 1)
    acc.assign(plan.mTiles * perTile, acc[0]);

  std::string types = ".f32." + warpgroupType(element) + "." + warpgroupType(bElement);
  // Operands: the accumulators out ($0 ..) and tied in, then A (a descriptor, or 4 registers),
  // B's descriptor and scale-d; then the immediates: scale-a and scale-b 1, and (not FP8's,
  // which has no transposes) trans-a 0 (A is K-major, registers have none) and trans-b.
  auto operand = [&](int64_t extra) { return "$" + std::to_string(2 * perTile + extra); };
  int64_t aOperands = registersA ? 4 : 1;
  std::string aText = registersA ? registerList(2 * perTile, 4) : operand(0);
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, " + operand(aOperands + 1) + ", 0;\n" +
                     "wgmma.mma_async.sync.aligned.m64n" + std::to_string(instructionN) + "k" + std::to_string(kStep) +
                     types + " " + registerList(0, perTile) + ", " + aText + ", " + operand(aOperands) + ", p, 1, 1" +
                     (float8 ? "" : std::string(registersA ? "" : ", 0") + (bRowsOfN ? ", 0" : ", 1")) + ";\n}\n";
  std::string extraConstraints = registersA ? "r,r,r,r,l,r" : "l,l,r";
  Value scaleD = c(1);

  // (The writers fenced what the MMAs read from shared memory: a cp.async stage at its wait,
  // AsyncCopyToThreads.cpp; A staged here above; TMA writes through the async proxy itself.)
  // wgmma.fence after every write of the registers the MMAs read: it takes and returns them.
  SmallVector<Value> fenced(acc);
  fenced.append(aRegisters);
  fenced = tiedAsm(rewriter, loc, "wgmma.fence.sync.aligned;", fenced, ValueRange{}, "");
  std::copy(fenced.begin(), fenced.begin() + acc.size(), acc.begin());
  std::copy(fenced.begin() + acc.size(), fenced.end(), aRegisters.begin());
  for (int64_t kk = 0; kk < k / kStep; ++kk) {
    int64_t bBytes = (bRowsOfN ? bSwizzle.index(0, kk * kStep) : bSwizzle.index(kk * kStep, 0)) * bytes;
    Value b = advance(rewriter, loc, operands.bDescriptor, c(bBytes));
    for (int64_t mt = 0; mt < plan.mTiles; ++mt) {
      SmallVector<Value> extra;
      if (registersA)
        extra.append(aRegisters.begin() + (mt * (k / 16) + kk) * 4, aRegisters.begin() + (mt * (k / 16) + kk + 1) * 4);
      else
        extra.push_back(advance(rewriter, loc, operands.aDescriptor, c(aSwizzle.index(mt * 64, kk * kStep) * bytes)));
      extra.append({b, scaleD});
      MutableArrayRef<Value> tile = MutableArrayRef<Value>(acc).slice(mt * perTile, perTile);
      SmallVector<Value> out = tiedAsm(rewriter, loc, text, tile, extra, extraConstraints);
      llvm::copy(out, tile.begin());
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
  // tk-async-dots' dots are waited for by their `tkg.dot_wait`.
  if (op->hasAttr(TkgDialect::kMmaAsync))
    rewriter.replaceOpWithMultiple(op, {acc});
  else
    rewriter.replaceOpWithMultiple(
        op, {waitForWarpgroupMma(rewriter, loc, acc, op->hasAttr(TkgDialect::kMmaInFlight) ? 1 : 0)});
}

SmallVector<Value> waitForWarpgroupMma(OpBuilder &b, Location loc, ValueRange accumulators, int pending) {
  std::string text = "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";";
  if (accumulators.empty()) {
    inlinePtx(b, loc, TypeRange{}, ValueRange{}, text, "", /*sideEffects=*/true);
    return {};
  }
  return tiedAsm(b, loc, text, accumulators, ValueRange{}, "");
}

} // namespace tk::codegen
