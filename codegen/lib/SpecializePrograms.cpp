// The tk-specialize-programs pass: each of a CTA's two programs (`warp_specialize: 3`) runs
// its own copy of the consumers' code, in which the program is a constant.
//
// Everything a program computes from its index (tid.x / 128) is, to ptxas, a per-thread
// value: the persistent loop's first tile, its ring position (program w's r-th tile reads from
// (2r + w) * KT), its barriers and staging offset. The wgmma descriptors built from the ring
// position must be in uniform registers, so ptxas moved them there (`R2UR`) before every
// wgmma: 98 instructions a k-step against 60 with one program a CTA
// (`bench/results/2026-12-05-h200-session27`, run 2). Broadcasting the index from lane 0
// changed nothing (run 4). Branching on it once, each branch's index a constant, leaves only
// ctaid-derived values, which ptxas keeps uniform, but only where it sees the warp converged:
// branching on tid.x < 128 itself, it did so in the else region alone (160 R2UR against 95,
// `bench/results/2026-12-05-session28`, runs 1-4); on the warp's vote of it
// (vote.sync.all, a uniform predicate), in both.
#include "IndexArithmetic.h"
#include "ProducerSlice.h"
#include "tk/Codegen/Passes.h"
#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tk-specialize-programs"

namespace tk {
#define GEN_PASS_DEF_TKSPECIALIZEPROGRAMS
#include "tk/Codegen/Passes.h.inc"
} // namespace tk

using namespace mlir;

namespace tk::codegen {
namespace {

/// Moves the consumers' ops after their register grant into `scf.if program == 0`: the
/// originals to the else region (program 1), a clone to the then region (program 0).
void specialize(func::FuncOp kernel) {
  scf::IfOp split = existingSplit(kernel);
  if (!split)
    return;
  Block &consumers = split.getElseRegion().front();
  auto grant = llvm::find_if(consumers, [](Operation &op) { return isa<SetMaxRegistersOp>(op); });
  Operation *first = grant == consumers.end() ? &consumers.front() : grant->getNextNode();
  Operation *terminator = consumers.getTerminator();
  if (first == terminator)
    return;
  Location loc = first->getLoc(); // (the first consumer op's source location)
  OpBuilder b(first);
  // tid.x < threads, the same across a warp; voted (vote.sync.all) so that ptxas sees it so
  // too (a uniform predicate): else it takes the branch for a divergent one and keeps what the
  // copy computes out of uniform registers.
  Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ctaThreadId(b, loc),
                                      i32Constant(b, loc, threadsOf(kernel)));
  Value isFirst = NVVM::VoteSyncOp::create(b, loc, b.getI1Type(), i32Constant(b, loc, -1), below, NVVM::VoteSyncKind::all);
  auto byProgram = scf::IfOp::create(b, loc, TypeRange{}, isFirst, /*withElseRegion=*/true);
  byProgram->setAttr(TkgDialect::kProgramsSplit, b.getUnitAttr());
  Block &programOne = byProgram.getElseRegion().front();
  programOne.getOperations().splice(programOne.getTerminator()->getIterator(), consumers.getOperations(),
                                    first->getIterator(), terminator->getIterator());
  OpBuilder zero = OpBuilder::atBlockTerminator(&byProgram.getThenRegion().front());
  IRMapping mapping;
  for (Operation &op : llvm::make_early_inc_range(programOne.without_terminator()))
    zero.clone(op, mapping);
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << kernel.getName() << ": a copy of the consumers' code a program\n");
}

struct SpecializePrograms : public tk::impl::TkSpecializeProgramsBase<SpecializePrograms> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp kernel) {
      // (On clusters too. There the copies were 1.8x slower: ptxas serialized every wgmma,
      // C7518, for want of a wait after a k-loop that ran no iteration, which endPipeline puts
      // there since session 31. ptxas no longer reports it; not yet timed on a GPU.)
      if (programsPerCtaOf(kernel) > 1)
        specialize(kernel);
    });
  }
};

} // namespace
} // namespace tk::codegen
