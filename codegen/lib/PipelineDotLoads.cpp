// The software pipeliner: loads that feed tensor-core `dot`s in a loop become `cp.async`
// copies into rings of `num_stages` shared-memory stages, issued num_stages - 1 iterations
// ahead, so that the copies of later k-slices overlap this iteration's math.
//
//   prologue     copies for iterations 0 .. S-2, one commit group each
//   iteration k  wait for group k (then a barrier); copy for iteration k + S - 1 into the stage
//                that iteration k - 1 read; the dot reads stage k % S
//   after        wait for every group (the predicated-off tail copies still write zeros)
//
// On Hopper's wgmma (the `wgmma` option) a loop whose one dot accumulates into a loop-carried
// value leaves each iteration's MMAs in flight until the next iteration's have been issued
// (`tkg.mma_in_flight`: wgmma.wait_group 1), so the tensor cores never wait for the barrier and
// the copies. Iteration k - 1's MMAs may then still read its stage while iteration k starts
// its copies, so the copies run S - 2 iterations ahead, into the stage iteration k - 2 read
// (every warpgroup's wait in iteration k - 1 finished those MMAs before iteration k's
// barrier); `tkg.dot_wait` after the loop makes the accumulator valid.
//
// The addresses of iteration k + S - 1 come from a clone of the pure ops that compute them,
// with the induction variable advanced and the loop-carried values that only feed addresses
// (pointers bumped each iteration: "address arguments") carried S - 1 updates ahead.
#include "DotLoadPipelines.h"
#include "IndexArithmetic.h"
#include "MmaPlan.h"
#include "tk/Codegen/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tk-pipeline-dot-loads"

namespace tk {
#define GEN_PASS_DEF_TKPIPELINEDOTLOADS
#include "tk/Codegen/Passes.h.inc"
} // namespace tk

using namespace mlir;

namespace tk::codegen {
namespace {

bool isZero(Value v) { return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero()); }

/// Tiles whose stages tensor cores read: 2-byte elements, or FP8 (wgmma's and, from sm_89, mma.sync's).
bool stageableElement(RankedTensorType type) {
  return type.getElementTypeBitWidth() == 16 || isFloat8(type.getElementType());
}

/// The tensor-core dot in `body` that a load feeds as its only use (directly, or as B through
/// `trans`: a transposed operand is read from its rows as they are, which only B supports),
/// when the load is a 2-D tile of 2-byte (or FP8) elements whose masked-off elements read as zero.
DotOp dotFedBy(LoadOp load, Block *body, int64_t threads) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || type.getRank() != 2 || !stageableElement(type) || !load->hasOneUse() ||
      (load.getOther() && !isZero(load.getOther())))
    return {};
  Operation *user = *load->getUsers().begin();
  auto trans = dyn_cast<TransOp>(user);
  if (trans && trans->hasOneUse())
    user = *trans->getUsers().begin();
  auto dot = dyn_cast<DotOp>(user);
  if (!dot || dot->getBlock() != body || (trans && dot.getB() != trans.getResult()) || !takesTensorCores(dot, threads))
    return {};
  return dot;
}

bool pipelinable(LoadOp load, scf::ForOp loop, int64_t threads) {
  return load->getBlock() == loop.getBody() && dotFedBy(load, loop.getBody(), threads);
}

} // namespace

SmallVector<LoadOp> invariantDotOperands(scf::ForOp loop, int64_t threads) {
  SmallVector<LoadOp> loads;
  for (auto load : loop->getBlock()->getOps<LoadOp>())
    if (load->isBeforeInBlock(loop) && dotFedBy(load, loop.getBody(), threads))
      loads.push_back(load);
  return loads;
}

Value advance(OpBuilder &b, Location loc, scf::ForOp loop, Value from, int64_t i) {
  if (i == 0)
    return from;
  Value times = arith::ConstantOp::create(b, loc, b.getIntegerAttr(from.getType(), i));
  return arith::AddIOp::create(b, loc, from, arith::MulIOp::create(b, loc, loop.getStep(), times));
}

