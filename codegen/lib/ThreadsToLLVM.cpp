// Per-thread code to the LLVM and NVVM dialects: scf to cf, upstream arith/cf/func/math
// conversions, and math functions as the NVVM approximations Triton uses.
#include "MmaTurns.h"
#include "Patterns.h"
#include "tk/Codegen/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

namespace tk {
#define GEN_PASS_DEF_TKTHREADSTOLLVM
#include "tk/Codegen/Passes.h.inc"
} // namespace tk

using namespace mlir;

namespace {

Value callIntrinsic(OpBuilder &b, Location loc, StringRef name, Type type, ValueRange args) {
  return LLVM::CallIntrinsicOp::create(b, loc, type, b.getStringAttr(name), args).getResult(0);
}

Value f32Constant(OpBuilder &b, Location loc, double value) {
  return LLVM::ConstantOp::create(b, loc, b.getF32Type(), b.getF32FloatAttr(value));
}

/// math.exp, exp2, log, log2, rsqrt, sin, cos, tanh on f32 through NVVM's fast approximations.
template <typename MathOp> struct MathToNVVM : public ConvertOpToLLVMPattern<MathOp> {
  using ConvertOpToLLVMPattern<MathOp>::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!type.isF32())
      return rewriter.notifyMatchFailure(op, "only f32 math lowers to NVVM approximations");
    Location loc = op.getLoc();
    Value x = adaptor.getOperand();
    constexpr double log2e = 1.4426950408889634, ln2 = 0.6931471805599453;
    // `ftz = true`: ex2.approx.ftz is one MUFU.EX2; without it ptxas scales the argument and
    // the result around it so that subnormal results survive.
    const char *ex2 = op->hasAttr(tk::TkDialect::kFlushToZero) ? "llvm.nvvm.ex2.approx.ftz.f32" : "llvm.nvvm.ex2.approx.f32";
    Value result;
    if (std::is_same<MathOp, math::ExpOp>::value)
      result = callIntrinsic(rewriter, loc, ex2, type,
                             LLVM::FMulOp::create(rewriter, loc, x, f32Constant(rewriter, loc, log2e)).getResult());
    else if (std::is_same<MathOp, math::Exp2Op>::value)
      result = callIntrinsic(rewriter, loc, ex2, type, x);
    else if (std::is_same<MathOp, math::LogOp>::value)
      result = LLVM::FMulOp::create(rewriter, loc, callIntrinsic(rewriter, loc, "llvm.nvvm.lg2.approx.f", type, x),
                                    f32Constant(rewriter, loc, ln2));
    else if (std::is_same<MathOp, math::Log2Op>::value)
      result = callIntrinsic(rewriter, loc, "llvm.nvvm.lg2.approx.f", type, x);
    else if (std::is_same<MathOp, math::RsqrtOp>::value)
      result = callIntrinsic(rewriter, loc, "llvm.nvvm.rsqrt.approx.f", type, x);
    else if (std::is_same<MathOp, math::SinOp>::value)
      result = callIntrinsic(rewriter, loc, "llvm.nvvm.sin.approx.f", type, x);
    else if (std::is_same<MathOp, math::CosOp>::value)
      result = callIntrinsic(rewriter, loc, "llvm.nvvm.cos.approx.f", type, x);
    else { // tanh(x) = 1 - 2 / (exp(2x) + 1)
      Value e = callIntrinsic(rewriter, loc, "llvm.nvvm.ex2.approx.f32", type,
                              LLVM::FMulOp::create(rewriter, loc, x, f32Constant(rewriter, loc, 2 * log2e)).getResult());
      Value denom = LLVM::FAddOp::create(rewriter, loc, e, f32Constant(rewriter, loc, 1.0));
      Value frac = LLVM::FDivOp::create(rewriter, loc, f32Constant(rewriter, loc, 2.0), denom);
      result = LLVM::FSubOp::create(rewriter, loc, f32Constant(rewriter, loc, 1.0), frac);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// An f32 division that may use an approximate reciprocal (`arcp`: sigmoid's) as Triton's f32
/// division: div.full.f32 (2 ulp; one MUFU.RCP and a few FMAs, no slow path).
struct ApproximateDivision : public ConvertOpToLLVMPattern<arith::DivFOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32() || !arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::arcp))
      return rewriter.notifyMatchFailure(op, "only an f32 division with arcp is approximate");
    rewriter.replaceOp(op, callIntrinsic(rewriter, op.getLoc(), "llvm.nvvm.div.full", op.getType(),
                                         ValueRange{adaptor.getLhs(), adaptor.getRhs()}));
    return success();
  }
};

