// The tk-to-threads pass: per kernel, a 1:N conversion of tiles to the scalars each thread
// owns, with patterns by op family (this file: program ids, ranges, splats, constants, hints;
// MemoryToThreads.cpp, ReduceToThreads.cpp, ElementwiseToThreads.cpp for the rest).
#include "AxisAnalysis.h"
#include "IndexArithmetic.h"
#include "Patterns.h"
#include "ThreadTypeConverter.h"
#include "tk/Codegen/Passes.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tk {
#define GEN_PASS_DEF_TKTOTHREADS
#include "tk/Codegen/Passes.h.inc"
} // namespace tk

using namespace mlir;

namespace tk::codegen {

namespace {

template <typename Op> struct ThreadPattern : public OpConversionPattern<Op> {
  ThreadPattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern<Op>(converter, context), converter(converter) {}
  ThreadTypeConverter &converter;
};

template <typename Op> struct GridIndexPattern : public ThreadPattern<Op> {
  using ThreadPattern<Op>::ThreadPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor, ConversionPatternRewriter &rewriter) const override {
    bool isId = std::is_same<Op, ProgramIdOp>::value;
    // (In the producer of two programs a CTA, tkg.program_in_cta names the program.)
    auto named = op->template getAttrOfType<IntegerAttr>(TkgDialect::kProgramInCta);
    rewriter.replaceOp(op, gridIndex(rewriter, op.getLoc(), int(op.getAxis()), !isId,
                                     named ? std::optional<int64_t>(named.getInt()) : std::nullopt));
    return success();
  }
};

struct MakeRangePattern : public ThreadPattern<MakeRangeOp> {
  using ThreadPattern::ThreadPattern;
  LogicalResult matchAndRewrite(MakeRangeOp op, OneToNOpAdaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    BlockedLayout l = converter.layoutOf(op.getType());
    Value tid = threadId(rewriter, loc);
    SmallVector<Value> values;
    for (int64_t slot = 0; slot < l.perThread(); ++slot)
      values.push_back(arith::AddIOp::create(rewriter, loc, elementIndex(rewriter, loc, l, slot, tid),
                                             i32Constant(rewriter, loc, op.getStart())));
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

struct SplatPattern : public ThreadPattern<SplatOp> {
  using ThreadPattern::ThreadPattern;
  LogicalResult matchAndRewrite(SplatOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(converter.convertType(op.getType(), types)))
      return failure();
    SmallVector<Value> values(types.size(), adaptor.getSrc()[0]);
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

struct ConstantPattern : public ThreadPattern<arith::ConstantOp> {
  using ThreadPattern::ThreadPattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op, OneToNOpAdaptor, ConversionPatternRewriter &rewriter) const override {
    auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!dense || !isa<RankedTensorType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "only splat tile constants");
    SmallVector<Type> types;
    if (failed(converter.convertType(op.getType(), types)))
      return failure();
    Value scalar = arith::ConstantOp::create(rewriter, op.getLoc(), cast<TypedAttr>(dense.getSplatValue<Attribute>()));
    rewriter.replaceOpWithMultiple(op, {SmallVector<Value>(types.size(), scalar)});
    return success();
  }
};

struct HintPattern : public ThreadPattern<HintOp> {
  using ThreadPattern::ThreadPattern;
  LogicalResult matchAndRewrite(HintOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithMultiple(op, {adaptor.getSrc()});
    return success();
  }
};

struct BitcastPattern : public ThreadPattern<BitcastOp> {
  using ThreadPattern::ThreadPattern;
  LogicalResult matchAndRewrite(BitcastOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(converter.convertType(op.getType(), types)))
      return failure();
    SmallVector<Value> values;
    for (size_t i = 0; i < types.size(); ++i) {
      Value v = slotOf(adaptor.getSrc(), i);
      values.push_back(v.getType() == types[i] ? v : (Value)LLVM::BitcastOp::create(rewriter, op.getLoc(), types[i], v));
    }
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

/// The elements of one tile a thread may hold: four times the 255 registers a thread has.
constexpr int64_t kMaxElementsPerThread = 1024;

struct TkToThreads : public tk::impl::TkToThreadsBase<TkToThreads> {
  using TkToThreadsBase::TkToThreadsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The one dynamic shared buffer (its size beyond the 48 KiB of a static array is passed by
    // the launcher, from the module's tkg.shared_bytes).
    if (module->hasAttr(TkgDialect::kSharedBytes) && !module.lookupSymbol("tk_smem")) {
      OpBuilder b(module.getBodyRegion());
      auto type = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
      LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/false, LLVM::Linkage::External, "tk_smem",
                             Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
    }
    // The pass only reads layouts: a tile without one is a pipeline error, said as such.
    // Its threads are the kernel's: a layout over another number would index the wrong ones.
    // A tile of more than kMaxElementsPerThread elements a thread is refused: every op on it
    // unrolls that many times in each thread, and LLVM took minutes over such code (a 256x256
    // f32 accumulator on one warp: 2048 a thread, 130 s), where the registers (255 a thread)
    // spill wholesale anyway. Said at an op of the source (the canonicalizer's hoisted
    // constants have lost their place), else at the kernel.
    Operation *unlocatedTooLarge = nullptr;
    Type tooLarge;
    auto refuse = [](Operation *at, Type type, int64_t perThread, int64_t threads) {
      at->emitError() << "tile " << type << " puts " << perThread << " elements in each of " << threads
                      << " threads; past " << kMaxElementsPerThread
                      << " a thread, a tile is refused (its code unrolls per element, and a thread has 255 "
                         "registers): give the kernel more warps or smaller tiles";
    };
    WalkResult unassigned = module.walk([&](Operation *op) {
      for (Type type : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
        if (!isa<RankedTensorType>(type))
          continue;
        std::optional<LayoutBits> bits = layoutBitsOf(type);
        if (!bits) {
          op->emitError() << "tile " << type << " has no layout; run tk-assign-layouts first";
          return WalkResult::interrupt();
        }
        if (int64_t(1) << bits->thread.size() != threadsOf(op)) {
          op->emitError() << "tile " << type << " is laid out over " << (int64_t(1) << bits->thread.size())
                          << " threads, but the kernel has " << threadsOf(op);
          return WalkResult::interrupt();
        }
        int64_t perThread = int64_t(1) << bits->slot.size();
        if (perThread <= kMaxElementsPerThread)
          continue;
        if (!isa<UnknownLoc>(op->getLoc())) {
          refuse(op, type, perThread, threadsOf(op));
          return WalkResult::interrupt();
        }
        if (!unlocatedTooLarge) {
          unlocatedTooLarge = op;
          tooLarge = type;
        }
      }
      return WalkResult::advance();
    });
    if (!unassigned.wasInterrupted() && unlocatedTooLarge) {
      Operation *kernel = unlocatedTooLarge->getParentOfType<func::FuncOp>();
      refuse(kernel ? kernel : unlocatedTooLarge, tooLarge,
             int64_t(1) << layoutBitsOf(tooLarge)->slot.size(), threadsOf(unlocatedTooLarge));
      return signalPassFailure();
    }
    if (unassigned.wasInterrupted())
      return signalPassFailure();
    for (func::FuncOp kernel : llvm::to_vector(module.getOps<func::FuncOp>())) {
      ThreadTypeConverter converter(&getContext(), threadsOf(kernel));
      converter.setWarpgroupMma(wgmma);
      converter.setMatrixStores(sm >= 90);
      LogicalResult converted = convertKernel(kernel, converter);
      if (Type misplaced = converter.misplacedLayout()) {
        kernel.emitError() << "a tile " << misplaced
                           << " reached an op that takes tiles only in the blocked layout; "
                              "tk-assign-layouts puts a tkg.convert_layout there";
        return signalPassFailure();
      }
      if (failed(converted))
        return signalPassFailure();
    }
  }