void endPipeline(RewriterBase &rewriter, Location loc, scf::ForOp loop, DotOp inFlight, bool onlyIfRan) {
  rewriter.setInsertionPointAfter(loop);
  // The MMAs left in flight first: the wait's barrier then also means that no warpgroup still
  // reads a stage whose bytes the epilogue's exchanges reuse.
  if (inFlight) {
    inFlight->setAttr(TkgDialect::kMmaInFlight, rewriter.getUnitAttr());
    Value result = loop.getResult(cast<BlockArgument>(inFlight.getAcc()).getArgNumber() - 1);
    if (!onlyIfRan) {
      auto wait = DotWaitOp::create(rewriter, loc, TypeRange{result.getType()}, ValueRange{result}, /*pending=*/0);
      rewriter.replaceAllUsesExcept(result, wait.getResult(0), wait);
    } else {
      // The wait ties the accumulators' registers; where the loop ran no iteration, LLVM may
      // define them (the initial zeros) on that path just before it, which ptxas takes for
      // non-wgmma definitions inside an MMA pipeline and answers by serializing every wgmma
      // of the kernel (C7515; seen on clusters' kernels). Off that path, nothing defines them
      // near a wait.
      Value ran = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, loop.getLowerBound(),
                                        loop.getUpperBound());
      auto guarded = scf::IfOp::create(rewriter, loc, TypeRange{result.getType()}, ran, /*withElseRegion=*/true);
      OpBuilder then = OpBuilder::atBlockBegin(&guarded.getThenRegion().front());
      auto wait = DotWaitOp::create(then, loc, TypeRange{result.getType()}, ValueRange{result}, /*pending=*/0);
      scf::YieldOp::create(then, loc, wait.getResult(0));
      // No MMAs are in flight on that path, but ptxas sees the accumulators' registers, which
      // the previous tile's wgmmas defined, used without a wait there: it injected one of its
      // own (C7517), and where each program has its own copy of the code, in a path it took
      // for divergent, serialized every wgmma of the kernel (C7518: 1.8x slower). A wait
      // that ties nothing (so nothing is defined near it) stands on that path.
      OpBuilder otherwise = OpBuilder::atBlockBegin(&guarded.getElseRegion().front());
      DotWaitAllOp::create(otherwise, loc);
      scf::YieldOp::create(otherwise, loc, result);
      result.replaceUsesWithIf(guarded.getResult(0),
                               [&](OpOperand &use) { return !guarded->isAncestor(use.getOwner()); });
      rewriter.setInsertionPointAfter(guarded);
    }
  }
  AsyncWaitOp::create(rewriter, loc, 0);
}

Value readFromStage(RewriterBase &rewriter, LoadOp load, Value buffer, Value stage, Operation *before) {
  auto trans = dyn_cast<TransOp>(*load->getUsers().begin());
  Operation *replaced = trans ? trans.getOperation() : load.getOperation();
  rewriter.setInsertionPoint(before ? before : *replaced->getUsers().begin());
  Value tile = LocalLoadOp::create(rewriter, replaced->getLoc(), replaced->getResult(0).getType(), buffer, stage,
                                   /*trans=*/bool(trans));
  rewriter.replaceOp(replaced, tile);
  if (trans)
    rewriter.eraseOp(load);
  return tile;
}

namespace {

/// Whether every use of `load` (a 2-D tile of 2-byte or FP8 elements whose masked-off elements
/// read as zero) is as a tensor-core dot's operand, or as B through a `trans` that only dots' B use.
bool feedsOnlyDots(LoadOp load, int64_t threads) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || type.getRank() != 2 || !stageableElement(type) || load->use_empty() ||
      (load.getOther() && !isZero(load.getOther())))
    return false;
  // As loaded: A, or B as K rows of N; through `trans`: B as rows of N.
  auto usedBy = [&](Value v, bool onlyB) {
    return llvm::all_of(v.getUses(), [&](OpOperand &use) {
      auto dot = dyn_cast<DotOp>(use.getOwner());
      return dot && use.getOperandNumber() <= 1 && (!onlyB || use.getOperandNumber() == 1) &&
             takesTensorCores(dot, threads);
    });
  };
  if (load->hasOneUse())
    if (auto trans = dyn_cast<TransOp>(*load->getUsers().begin()))
      return !trans->use_empty() && usedBy(trans.getResult(), /*onlyB=*/true);
  return usedBy(load.getResult(), /*onlyB=*/false);
}