/// `%` as C's fmod: NVPTX expands frem as x - trunc(x / y) * y, which loses the sign of a
/// zero result; fmod's result always carries x's sign, so it is copied back. f16 and bf16
/// compute in f32 and round, as the interpreter does.
struct RemFAsFmod : public OpRewritePattern<arith::RemFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::RemFOp op, PatternRewriter &rewriter) const override {
    if (op->hasAttr(tk::TkDialect::kFmod))
      return failure();
    Type type = op.getType();
    Location loc = op.getLoc();
    bool narrow = type.isF16() || type.isBF16();
    Type compute = narrow ? rewriter.getF32Type() : type;
    Value a = narrow ? (Value)arith::ExtFOp::create(rewriter, loc, compute, op.getLhs()) : op.getLhs();
    Value b = narrow ? (Value)arith::ExtFOp::create(rewriter, loc, compute, op.getRhs()) : op.getRhs();
    auto rem = arith::RemFOp::create(rewriter, loc, a, b);
    rem->setAttr(tk::TkDialect::kFmod, rewriter.getUnitAttr());
    Value signed_ = math::CopySignOp::create(rewriter, loc, rem, a);
    if (narrow)
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, signed_);
    else
      rewriter.replaceOp(op, signed_);
    return success();
  }
};

/// erf by MLIR's f32 polynomial (no NVVM intrinsic exists); f16 and bf16 compute in f32.
struct NarrowErfInF32 : public OpRewritePattern<math::ErfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ErfOp op, PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!type.isF16() && !type.isBF16())
      return failure();
    Location loc = op.getLoc();
    Value wide = arith::ExtFOp::create(rewriter, loc, rewriter.getF32Type(), op.getOperand());
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, math::ErfOp::create(rewriter, loc, wide));
    return success();
  }
};

/// One line of `tk_tensor_maps_<kernel>`, the text the runtime reads (runtime/lib/TensorMaps.h).
std::string tensorMapRecipe(unsigned param, tk::gpu::TensorMapAttr map) {
  std::string line;
  llvm::raw_string_ostream os(line);
  auto values = [&](ArrayRef<int64_t> args, ArrayRef<int64_t> values) {
    for (auto [k, arg] : llvm::enumerate(args)) {
      // An argument's factor: a number (> 1), or another argument (-1 - its index).
      std::string factor = values[k] > 1 ? "*" + std::to_string(values[k])
                           : values[k] < 0 ? "*a" + std::to_string(-1 - values[k]) : "";
      os << (k ? "," : "") << (arg >= 0 ? "a" + std::to_string(arg) + factor : std::to_string(values[k]));
    }
  };
  os << "param=" << param << " base=" << map.getBase() << " shape=";
  values(map.getShape(), map.getShapeValues());
  os << " strides=";
  values(map.getStrides(), map.getStrideValues());
  os << " box=";
  llvm::interleave(map.getBox(), os, ",");
  os << " swizzle=" << map.getSwizzle() << " bytes=" << map.getElementBytes() << "\n";
  return line;
}

