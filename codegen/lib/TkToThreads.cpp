// The tk-to-threads pass: per kernel, a 1:N conversion of tiles to the scalars each thread
// owns, with patterns by op family (this file: program ids, ranges, splats, constants, hints;
// MemoryToThreads.cpp, ReduceToThreads.cpp, ElementwiseToThreads.cpp for the rest).
#include "ThreadLowering.h"
#include "tk/Codegen/Passes.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
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

ThreadTypeConverter::ThreadTypeConverter(MLIRContext *context, int64_t threads) : threads_(threads) {
  addConversion([](Type type) { return type; });
  addConversion([context](PtrType) -> Type { return LLVM::LLVMPointerType::get(context, 1); });
  addConversion([context](SharedBufferType) -> Type { return LLVM::LLVMPointerType::get(context, 3); });
  addConversion([this](RankedTensorType type, SmallVectorImpl<Type> &results) -> std::optional<LogicalResult> {
    Type element = convertType(type.getElementType());
    if (!element)
      return failure();
    // Only a tile whose type names its layout (tk-assign-layouts) says how many scalars each
    // thread keeps.
    if (!layoutBitsOf(type))
      return failure();
    results.append(scalarsPerThread(type), element);
    return success();
  });
}

Value i32Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(value)));
}

Value threadId(OpBuilder &b, Location loc) { return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type()); }

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

SmallVector<Value> combineRegion(OpBuilder &b, Region &region, ValueRange acc, ValueRange next) {
  Block &block = region.front();
  IRMapping mapping;
  for (size_t k = 0; k < acc.size(); ++k) {
    mapping.map(block.getArgument(k), acc[k]);
    mapping.map(block.getArgument(acc.size() + k), next[k]);
  }
  for (Operation &op : block.without_terminator())
    b.clone(op, mapping);
  SmallVector<Value> results;
  for (Value v : block.getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(v));
  return results;
}

Value shuffle(OpBuilder &b, Location loc, Value value, int64_t offset, NVVM::ShflKind kind, int64_t clamp) {
  Type type = value.getType(), i32 = b.getI32Type();
  unsigned bits = type.getIntOrFloatBitWidth();
  auto shuffle32 = [&](Value v) -> Value {
    return NVVM::ShflOp::create(b, loc, i32, i32Constant(b, loc, -1), v, i32Constant(b, loc, offset),
                                i32Constant(b, loc, clamp), kind, UnitAttr());
  };
  if (bits == 64) {
    auto pair = VectorType::get({2}, i32);
    Value halves = LLVM::BitcastOp::create(b, loc, pair, value);
    Value lo = shuffle32(LLVM::ExtractElementOp::create(b, loc, halves, i32Constant(b, loc, 0)));
    Value hi = shuffle32(LLVM::ExtractElementOp::create(b, loc, halves, i32Constant(b, loc, 1)));
    Value joined = LLVM::InsertElementOp::create(b, loc, LLVM::PoisonOp::create(b, loc, pair), lo, i32Constant(b, loc, 0));
    joined = LLVM::InsertElementOp::create(b, loc, joined, hi, i32Constant(b, loc, 1));
    return LLVM::BitcastOp::create(b, loc, type, joined);
  }
  Type intType = b.getIntegerType(bits);
  Value asInt = type == intType ? value : (Value)LLVM::BitcastOp::create(b, loc, intType, value);
  Value wide = bits == 32 ? asInt : (Value)LLVM::ZExtOp::create(b, loc, i32, asInt);
  Value shuffled = shuffle32(wide);
  Value narrow = bits == 32 ? shuffled : (Value)LLVM::TruncOp::create(b, loc, intType, shuffled);
  return type == intType ? narrow : (Value)LLVM::BitcastOp::create(b, loc, type, narrow);
}

Type memoryType(Type element) {
  if (element.isInteger(1) || isa<Float8E4M3FNType, Float8E5M2Type>(element))
    return IntegerType::get(element.getContext(), 8);
  return element;
}

Value toMemory(OpBuilder &b, Location loc, Value v) {
  Type stored = memoryType(v.getType());
  if (stored == v.getType())
    return v;
  if (isa<FloatType>(v.getType()))
    return arith::BitcastOp::create(b, loc, stored, v);
  return arith::ExtUIOp::create(b, loc, stored, v);
}

Value fromMemory(OpBuilder &b, Location loc, Value stored, Type type) {
  if (stored.getType() == type)
    return stored;
  if (isa<FloatType>(type))
    return arith::BitcastOp::create(b, loc, type, stored);
  return arith::TruncIOp::create(b, loc, type, stored);
}

namespace {

template <typename Op> struct ThreadPattern : public OpConversionPattern<Op> {
  ThreadPattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern<Op>(converter, context), converter(converter) {}
  ThreadTypeConverter &converter;
};

template <typename Op> struct GridIndexPattern : public ThreadPattern<Op> {
  using ThreadPattern<Op>::ThreadPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value value;
    bool isId = std::is_same<Op, ProgramIdOp>::value;
    switch (op.getAxis()) {
    case 0: value = isId ? (Value)NVVM::BlockIdXOp::create(rewriter, loc, i32) : (Value)NVVM::GridDimXOp::create(rewriter, loc, i32); break;
    case 1: value = isId ? (Value)NVVM::BlockIdYOp::create(rewriter, loc, i32) : (Value)NVVM::GridDimYOp::create(rewriter, loc, i32); break;
    default: value = isId ? (Value)NVVM::BlockIdZOp::create(rewriter, loc, i32) : (Value)NVVM::GridDimZOp::create(rewriter, loc, i32); break;
    }
    rewriter.replaceOp(op, value);
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
    WalkResult unassigned = module.walk([](Operation *op) {
      for (Type type : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
        if (isa<RankedTensorType>(type) && !layoutBitsOf(type)) {
          op->emitError() << "tile " << type << " has no layout; run tk-assign-layouts first";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (unassigned.wasInterrupted())
      return signalPassFailure();
    for (func::FuncOp kernel : llvm::to_vector(module.getOps<func::FuncOp>())) {
      ThreadTypeConverter converter(&getContext(), threadsOf(kernel));
      converter.setWarpgroupMma(wgmma);
      if (failed(convertKernel(kernel, converter)))
        return signalPassFailure();
    }
  }

  LogicalResult convertKernel(func::FuncOp kernel, ThreadTypeConverter &converter) {
    MLIRContext *context = &getContext();
    AxisAnalysis axis(kernel);
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
    populateAtomicToThreads(converter, patterns);
    populateDebugToThreads(converter, debug, patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*context);
    target.addIllegalDialect<TkDialect, TkgDialect>();
    target.markUnknownOpDynamicallyLegal([&](Operation *op) { return converter.isLegal(op); });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp fn) { return converter.isSignatureLegal(fn.getFunctionType()); });
    target.addLegalOp<ModuleOp>();
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns, target);
    return applyFullConversion(kernel, target, std::move(patterns));
  }
};

} // namespace
} // namespace tk::codegen
