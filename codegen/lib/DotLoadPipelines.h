// What tk-pipeline-dot-loads' two pipelines share (PipelineDotLoads.cpp: cp.async rings;
// TmaPipeline.cpp: TMA rings with mbarriers on sm_90a).
#ifndef TK_CODEGEN_DOTLOADPIPELINES_H
#define TK_CODEGEN_DOTLOADPIPELINES_H

#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace tk::codegen {
using namespace ::tk::gpu;

/// What a loop's pipeline needs: the loads, the body's ops that compute their operands and the
/// address arguments' updates (in block order), and those arguments' numbers.
struct LoopPlan {
  llvm::SmallVector<LoadOp> loads;
  llvm::SmallVector<mlir::Operation *> addressOps;
  llvm::SmallVector<unsigned> addressArgs;
};

/// The plan for `loop`'s pipeline (the loads it copies ahead, for `threads` threads), or none
/// when the address computation cannot run ahead.
std::optional<LoopPlan> planLoop(mlir::scf::ForOp loop, int64_t threads);

/// The loads before `loop` in its block that feed its tensor-core dots (operands the pipeline
/// copies once, before the loop: attention's Q).
llvm::SmallVector<tk::LoadOp> invariantDotOperands(mlir::scf::ForOp loop, int64_t threads);

/// `from` + i * `loop`'s step: the induction value i iterations after `from`.
mlir::Value advance(mlir::OpBuilder &b, mlir::Location loc, mlir::scf::ForOp loop, mlir::Value from, int64_t i);

/// Replaces `load` (and the `trans` it feeds, if any) by a `tkg.local_load` of `buffer`'s
/// `stage`, placed before `before` (by default the op that used it); returns the stage's tile.
mlir::Value readFromStage(mlir::RewriterBase &rewriter, LoadOp load, mlir::Value buffer, mlir::Value stage,
                   mlir::Operation *before = nullptr);

/// After a pipelined `loop`: the wait for the MMAs `inFlight` left running (if any), then the
/// wait for every copy ending in a barrier, after which the epilogue may reuse the rings' bytes
/// (no warpgroup still reads a stage).
/// With `onlyIfRan`, the wait that ties the MMAs' accumulators stands only where the loop ran,
/// and one that ties nothing (`tkg.dot_wait_all`) where it ran no iteration: ptxas must see a
/// wait on both paths (see the definition).
void endPipeline(mlir::RewriterBase &rewriter, mlir::Location loc, mlir::scf::ForOp loop, DotOp inFlight,
                 bool onlyIfRan = false);

/// Pipelines `loop` with TMA copies into rings of `stages` stages, when every load of the plan
/// reads a rectangle TMA can copy (RectangularAccess.h); false (and nothing changed) otherwise.
/// `inFlight` is the dot whose MMAs stay in flight across iterations, if any. `invariantCopies`
/// copied loop-invariant operands (attention's Q) by cp.async into one-stage buffers before the
/// loop: those that are rectangles too become TMA copies on a barrier of their own, the others
/// stay, and the loop waits for them first (it has no cp.async wait of its own).
bool pipelineByTma(mlir::scf::ForOp loop, LoopPlan &plan, int64_t stages, DotOp inFlight,
                   llvm::ArrayRef<AsyncCopyOp> invariantCopies);

} // namespace tk::codegen

#endif