/// On wgmma (which reads B, and A unless it is in registers, only from shared memory), loads
/// in no loop (of the kernel's top level, or of a warp-specialized kernel's consumers) that
/// only feed tensor-core dots, and that no loop's pipeline staged: attention's Q when a first
/// block is peeled off the loop, that block's K, the last block's V. Each is copied (cp.async)
/// into a one-stage buffer where it is loaded, and waited for before its first use, so that
/// wgmma reads it in place and the copy overlaps whatever lies between. The buffers live as
/// long as the rings, so at most kMaxStagedBytes of them: later loads stay as they are (the
/// dot stages them in its own, reusable region).
void stageTopLevelDotOperands(func::FuncOp kernel, int64_t threads) {
  constexpr int64_t kMaxStagedBytes = 96 * 1024;
  SmallVector<LoadOp> loads;
  int64_t bytes = 0;
  kernel.walk([&](LoadOp load) {
    if (load->getParentOfType<scf::ForOp>() || load->getParentOfType<scf::WhileOp>() || !feedsOnlyDots(load, threads))
      return;
    auto type = cast<RankedTensorType>(load.getType());
    int64_t size = type.getNumElements() * elementBytes(type.getElementType());
    if (bytes + size > kMaxStagedBytes)
      return;
    bytes += size;
    loads.push_back(load);
  });
  IRRewriter rewriter(kernel.getContext());
  struct Staged {
    LoadOp load;
    Value buffer, stage;
    Operation *firstUse;
  };
  SmallVector<Staged> staged;
  for (LoadOp load : loads) {
    auto type = cast<RankedTensorType>(load.getType());
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, type.getShape());
    Location loc = load.getLoc();
    Block &body = *load->getBlock();
    Operation *firstUse = nullptr;
    for (Operation *user : load->getUsers())
      for (Operation *dot : isa<TransOp>(user) ? llvm::to_vector(user->getUsers()) : SmallVector<Operation *>{user}) {
        Operation *inBody = body.findAncestorOpInBlock(*dot);
        if (!firstUse || inBody->isBeforeInBlock(firstUse))
          firstUse = inBody;
      }
    rewriter.setInsertionPoint(load);
    Value buffer = LocalAllocOp::create(rewriter, loc, SharedBufferType::get(kernel.getContext(), shape, type.getElementType()));
    Value stage = i32Constant(rewriter, loc, 0);
    AsyncCopyOp::create(rewriter, loc, load.getPtr(), buffer, stage, load.getMask(), load.getEvict());
    AsyncCommitOp::create(rewriter, loc);
    staged.push_back({load, buffer, stage, firstUse});
  }
  // One wait (it ends in a barrier) before each op that first uses some of them.
  llvm::SmallPtrSet<Operation *, 4> waited;
  for (Staged &s : staged) {
    if (waited.insert(s.firstUse).second) {
      rewriter.setInsertionPoint(s.firstUse);
      AsyncWaitOp::create(rewriter, s.load.getLoc(), 0);
    }
    readFromStage(rewriter, s.load, s.buffer, s.stage, s.firstUse);
  }
}

/// Loads before the loop that only feed a tensor-core dot inside it (attention's Q) are copied
/// once into a one-stage buffer, so the dot does not stage them again every iteration.
/// Returns the copies.
SmallVector<AsyncCopyOp> copyInvariantOperands(scf::ForOp loop, int64_t threads) {
  SmallVector<LoadOp> loads = invariantDotOperands(loop, threads);
  IRRewriter rewriter(loop.getContext());
  SmallVector<AsyncCopyOp> copies;
  for (LoadOp load : loads) {
    auto type = cast<RankedTensorType>(load.getType());
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, type.getShape());
    rewriter.setInsertionPoint(load);
    Location loc = load.getLoc();
    Value buffer = LocalAllocOp::create(rewriter, loc, SharedBufferType::get(loop.getContext(), shape, type.getElementType()));
    Value stage = i32Constant(rewriter, loc, 0);
    copies.push_back(AsyncCopyOp::create(rewriter, loc, load.getPtr(), buffer, stage, load.getMask(), load.getEvict()));
    AsyncCommitOp::create(rewriter, loc);
    readFromStage(rewriter, load, buffer, stage);
  }
  return copies;
}