struct TkThreadsToLLVM : public tk::impl::TkThreadsToLLVMBase<TkThreadsToLLVM> {
  using TkThreadsToLLVMBase::TkThreadsToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    // Tiles left mean the per-thread lowering has not run (tk-opt on `tkc --emit=tk` output): one
    // error at the first, instead of the conversion's failure to legalize the whole function.
    WalkResult tiles = module.walk([](Operation *op) {
      if (llvm::any_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>)) {
        op->emitError() << "'" << op->getName() << "' yields a tile: tk-threads-to-llvm lowers per-thread code; "
                           "run tk-assign-layouts and tk-to-threads first";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (tiles.wasInterrupted())
      return signalPassFailure();
    tk::codegen::lowerMmaTurns(module);

    // Kernels and their thread counts, before func.func goes away.
    llvm::StringMap<int64_t> kernels, programsPerCta, clusterCtas, producerWarps;
    // (Every kernel of the module is launched with its largest shared memory.)
    auto sharedAttr = module->getAttrOfType<IntegerAttr>(tk::gpu::TkgDialect::kSharedBytes);
    int64_t sharedBytes = sharedAttr ? sharedAttr.getInt() : 0;
    llvm::StringMap<std::string> tensorMaps;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn->hasAttr(tk::TkDialect::kKernel)) {
        kernels[fn.getSymName()] = tk::gpu::launchThreadsOf(fn);
        programsPerCta[fn.getSymName()] = tk::gpu::programsPerCtaOf(fn);
        clusterCtas[fn.getSymName()] = tk::gpu::clusterCtasOf(fn);
        producerWarps[fn.getSymName()] = tk::gpu::producerWarpsOf(fn);
      }
      for (NamedAttribute attr : llvm::to_vector(fn->getDiscardableAttrs()))
        if (attr.getName().strref().starts_with("tk.") || attr.getName() == tk::gpu::TkgDialect::kProducerWarps ||
            attr.getName() == tk::gpu::TkgDialect::kProgramsPerCta || attr.getName() == tk::gpu::TkgDialect::kClusterCtas)
          fn->removeAttr(attr.getName());
      // Rebuilt at once: removeArgAttr per argument is quadratic in their number.
      SmallVector<DictionaryAttr> argAttrs;
      for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
        NamedAttrList kept;
        if (DictionaryAttr attrs = fn.getArgAttrDict(i))
          for (NamedAttribute attr : attrs.getValue())
            if (!attr.getName().strref().starts_with("tk."))
              kept.push_back(attr);
        // A tensor map is a 128-byte __grid_constant__ parameter, read where it is; its recipe
        // goes to the launcher.
        if (auto map = fn.getArgAttrOfType<tk::gpu::TensorMapAttr>(i, tk::gpu::TkgDialect::kTensorMap)) {
          tensorMaps[fn.getSymName()] += tensorMapRecipe(i, map);
          kept.erase(tk::gpu::TkgDialect::kTensorMap);
          kept.set(LLVM::LLVMDialect::getByValAttrName(), TypeAttr::get(LLVM::LLVMArrayType::get(IntegerType::get(context, 8), 128)));
          kept.set(LLVM::LLVMDialect::getAlignAttrName(), IntegerAttr::get(IntegerType::get(context, 64), 64));
          kept.set(NVVM::NVVMDialect::getGridConstantAttrName(), UnitAttr::get(context));
        }
        argAttrs.push_back(kept.getDictionary(context));
      }
      if (fn.getNumArguments())
        fn.setAllArgAttrs(argAttrs);
    }

    {
      RewritePatternSet narrow(context);
      narrow.add<RemFAsFmod, NarrowErfInF32>(context);
      populatePolynomialApproximateErfPattern(narrow);
      tk::codegen::populateFloat8CastPatterns(narrow, sm);
      if (failed(applyPatternsGreedily(module, std::move(narrow))))
        return signalPassFailure();
    }
    {
      RewritePatternSet patterns(context);
      populateSCFToControlFlowConversionPatterns(patterns);
      ConversionTarget target(*context);
      target.addIllegalDialect<scf::SCFDialect>();
      target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
      // One-shot (no rollback): with rollback the driver records each op that lowering an
      // scf op moves into a new block, and every scf.if moves all the ops after it: a kernel
      // of 5000 ifs in a row took 2.7 GB here (SCF's patterns never fail after rewriting).
      ConversionConfig oneShot;
      oneShot.allowPatternRollback = false;
      if (failed(applyPartialConversion(module, target, std::move(patterns), oneShot)))
        return signalPassFailure();
    }

    LLVMTypeConverter converter(context);
    RewritePatternSet patterns(context);
    patterns.add<MathToNVVM<math::ExpOp>, MathToNVVM<math::Exp2Op>, MathToNVVM<math::LogOp>, MathToNVVM<math::Log2Op>,
                 MathToNVVM<math::RsqrtOp>, MathToNVVM<math::SinOp>, MathToNVVM<math::CosOp>, MathToNVVM<math::TanhOp>,
                 ApproximateDivision>(converter, /*benefit=*/2);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(*context);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addLegalOp<ModuleOp>();
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
      auto it = kernels.find(fn.getSymName());
      if (it == kernels.end())
        continue;
      fn->setAttr("nvvm.kernel", UnitAttr::get(context));
      if (auto recipes = tensorMaps.find(fn.getSymName()); recipes != tensorMaps.end()) {
        OpBuilder b(fn);
        auto type = LLVM::LLVMArrayType::get(IntegerType::get(context, 8), recipes->second.size());
        LLVM::GlobalOp::create(b, fn.getLoc(), type, /*isConstant=*/true, LLVM::Linkage::External,
                               ("tk_tensor_maps_" + fn.getSymName()).str(), b.getStringAttr(recipes->second),
                               /*alignment=*/0, /*addrSpace=*/1);
      }
      // A kernel that waits for its grid dependencies says so to the launcher, which then lets
      // it start before the kernel ahead of it ends (programmatic dependent launch).
      bool waits = fn.walk([](LLVM::InlineAsmOp asmOp) {
                       return asmOp.getAsmString() == tk::codegen::kGridDependencyWait ? WalkResult::interrupt()
                                                                                       : WalkResult::advance();
                     }).wasInterrupted();
      if (waits) {
        // Every program waits before it ends, even one that returns before the wait it was
        // written with: a dependent that ended without waiting would let the kernel after it
        // start before the one before it ended. (A second wait returns at once.)
        fn.walk([&](LLVM::ReturnOp ret) {
          OpBuilder at(ret);
          LLVM::InlineAsmOp::create(at, ret.getLoc(), TypeRange{}, ValueRange{}, tk::codegen::kGridDependencyWait,
                                    "~{memory}", /*has_side_effects=*/true, /*is_align_stack=*/false,
                                    LLVM::TailCallKind::None,
                                    LLVM::AsmDialectAttr::get(context, LLVM::AsmDialect::AD_ATT), ArrayAttr());
        });
        OpBuilder b(fn);
        LLVM::GlobalOp::create(b, fn.getLoc(), IntegerType::get(context, 8), /*isConstant=*/true, LLVM::Linkage::External,
                               ("tk_grid_dependent_" + fn.getSymName()).str(), b.getI8IntegerAttr(1),
                               /*alignment=*/0, /*addrSpace=*/1);
      }
      // Two programs a CTA: the launcher starts a CTA for every two of the grid's programs.
      if (int64_t programs = programsPerCta.lookup(fn.getSymName()); programs > 1) {
        OpBuilder b(fn);
        LLVM::GlobalOp::create(b, fn.getLoc(), IntegerType::get(context, 8), /*isConstant=*/true, LLVM::Linkage::External,
                               ("tk_programs_per_cta_" + fn.getSymName()).str(), b.getI8IntegerAttr(int8_t(programs)),
                               /*alignment=*/0, /*addrSpace=*/1);
      }
      // Clusters: `.reqnctapercluster` (a plain launch then makes clusters; its grid must be a
      // multiple of them, which the launcher rounds up to: tk_cluster_ctas_<kernel>).
      if (int64_t ctas = clusterCtas.lookup(fn.getSymName()); ctas > 1) {
        fn->setAttr("nvvm.cluster_dim", DenseI32ArrayAttr::get(context, {int32_t(ctas), 1, 1}));
        OpBuilder b(fn);
        LLVM::GlobalOp::create(b, fn.getLoc(), IntegerType::get(context, 8), /*isConstant=*/true, LLVM::Linkage::External,
                               ("tk_cluster_ctas_" + fn.getSymName()).str(), b.getI8IntegerAttr(int8_t(ctas)),
                               /*alignment=*/0, /*addrSpace=*/1);
      }
      fn->setAttr("nvvm.maxntid", DenseI32ArrayAttr::get(context, {int32_t(it->second), 1, 1}));
      // A producer warpgroup gives registers to the consumers (setmaxnreg), which ptxas only
      // does where it knows the kernel's registers at entry: from `.minnctapersm 1` with
      // `.maxntid` (65536 / threads), as CUTLASS's warp-specialized kernels say. Without it
      // ptxas ignores every setmaxnreg (C7508), the consumers keeping the entry's share. Said
      // only where the shared memory already keeps a multiprocessor to one CTA (228 KiB, 1 KiB
      // of each CTA's reserved): elsewhere registers at entry of 65536 / threads would.
      constexpr int64_t kSharedPerMultiprocessor = 228 * 1024, kReservedPerCta = 1024;
      if (producerWarps.lookup(fn.getSymName()) > 0 && 2 * (sharedBytes + kReservedPerCta) > kSharedPerMultiprocessor)
        fn->setAttr("nvvm.minctasm", IntegerAttr::get(IntegerType::get(context, 32), 1));
      // The thread id's range lets LLVM see that a thread's part of an element index and the
      // slot's constant part share no bits, so that per-slot addresses fold into offsets.
      auto range = LLVM::ConstantRangeAttr::get(context, 32, 0, it->second);
      fn.walk([&](NVVM::ThreadIdXOp tid) { tid.setRangeAttr(range); });
    }
  }
};

} // namespace

