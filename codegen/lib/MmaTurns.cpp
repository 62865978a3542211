// The ping-pong turns of tk-mma-ping-pong (and of two programs a CTA, TmaPipeline.cpp) as named
// barriers, once the program's own barriers are known: warpgroup w (threads 128w .. 128w + 127
// of the consumers) takes its turn with `bar.sync 2 + w, 256` and passes it with
// `bar.arrive 3 - w, 256` (3 + w and 4 - w with two programs a CTA, whose own barriers are 1, 2). A function whose turns
// enclose a barrier of all consumers (a reduction or layout change through shared memory
// between the warpgroups) would deadlock with one warpgroup waiting for its turn: its turns
// are dropped instead.
#include "IndexArithmetic.h"
#include "MmaTurns.h"
#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tk-mma-ping-pong"

using namespace mlir;
using namespace tk::gpu;

namespace tk::codegen {
namespace {

/// The named barrier of warpgroup 0's turns (warpgroup 1's the next): 0 is the whole CTA's,
/// 1 the consumers' (with two programs a CTA, 1 and 2 the programs').
int64_t firstTurnBarrier(Operation *kernel) { return programsPerCtaOf(kernel) > 1 ? 3 : 2; }

/// Whether a program barrier lies between the first and the last of `turns` (in their block).
bool turnsEncloseBarrier(ArrayRef<Operation *> turns) {
  Block *block = turns.front()->getBlock();
  Operation *last = turns.front();
  for (Operation *turn : turns)
    if (Operation *inBlock = block->findAncestorOpInBlock(*turn); inBlock && last->isBeforeInBlock(inBlock))
      last = inBlock;
  for (Operation *op = turns.front(); op != last; op = op->getNextNode()) {
    WalkResult found = op->walk([](Operation *inner) {
      return isa<NVVM::Barrier0Op, NVVM::BarrierOp>(inner) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (found.wasInterrupted())
      return true;
  }
  return false;
}

} // namespace

void lowerMmaTurns(ModuleOp module) {
  module.walk([](func::FuncOp fn) {
    SmallVector<Operation *> turns;
    fn.walk([&](Operation *op) {
      if (isa<MmaTurnTakeOp, MmaTurnPassOp>(op))
        turns.push_back(op);
    });
    if (turns.empty())
      return;
    // (Two programs a CTA take turns at their own tiles: a barrier of one program's threads
    // within its turn is no barrier of the other's.)
    if (programsPerCtaOf(fn) == 1 && turnsEncloseBarrier(turns)) {
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << fn.getName()
                              << ": a barrier of all consumers between the turns; no ping-pong\n");
      for (Operation *turn : turns)
        turn->erase();
      return;
    }
    for (Operation *turn : turns) {
      OpBuilder b(turn);
      Location loc = turn->getLoc();
      // (With two programs a CTA, a warpgroup is a program: a constant in its own copy.)
      Value warpgroup = programsPerCtaOf(fn) > 1 ? programInCta(b, loc)
                                                 : arith::DivUIOp::create(b, loc, ctaThreadId(b, loc), i32Constant(b, loc, 128));
      int64_t kFirstTurnBarrier = firstTurnBarrier(fn);
      Value threads = i32Constant(b, loc, 256);
      auto take = dyn_cast<MmaTurnTakeOp>(turn);
      IntegerAttr only = take ? take.getWarpgroupAttr() : cast<MmaTurnPassOp>(turn).getWarpgroupAttr();
      Value id = take ? arith::AddIOp::create(b, loc, warpgroup, i32Constant(b, loc, kFirstTurnBarrier)).getResult()
                      : arith::SubIOp::create(b, loc, i32Constant(b, loc, kFirstTurnBarrier + 1), warpgroup).getResult();
      if (only) {
        Value mine = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warpgroup, i32Constant(b, loc, only.getInt()));
        b = scf::IfOp::create(b, loc, TypeRange{}, mine, false).getThenBodyBuilder();
      }
      if (take)
        NVVM::BarrierOp::create(b, loc, TypeRange{}, id, threads, {}, Value());
      else // (nvvm.barrier.arrive has no LLVM translation of its own: the PTX itself)
        inlinePtx(b, loc, TypeRange{}, ValueRange{id, threads}, "bar.arrive $0, $1;", "r,r", /*sideEffects=*/true);
      turn->erase();
    }
  });
}

} // namespace tk::codegen