/// The loop's dot that can leave its wgmma in flight across iterations: the loop's only dot,
/// both operands from the plan's loads (B directly or through `trans`), shapes wgmma takes,
/// and an accumulator that the loop carries and nothing else reads.
DotOp inFlightDot(scf::ForOp loop, const LoopPlan &plan, int64_t threads) {
  auto dots = llvm::to_vector(loop.getBody()->getOps<DotOp>());
  if (dots.size() != 1)
    return {};
  DotOp dot = dots[0];
  auto planned = [&](Value v) {
    auto load = v.getDefiningOp<LoadOp>();
    return load && llvm::is_contained(plan.loads, load);
  };
  auto trans = dot.getB().getDefiningOp<TransOp>();
  Value b = trans ? trans.getSrc() : dot.getB();
  auto acc = dyn_cast<BlockArgument>(dot.getAcc());
  if (!planned(dot.getA()) || !planned(b) || !planWarpgroupShapes(dot, threads, bool(trans)) || !acc ||
      acc.getOwner() != loop.getBody() || acc == loop.getInductionVar() || !dot->hasOneUse())
    return {};
  OpOperand &use = *dot->getUses().begin();
  bool carried = isa<scf::YieldOp>(use.getOwner()) && use.getOperandNumber() == acc.getArgNumber() - 1;
  return carried ? dot : DotOp();
}

class Pipeliner {
public:
  Pipeliner(scf::ForOp loop, LoopPlan plan, int64_t stages, DotOp inFlight)
      : loop_(loop), plan_(std::move(plan)), stages_(stages), distance_(inFlight ? stages - 2 : stages - 1),
        inFlight_(inFlight) {}

  void run() {
    IRRewriter rewriter(loop_.getContext());
    Location loc = loop_.getLoc();
    rewriter.setInsertionPoint(loop_);
    for (LoadOp load : plan_.loads) {
      auto type = cast<RankedTensorType>(load.getType());
      SmallVector<int64_t> shape{stages_};
      llvm::append_range(shape, type.getShape());
      buffers_.push_back(LocalAllocOp::create(rewriter, load.getLoc(),
                                              SharedBufferType::get(loop_.getContext(), shape, type.getElementType())));
    }
    // Prologue: iterations 0 .. distance - 1, advancing the address arguments as the loop would.
    SmallVector<Value> args;
    for (unsigned arg : plan_.addressArgs)
      args.push_back(loop_.getInitArgs()[arg]);
    for (int64_t i = 0; i < distance_; ++i) {
      Value iv = advance(rewriter, loc, loop_, loop_.getLowerBound(), i);
      IRMapping mapping = cloneAddresses(rewriter, loop_.getInductionVar(), iv, loop_.getRegionIterArgs(), args);
      issueCopies(rewriter, loc, mapping, iv, i32Constant(rewriter, loc, i));
      args = updatedArgs(mapping);
    }
    for (auto [k, arg] : llvm::enumerate(plan_.addressArgs))
      loop_.getInitArgsMutable()[arg].assign(args[k]);

    // Stage counters: the one this iteration reads and the one it fills.
    Value zero = i32Constant(rewriter, loc, 0), last = i32Constant(rewriter, loc, distance_);
    auto next = [&](OpBuilder &b, Value stage) -> Value {
      Value plusOne = arith::AddIOp::create(b, loc, stage, i32Constant(b, loc, 1));
      Value wraps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, plusOne, i32Constant(b, loc, stages_));
      return arith::SelectOp::create(b, loc, wraps, i32Constant(b, loc, 0), plusOne);
    };
    auto grown = loop_.replaceWithAdditionalYields(rewriter, ValueRange{zero, last}, /*replaceInitOperandUsesInLoop=*/false,
                                                   [&](OpBuilder &b, Location, ArrayRef<BlockArgument> stages) {
                                                     return SmallVector<Value>{next(b, stages[0]), next(b, stages[1])};
                                                   });
    loop_ = cast<scf::ForOp>(grown->getOperation());
    auto iterArgs = loop_.getRegionIterArgs();
    Value readStage = iterArgs[iterArgs.size() - 2], fillStage = iterArgs.back();