void tk::buildGpuLoweringPipeline(OpPassManager &pm, bool debug, int sm, bool archSpecific) {
  bool wgmma = sm == 90 && archSpecific;
  pm.addPass(createTkPipelineDotLoads(TkPipelineDotLoadsOptions{wgmma}));
  pm.addPass(createTkAssignLayouts(TkAssignLayoutsOptions{wgmma, sm}));
  pm.addPass(createTkTmaStores(TkTmaStoresOptions{wgmma}));
  if (wgmma) {
    pm.addPass(createTkMmaPingPong());
    pm.addPass(createTkAsyncDots());
  }
  pm.addPass(createTkAllocateShared(TkAllocateSharedOptions{sm, wgmma}));
  if (wgmma)
    pm.addPass(createTkSpecializePrograms());
  pm.addPass(createTkToThreads(TkToThreadsOptions{debug, sm, wgmma}));
  // Bottom-up, dead per-thread code (address slots no access uses) goes before anything is
  // folded into it: 10x less time than top-down on a pipelined matmul, the same IR after CSE.
  pm.addPass(createCanonicalizerPass(GreedyRewriteConfig().setUseTopDownTraversal(false)));
  pm.addPass(createCSEPass());
  pm.addPass(createTkThreadsToLLVM(TkThreadsToLLVMOptions{sm}));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}
