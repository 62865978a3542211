// Asynchronous wgmma dots: a dot that reads its operands in place (stages, or A from registers)
// returns as soon as its MMAs are issued, and a `tkg.dot_wait` before the first use of its
// results waits for them (`wgmma.wait_group pending`). The threads' work in between (attention's
// softmax) then overlaps the tensor cores' (the PV product issued before it).
//
//   s   = tk.dot %q, %kT, %zero {tkg.mma_async}      S's MMAs issued
//   acc = tk.dot %p, %v, %acc0 {tkg.mma_async}       PV's MMAs issued
//   s'  = tkg.dot_wait %s {pending = 1}              S done; PV may still run
//   ...softmax of s'...
//   acc' = tkg.dot_wait %acc                         PV done
//
// The dot's operands must stay as they are until the wait: the stages are not written
// between (only ops that write no memory, other dots, waits for a stage's copies, the
// ping-pong's turns and releases of stages the dot does not read may lie between; a release
// names the buffers it frees, and the producer refills a stage only after its release), and
// the registers of A are PTX virtual registers, which ptxas keeps until the wait.
#include "MmaPlan.h"
#include "TensorCoreOperands.h"
#include "tk/Codegen/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tk-async-dots"

namespace tk {
#define GEN_PASS_DEF_TKASYNCDOTS
#include "tk/Codegen/Passes.h.inc"
} // namespace tk

using namespace mlir;

namespace tk::codegen {
namespace {

/// Whether `dot` runs on wgmma and reads its operands where they are: B from a stage, A from a
/// stage or from registers (TensorCoreOperands.h decides both for the lowering too); results
/// in f32 (wgmma's accumulators). A dot that stages A in its own region must finish before
/// later exchanges reuse that region.
bool readsOperandsInPlace(DotOp dot, int64_t threads) {
  return lowersToWarpgroupMma(dot, threads, /*warpgroupMma=*/true) &&
         cast<RankedTensorType>(dot.getType()).getElementType().isF32() && tensorCoreStage(dot.getB()) &&
         !warpgroupStagesA(dot, threads);
}

/// Whether `release` names the stage buffers it frees and `dot` reads none of them.
bool releasesNoneOf(BarrierArriveOp release, DotOp dot) {
  if (release.getReleased().empty())
    return false;
  return llvm::none_of(ValueRange{dot.getA(), dot.getB()}, [&](Value operand) {
    auto stage = operand.getDefiningOp<LocalLoadOp>();
    return stage && llvm::is_contained(release.getReleased(), stage.getBuffer());
  });
}

/// The first op of `dot`'s block that uses its result (itself or through an op it contains).
Operation *firstUse(DotOp dot) {
  Operation *first = nullptr;
  for (Operation *user : dot->getUsers()) {
    Operation *inBlock = dot->getBlock()->findAncestorOpInBlock(*user);
    if (inBlock && (!first || inBlock->isBeforeInBlock(first)))
      first = inBlock;
  }
  return first;
}

struct AsyncDots : public tk::impl::TkAsyncDotsBase<AsyncDots> {
  using TkAsyncDotsBase::TkAsyncDotsBase;

  void runOnOperation() override {
    SmallVector<DotOp> dots;
    getOperation().walk([&](DotOp dot) { dots.push_back(dot); });
    for (DotOp dot : dots) {
      int64_t threads = threadsOf(dot);
      if (dot->hasAttr(TkgDialect::kMmaInFlight) || !readsOperandsInPlace(dot, threads))
        continue;
      Operation *use = firstUse(dot);
      if (!use || use == dot->getNextNode())
        continue;
      // Every group committed after this dot's may still run at the wait: the dots issued in
      // between that run on wgmma (each commits one group; one lowered by FMA commits none, and
      // counting it would let the wait return early).
      int32_t pending = 0;
      bool clear = true;
      for (Operation *op = dot->getNextNode(); op != use && clear; op = op->getNextNode()) {
        if (auto other = dyn_cast<DotOp>(op); other && lowersToWarpgroupMma(other, threads, /*warpgroupMma=*/true))
          ++pending;
        // Reads of the stages are fine, and so are waits for a stage's copies, the ping-pong's
        // turns (named barriers) and the release of a stage the dot does not read.
        auto release = dyn_cast<BarrierArriveOp>(op);
        clear = isa<DotOp, DotWaitOp, DotWaitAllOp, BarrierWaitOp, MmaTurnPassOp, MmaTurnTakeOp>(op) ||
                (release && releasesNoneOf(release, dot)) || !tk::mayWriteMemory(op);
      }
      if (!clear)
        continue;
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] dot at " << dot.getLoc() << " waited for at " << use->getLoc()
                              << " with " << pending << " later groups pending\n");
      dot->setAttr(TkgDialect::kMmaAsync, UnitAttr::get(&getContext()));
      OpBuilder b(use);
      auto wait = DotWaitOp::create(b, dot.getLoc(), TypeRange{dot.getType()}, ValueRange{dot.getResult()}, pending);
      dot.getResult().replaceAllUsesExcept(wait.getResult(0), wait);
    }
  }
};

} // namespace
} // namespace tk::codegen