    // Steady state: wait for this iteration's stage, then start the copies `distance` ahead.
    rewriter.setInsertionPointToStart(loop_.getBody());
    AsyncWaitOp::create(rewriter, loc, distance_ - 1);
    Value ahead = advance(rewriter, loc, loop_, loop_.getInductionVar(), distance_);
    SmallVector<Value> current;
    for (unsigned arg : plan_.addressArgs)
      current.push_back(iterArgs[arg]);
    IRMapping mapping = cloneAddresses(rewriter, loop_.getInductionVar(), ahead, iterArgs, current);
    issueCopies(rewriter, loc, mapping, ahead, fillStage);
    SmallVector<Value> updated = updatedArgs(mapping);
    auto yield = cast<scf::YieldOp>(loop_.getBody()->getTerminator());
    for (auto [k, arg] : llvm::enumerate(plan_.addressArgs))
      yield->setOperand(arg, updated[k]);
    for (auto [load, buffer] : llvm::zip(plan_.loads, buffers_))
      readFromStage(rewriter, load, buffer, readStage);
    endPipeline(rewriter, loc, loop_, inFlight_);
    // The body's own address ops now only fed the loads and updates that were replaced.
    for (Operation *op : llvm::reverse(plan_.addressOps))
      if (op->use_empty())
        rewriter.eraseOp(op);
  }

private:
  /// Clones the address ops for the iteration whose induction value is `iv` and whose address
  /// arguments are `args`.
  IRMapping cloneAddresses(OpBuilder &b, Value inductionVar, Value iv, ValueRange iterArgs, ValueRange args) {
    IRMapping mapping;
    mapping.map(inductionVar, iv);
    for (auto [k, arg] : llvm::enumerate(plan_.addressArgs))
      mapping.map(iterArgs[arg], args[k]);
    for (Operation *op : plan_.addressOps)
      b.clone(*op, mapping);
    return mapping;
  }

  /// The address arguments' next values under `mapping`.
  SmallVector<Value> updatedArgs(const IRMapping &mapping) {
    auto yield = cast<scf::YieldOp>(loop_.getBody()->getTerminator());
    SmallVector<Value> values;
    for (unsigned arg : plan_.addressArgs)
      values.push_back(mapping.lookupOrDefault(yield.getOperand(arg)));
    return values;
  }

  /// One async copy per load into `stage`, masked off past the loop's end, and a commit.
  void issueCopies(OpBuilder &b, Location loc, const IRMapping &mapping, Value iv, Value stage) {
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, loop_.getUpperBound());
    for (auto [load, buffer] : llvm::zip(plan_.loads, buffers_)) {
      auto shape = cast<RankedTensorType>(load.getType()).getShape();
      Value mask = SplatOp::create(b, loc, RankedTensorType::get(shape, b.getI1Type()), inRange);
      if (load.getMask())
        mask = arith::AndIOp::create(b, loc, mapping.lookupOrDefault(load.getMask()), mask);
      AsyncCopyOp::create(b, load.getLoc(), mapping.lookupOrDefault(load.getPtr()), buffer, stage, mask, load.getEvict());
    }
    AsyncCommitOp::create(b, loc);
  }

  scf::ForOp loop_; // replaced by the loop with stage counters halfway through run()
  LoopPlan plan_;
  int64_t stages_, distance_; // copies run `distance` iterations ahead
  DotOp inFlight_;
  SmallVector<Value> buffers_;
};

