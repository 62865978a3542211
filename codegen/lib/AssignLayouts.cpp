// The tk-assign-layouts pass: every tile gets its layout as its type's encoding. Results of
// dots that tensor cores compute take the accumulator layout (`#tkg.linear`), and so does what
// follows from them without moving data (the op rules of LayoutRules.cpp); every other tile
// takes the default blocked layout (`#tkg.blocked`). Where a tile meets an op that does not
// take its layout, a `tkg.convert_layout` moves it.
#include "AffineAddresses.h"
#include "LayoutRules.h"
#include "MemoryTypes.h"
#include "MmaPlan.h"
#include "RectangularAccess.h"
#include "tk/Codegen/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tk-assign-layouts"

namespace tk {
#define GEN_PASS_DEF_TKASSIGNLAYOUTS
#include "tk/Codegen/Passes.h.inc"
} // namespace tk

using namespace mlir;

namespace tk::codegen {
namespace {

/// 16 bytes of the narrowest element the kernel moves through memory: the run of contiguous
/// elements a thread holds in the blocked layout, so that it is one vector access.
int64_t vectorWidthOf(func::FuncOp kernel) {
  int64_t narrowest = 16;
  kernel.walk([&](Operation *op) {
    if (!isa<LoadOp, StoreOp, AsyncCopyOp>(op))
      return;
    Type ptr = op->getOperand(0).getType();
    if (!isa<RankedTensorType>(ptr))
      return;
    Type pointee = cast<PtrType>(tk::elementTypeOf(ptr)).getPointee();
    narrowest = std::min<int64_t>(narrowest, elementBytes(pointee));
  });
  return 16 / narrowest;
}

/// The kernel arguments it writes through (stores, atomics), and whether it writes through a
/// pointer of unknown origin.
struct WrittenMemory {
  explicit WrittenMemory(func::FuncOp kernel) {
    kernel.walk([&](Operation *op) {
      GlobalAccess access = globalAccessOf(op);
      if (!access.ptr || !access.writes)
        return;
      if (BlockArgument base = baseArgument(access.ptr))
        bases.insert(base);
      else
        unknown = true;
    });
  }
  bool mayWrite(BlockArgument base) const { return unknown || !base || bases.contains(base); }