  LogicalResult convertKernel(func::FuncOp kernel, ThreadTypeConverter &converter) {
    MLIRContext *context = &getContext();
    AxisAnalysis axis(kernel);
    converter.setStagesWrittenByThreads(kernel.walk([](AsyncCopyOp) { return WalkResult::interrupt(); }).wasInterrupted());
    RewritePatternSet patterns(context);
    patterns.add<GridIndexPattern<ProgramIdOp>, GridIndexPattern<NumProgramsOp>, MakeRangePattern, SplatPattern,
                 ConstantPattern, HintPattern, BitcastPattern>(converter, context);
    populateElementwiseToThreads(converter, axis, patterns);
    populateMemoryToThreads(converter, axis, patterns);
    populateAsyncCopyToThreads(converter, axis, patterns);
    populateReduceToThreads(converter, patterns);
    populateRandomToThreads(converter, patterns);
    populateScanToThreads(converter, patterns);
    populateShapeToThreads(converter, patterns);
    populateDotToThreads(converter, patterns);
    populateAtomicToThreads(converter, kernel, patterns);
    populateTmaToThreads(converter, patterns);
    populateDebugToThreads(converter, debug, patterns);
    populateLaunchOverlapToThreads(converter, sm, patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*context);
    target.addIllegalDialect<TkDialect, TkgDialect>();
    // The ping-pong's turns stay until tk-threads-to-llvm knows the program's barriers.
    target.addLegalOp<MmaTurnTakeOp, MmaTurnPassOp>();
    target.markUnknownOpDynamicallyLegal([&](Operation *op) { return converter.isLegal(op); });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp fn) { return converter.isSignatureLegal(fn.getFunctionType()); });
    target.addLegalOp<ModuleOp>();
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns, target);
    return applyFullConversion(kernel, target, std::move(patterns));
  }
};

} // namespace
} // namespace tk::codegen