struct PipelineDotLoads : public tk::impl::TkPipelineDotLoadsBase<PipelineDotLoads> {
  using TkPipelineDotLoadsBase::TkPipelineDotLoadsBase;

  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      int64_t stages = numStagesOf(kernel), threads = threadsOf(kernel);
      if (stages < 2)
        continue;
      // Inner loops first; a TMA pipeline in a persistent kernel replaces the loop around it
      // (which then carries the rings' position), so each step looks for the next loop anew.
      constexpr llvm::StringLiteral visited = "tk.pipeline_visited";
      auto nextLoop = [&] {
        scf::ForOp next;
        kernel.walk([&](scf::ForOp loop) {
          if (loop->hasAttr(visited))
            return WalkResult::advance();
          next = loop;
          return WalkResult::interrupt();
        });
        return next;
      };
      while (scf::ForOp loop = nextLoop()) {
        loop->setAttr(visited, UnitAttr::get(&getContext()));
        // Copies of loop invariants go first, so that the loop's first wait covers them.
        SmallVector<AsyncCopyOp> invariants = copyInvariantOperands(loop, threads);
        if (std::optional<LoopPlan> plan = planLoop(loop, threads)) {
          DotOp inFlight = wgmma && stages >= 3 ? inFlightDot(loop, *plan, threads) : DotOp();
          LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] loop at " << loop.getLoc() << ": " << plan->loads.size()
                                  << " loads in " << stages << " stages"
                                  << (inFlight ? ", MMAs in flight across iterations" : "") << "\n");
          if (!(wgmma && pipelineByTma(loop, *plan, stages, inFlight, invariants)))
            Pipeliner(loop, std::move(*plan), stages, inFlight).run();
          continue;
        }
        LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] loop at " << loop.getLoc() << ": not pipelined\n");
        if (!invariants.empty()) {
          // Before: the copies are done; after: every thread is done reading the buffer
          // before an enclosing loop copies into it again.
          OpBuilder b(loop);
          AsyncWaitOp::create(b, loop.getLoc(), 0);
          b.setInsertionPointAfter(loop);
          AsyncWaitOp::create(b, loop.getLoc(), 0);
        }
      }
      kernel.walk([&](scf::ForOp loop) { loop->removeAttr(visited); });
      if (wgmma)
        stageTopLevelDotOperands(kernel, threads);
    }
  }
};

} // namespace

/// The plan for `loop`, or none when the address computation cannot run ahead: it must be pure
/// and region-free, and an address argument (with everything computed from it) may feed only
/// addresses and its own update.
std::optional<LoopPlan> planLoop(scf::ForOp loop, int64_t threads) {
  LoopPlan plan;
  for (auto load : loop.getBody()->getOps<LoadOp>())
    if (pipelinable(load, loop, threads))
      plan.loads.push_back(load);
  if (plan.loads.empty())
    return std::nullopt;
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  llvm::SetVector<Operation *> slice;
  llvm::SetVector<unsigned> args;
  SmallVector<Value> work;
  for (LoadOp load : plan.loads) {
    work.push_back(load.getPtr());
    if (load.getMask())
      work.push_back(load.getMask());
  }
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == body && arg != loop.getInductionVar() && args.insert(arg.getArgNumber() - 1))
        work.push_back(yield.getOperand(arg.getArgNumber() - 1));
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != body || slice.contains(def))
      continue;
    if (!isPure(def) || def->getNumRegions())
      return std::nullopt;
    slice.insert(def);
    llvm::append_range(work, def->getOperands());
  }
  // Values computed from address arguments change meaning once those run ahead.
  llvm::SetVector<Value> shifted;
  for (unsigned arg : args)
    shifted.insert(loop.getRegionIterArgs()[arg]);
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : ordered)
    if (llvm::any_of(op->getOperands(), [&](Value v) { return shifted.contains(v); }))
      shifted.insert(op->result_begin(), op->result_end());
  for (Value v : shifted)
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      bool ownUpdate = user == yield && args.contains(use.getOperandNumber()) &&
                       (!isa<BlockArgument>(v) || use.getOperandNumber() == cast<BlockArgument>(v).getArgNumber() - 1);
      if (!slice.contains(user) && !ownUpdate && !llvm::is_contained(plan.loads, user))
        return std::nullopt;
    }
  for (unsigned arg : args)
    if (!loop.getResult(arg).use_empty())
      return std::nullopt;
  plan.addressOps = std::move(ordered);
  plan.addressArgs.assign(args.begin(), args.end());
  return plan;
}

} // namespace tk::codegen