  llvm::DenseSet<Value> bases;
  bool unknown = false;
};

/// Whether `loads` read the same when each thread reads them again at `at`: the kernel writes
/// nothing through their arguments (another thread's store, before or after, would race with
/// the reread; distinct arguments are taken not to alias, as for TMA stores), and each lies
/// shortly before `at` in its block, nothing between that may write memory or that holds
/// regions (a loop, a branch, a reduction: the reread would come after them, where its latency
/// shows, as for scales loaded before a k-loop on purpose).
bool rereadable(ArrayRef<Operation *> loads, Operation *at, const WrittenMemory &written) {
  return llvm::all_of(loads, [&](Operation *load) {
    if (written.mayWrite(baseArgument(cast<LoadOp>(load).getPtr())) || load->getBlock() != at->getBlock() ||
        !load->isBeforeInBlock(at))
      return false;
    for (Operation *op = load->getNextNode(); op != at; op = op->getNextNode())
      if (op->getNumRegions() || tk::mayWriteMemory(op))
        return false;
    return true;
  });
}

bool hasTiles(Operation *op) {
  auto isTileType = [](Type type) { return isa<RankedTensorType>(type); };
  return llvm::any_of(op->getOperandTypes(), isTileType) || llvm::any_of(op->getResultTypes(), isTileType);
}

/// A program of 1 to 32 warps (a power of two), and tiles that can take a layout.
LogicalResult checkShapes(func::FuncOp kernel) {
  int64_t warps = numWarpsOf(kernel);
  if (warps < 1 || warps > 32 || (warps & (warps - 1)))
    return kernel.emitError() << "num_warps must be a power of two from 1 to 32, not " << warps;
  WalkResult walk = kernel.walk([](Operation *op) {
    for (Type type : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (auto tile = dyn_cast<RankedTensorType>(type))
        if (failed(verifyLayoutShape(tile.getShape(), [&] { return op->emitError() << "tile " << type << ": "; })))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// What the GPU backend cannot compile yet gets a located error that names the way out.
LogicalResult checkSupported(func::FuncOp kernel, bool wgmma, int sm) {
  WalkResult unsupported = kernel.walk([&](Operation *op) {
    // FP8 dots run on tensor cores that take FP8: wgmma (sm_90a) where both operands are K-major
    // stages, mma.sync m16n8k32 (sm_89 and later) otherwise; there is no FMA fallback.
    if (auto dot = dyn_cast<DotOp>(op); dot && isFloat8(cast<RankedTensorType>(dot.getA().getType()).getElementType())) {
      std::optional<MmaPlan> plan = planMma(dot, threadsOf(kernel), wgmma);
      if (plan && sm >= 89)
        return WalkResult::advance();
      if (sm < 89)
        op->emitError() << "an FP8 'tk.dot' needs tensor cores that take FP8: --arch=sm_89 or later (sm_90a: "
                           "Hopper's wgmma), not sm_" << sm << "; the interpreter runs it (tkc run --backend=interp)";
      else
        op->emitError() << "an FP8 'tk.dot' runs on tensor cores only: an f32 accumulator, M a multiple of 16 and N "
                           "of 16 (of 8 for B a loaded [N, K] tile through trans()), rows of 16 and columns of 8 for "
                           "every warp, K a multiple of 32; the interpreter runs it (tkc run --backend=interp)";
      return WalkResult::interrupt();
    }
    // f8 values move through memory (stages too) and shapes, and convert to and from wider floats
    // and integers (Float8Casts.cpp).
    // Constants are f8 bits (a load's `other`; Float8Casts.cpp), whose users are checked here.
    bool f8 = !isa<arith::ConstantOp>(op) &&
        llvm::any_of(llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()),
                     [](Type t) {
                       Type e = tk::elementTypeOf(t);
                       if (auto ptr = dyn_cast<PtrType>(e))
                         e = ptr.getPointee();
                       return isFloat8(e);
                     }) &&
        !isa<LoadOp, StoreOp, PrefetchL2Op, AddPtrOp, SplatOp, BroadcastOp, ExpandDimsOp, ReshapeOp, TransOp, func::FuncOp,
             AsyncCopyOp, LocalLoadOp, scf::ForOp, scf::YieldOp, scf::IfOp>(op) &&
        !isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp, arith::FPToUIOp>(op);
    bool f64Approximation = isa<math::ErfOp, math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op, math::RsqrtOp,
                                math::SinOp, math::CosOp, math::TanhOp>(op) &&
                            tk::elementTypeOf(op->getResult(0).getType()).isF64();
    if (f8 || f64Approximation) {
      op->emitError() << "'" << op->getName()
                      << "' is not supported by the GPU backend yet; the interpreter runs it (tkc run --backend=interp)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(unsupported.wasInterrupted());
}

class Assignment {
public:
  Assignment(func::FuncOp kernel, bool warpgroupMma)
      : kernel_(kernel), state_(threadsOf(kernel), warpgroupMma, vectorWidthOf(kernel)) {}

  /// Every op with tiles has a rule (the `Elementwise` trait's or its own).
  LogicalResult checkRules() {
    WalkResult walk = kernel_.walk([&](Operation *op) {
      if (!hasTiles(op) || op->hasTrait<OpTrait::Elementwise>() || isa<LayoutRuleOpInterface>(op))
        return WalkResult::advance();
      op->emitError() << "'" << op->getName() << "' has no layout rule (LayoutRules.cpp)";
      return WalkResult::interrupt();
    });
    return failure(walk.wasInterrupted());
  }

  void allowDefaultSlices() { state_.allowDefaultSlices(); }

  /// Applies the rules until nothing changes.
  void propagate() {
    for (bool changed = true; changed;) {
      changed = false;
      kernel_.walk([&](Operation *op) {
        if (auto rule = dyn_cast<LayoutRuleOpInterface>(op))
          changed |= rule.inferResultLayouts(state_);
        else if (op->hasTrait<OpTrait::Elementwise>())
          changed |= inferElementwiseLayout(op, state_);
      });
    }
  }

  /// An operand in a non-default layout that its user does not take gets a convert_layout to
  /// the default first; a dot's accumulator, a loop value's start and yield and an elementwise
  /// op's operand (a widened narrow tile) that arrive in another layout than their partner's
  /// get one to it.
  void insertConversions() {
    SmallVector<OpOperand *> toDefault;
    SmallVector<std::pair<OpOperand *, LayoutBits>> toPartner;
    kernel_.walk([&](Operation *op) {
      for (OpOperand &operand : op->getOpOperands())
        if (state_.layoutOf(operand.get()) && !accepts(operand))
          toDefault.push_back(&operand);
    });
    for (OpOperand *use : toDefault)
      convertBefore(*use);
    kernel_.walk([&](Operation *op) {
      auto needs = [&](OpOperand &use, Value partner) {
        const LayoutBits *bits = state_.layoutOf(partner);
        if (bits && !isUniform(use.get()) && !state_.layoutOf(use.get()))
          toPartner.push_back({&use, *bits});
      };
      if (auto dot = dyn_cast<DotOp>(op))
        needs(dot.getAccMutable(), dot.getResult());
      else if (isa<scf::YieldOp, scf::ForOp>(op) || op->hasTrait<OpTrait::Elementwise>())
        for (OpOperand &operand : op->getOpOperands())
          if (Value partner = layoutPartner(operand))
            needs(operand, partner);
    });
    for (auto &[use, bits] : toPartner)
      state_.assign(convertBefore(*use), bits);
  }

  /// Writes the layouts into the types: `#tkg.linear` for the assigned ones, `#tkg.blocked` for
  /// every other tile; uniform tiles get a copy in the layout their user takes.
  void encodeLayouts() {
    MLIRContext *context = kernel_.getContext();
    int64_t threads = state_.threads(), vectorWidth = vectorWidthOf(kernel_);
    auto encode = [&](Value value) {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type || type.getEncoding())
        return;
      Attribute layout;
      if (const LayoutBits *bits = state_.layoutOf(value)) {
        layout = linearLayout(context, *bits);
      } else {
        BlockedLayout blocked = BlockedLayout::of(type.getNumElements(), threads, vectorWidth);
        layout = BlockedLayoutAttr::get(context, blocked.sizePerThread, threads);
      }
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << value << "\n    -> " << layout << "\n");
      setType(value, withLayout(type, layout));
    };
    kernel_.walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            encode(arg);
      for (Value result : op->getResults())
        encode(result);
    });
    // Tile arguments (device functions in tests) change the function's type.
    kernel_.setFunctionType(
        FunctionType::get(context, kernel_.getBody().getArgumentTypes(), kernel_.getFunctionType().getResults()));
    kernel_.walk([&](Operation *op) {
      for (OpOperand &operand : op->getOpOperands()) {
        Value partner = layoutPartner(operand);
        if (!partner || !isTile(operand.get()) || !isUniform(operand.get()))
          continue;
        Attribute wanted = cast<RankedTensorType>(partner.getType()).getEncoding();
        if (cast<RankedTensorType>(operand.get().getType()).getEncoding() != wanted)
          operand.set(uniformCopy(operand.get(), withLayout(operand.get().getType(), wanted)));
      }
    });
  }

private:
  bool accepts(OpOperand &operand) const {
    if (auto rule = dyn_cast<LayoutRuleOpInterface>(operand.getOwner()))
      return rule.acceptsOperandLayout(operand, state_);
    return operand.getOwner()->hasTrait<OpTrait::Elementwise>() && elementwiseAcceptsLayout(operand, state_);
  }

  /// A convert_layout of `use`'s value before its user (its result type gets its layout later).
  Value convertBefore(OpOperand &use) {
    OpBuilder b(use.getOwner());
    auto convert = ConvertLayoutOp::create(b, use.getOwner()->getLoc(), use.get().getType(), use.get());
    use.set(convert.getResult());
    return convert.getResult();
  }

  /// Changes a value's type; a tile constant's value takes the type too.
  static void setType(Value value, RankedTensorType type) {
    value.setType(type);
    if (auto constant = value.getDefiningOp<arith::ConstantOp>())
      if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
        constant.setValueAttr(dense.reshape(type));
  }

  /// A uniform tile (splat or splat constant) made again with type `type`.
  static Value uniformCopy(Value uniform, RankedTensorType type) {
    Operation *def = uniform.getDefiningOp();
    OpBuilder b(def->getContext());
    b.setInsertionPointAfter(def);
    Operation *copy = b.clone(*def);
    setType(copy->getResult(0), type);
    return copy->getResult(0);
  }

  func::FuncOp kernel_;
  LayoutState state_;
};

struct AssignLayouts : public tk::impl::TkAssignLayoutsBase<AssignLayouts> {
  using TkAssignLayoutsBase::TkAssignLayoutsBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    TkAssignLayoutsBase::getDependentDialects(registry);
    registerLayoutRules(registry);
  }

  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      // A load's mask or pointers computed from indices and used by other ops too (an
      // epilogue's bounds mask, shared by its loads and its store) get a copy per load, so that
      // the load can take the layout its user wants (only a tile used once is adopted).
      // Only one op is copied: arithmetic of broadcasts, which the next step copies in turn.
      kernel.walk([](LoadOp load) {
        for (OpOperand &operand : load->getOpOperands()) {
          Operation *def = operand.get().getDefiningOp();
          bool ofBroadcasts = def && def->getNumResults() == 1 &&
                              ((isa<arith::ArithDialect>(def->getDialect()) && isPure(def)) || isa<AddPtrOp>(def)) &&
                              llvm::all_of(def->getOperands(), [](Value v) {
                                return !isTile(v) || isUniform(v) || v.getDefiningOp<BroadcastOp>();
                              });
          if (!ofBroadcasts || operand.get().hasOneUse())
            continue;
          OpBuilder b(load);
          operand.set(b.clone(*def)->getResult(0));
        }
      });
      // A broadcast of index arithmetic used several times gets a copy per use, so that each
      // can take the layout its user wants (it is recomputed where it is needed, so copies
      // cost nothing; a broadcast through shared memory keeps its single exchange).
      kernel.walk([](BroadcastOp broadcast) {
        if (broadcast->use_empty() || !rematerializable(broadcast.getSrc()))
          return;
        for (OpOperand &use : llvm::make_early_inc_range(llvm::drop_begin(broadcast->getUses()))) {
          OpBuilder b(use.getOwner());
          use.set(b.clone(*broadcast)->getResult(0));
        }
      });
      // A broadcast of values loaded shortly before it from memory the kernel does not write
      // (a k-step's block-wise scales) may read them again where it is: into a tensor-core
      // layout, once layouts are known, each thread then loads the elements it needs, as
      // Triton's loads in a slice of the MMA layout do, instead of the loaded tile moving
      // through shared memory (two barriers; recomputedInEachThread, AffineAddresses.h).
      WrittenMemory written(kernel);
      kernel.walk([&](BroadcastOp broadcast) {
        SetVector<Operation *> loads;
        if (rematerializable(broadcast.getSrc(), &loads) && !loads.empty() &&
            rereadable(loads.getArrayRef(), broadcast, written))
          broadcast->setAttr(TkgDialect::kRereadable, UnitAttr::get(broadcast.getContext()));
      });
      Assignment assignment(kernel, wgmma);
      if (failed(checkShapes(kernel)) || failed(checkSupported(kernel, wgmma, sm)) || failed(assignment.checkRules()))
        return signalPassFailure();
      assignment.propagate();
      assignment.allowDefaultSlices();
      assignment.propagate();
      assignment.insertConversions();
      assignment.encodeLayouts();
      recordDotPlacement(kernel);
    }
  }

  /// How many of the kernel's dots run on the tensor cores (their results in an accumulator
  /// layout) and how many by FMA, on the module for `tkc --stats`: a dot that falls back to FMA
  /// is a performance cliff a user should see.
  static void recordDotPlacement(func::FuncOp kernel) {
    int64_t tensorCores = 0, fma = 0;
    kernel.walk([&](DotOp dot) { ++(hasLinearLayout(dot.getType()) ? tensorCores : fma); });
    auto module = kernel->getParentOfType<ModuleOp>();
    if (!module || tensorCores + fma == 0)
      return;
    NamedAttrList kernels(module->getAttrOfType<DictionaryAttr>(TkgDialect::kDotPlacement));
    kernels.set(kernel.getSymName(), DenseI64ArrayAttr::get(kernel.getContext(), {tensorCores, fma}));
    module->setAttr(TkgDialect::kDotPlacement, kernels.getDictionary(kernel.getContext()));
  }
};

} // namespace
} // namespace tk::codegen
