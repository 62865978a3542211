// Ping-pong consumer warpgroups (FlashAttention-3's warp scheduler barrier): in a kernel with
// `warp_specialize: 2`, the two consumer warpgroups of the producer's pipeline take turns at
// the tensor cores, a turn covering the loop's dots that follow each other without the work
// between them. When the last dot reads what the first computed (attention: P comes from S
// through the softmax), a turn runs from this iteration's last dot (O += PV) to the next
// iteration's first (S = QK^T), issued; the other warpgroup's softmax runs meanwhile:
//
//   pass {warpgroup = 1}    warpgroup 1 gives warpgroup 0 the first turn
//   take                    each waits for its turn
//   for ... {
//     S = dot(Q, K^T)       (tk-async-dots leaves it in flight past the pass)
//     pass                  the other warpgroup's turn
//     ...softmax of S...
//     take
//     O = dot(P, V, O)
//   }
//   pass {warpgroup = 0}    warpgroup 0's last turn ends (warpgroup 1 waits for it)
//
// Otherwise (the overlapped attention: S_j and the previous block's PV issued together) a turn
// runs from the first dot to the last of each iteration, warpgroup 0 taking one more turn
// after the loop (warpgroup 1's last pass). Either way each warpgroup takes its turn as often
// as the other passes it, so named barriers 2 and 3 balance. A turn must not hold a barrier
// of all consumers (the other warpgroup would be waiting for its turn): tk-threads-to-llvm
// drops the turns of a loop whose lowering has one (MmaTurns.cpp).
//
// Inside its turn a warpgroup may wait on a stage's full barrier (K at the loop's top). That
// cannot deadlock because only the producer completes full barriers, and the empty barrier
// the producer waits for before that copy (the stage S iterations back, S >= 2 with TMA) was
// released by the other warpgroup before it passed its last turn. A consumer-to-consumer
// mbarrier handshake inside a turn, or a one-stage ring, would break this argument.
//
// The turns only pay when the first and last dots are the loop's tensor-core work: with a
// dot before S that S does not depend on, the turn spans S's softmax and the warpgroups run
// one after the other (a tuning config, not a correctness matter).
#include "tk/Codegen/Passes.h"
#include "tk/Dialect/Tk/IR/Tk.h"
#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tk-mma-ping-pong"

namespace tk {
#define GEN_PASS_DEF_TKMMAPINGPONG
#include "tk/Codegen/Passes.h.inc"
} // namespace tk

using namespace mlir;
using namespace tk::gpu;

namespace tk::codegen {
namespace {

/// Whether `dot` reads (through ops of `loop`'s body) what `source` computes in the same iteration.
bool readsWithinBody(DotOp dot, DotOp source, scf::ForOp loop) {
  Block *body = loop.getBody();
  SmallVector<Operation *> work{source};
  llvm::SmallPtrSet<Operation *, 32> seen{source};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Operation *user : op->getUsers()) {
      Operation *inBody = body->findAncestorOpInBlock(*user);
      if (inBody == dot)
        return true;
      if (inBody && !isa<scf::YieldOp>(inBody) && seen.insert(inBody).second)
        work.push_back(inBody);
    }
  }
  return false;
}

struct MmaPingPong : public tk::impl::TkMmaPingPongBase<MmaPingPong> {
  using TkMmaPingPongBase::TkMmaPingPongBase;

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp kernel) {
      if (!kernel->hasAttr(TkDialect::kPingPong))
        return;
      // Two consumer warpgroups beside a producer (which the TMA pipeline made).
      if (producerWarpsOf(kernel) == 0 || threadsOf(kernel) != 256) {
        LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << kernel.getName()
                                << ": no producer warpgroup beside two consumer warpgroups\n");
        return;
      }
      SmallVector<scf::ForOp> loops;
      kernel.walk([&](scf::ForOp loop) {
        if (llvm::range_size(loop.getBody()->getOps<DotOp>()) >= 2)
          loops.push_back(loop);
      });
      if (loops.size() != 1) {
        LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << kernel.getName() << ": " << loops.size()
                                << " loops with two dots (one takes turns)\n");
        return;
      }
      scf::ForOp loop = loops.front();
      auto dots = llvm::to_vector(loop.getBody()->getOps<DotOp>());
      DotOp first = dots.front(), last = dots.back();
      OpBuilder b(loop);
      Location loc = loop.getLoc();
      // A turn op at the builder's place, in every warpgroup or in `only`.
      auto turn = [&](auto op, Location at, std::optional<int32_t> only) {
        decltype(op)::create(b, at, only ? b.getI32IntegerAttr(*only) : IntegerAttr());
      };
      auto take = [&](Location at, std::optional<int32_t> only = std::nullopt) { turn(MmaTurnTakeOp(), at, only); };
      auto pass = [&](Location at, std::optional<int32_t> only = std::nullopt) { turn(MmaTurnPassOp(), at, only); };
      pass(loc, 1);
      bool acrossIterations = readsWithinBody(last, first, loop);
      if (acrossIterations) {
        take(loc);
        b.setInsertionPointAfter(first);
        pass(first.getLoc());
        b.setInsertionPoint(last);
        take(last.getLoc());
        b.setInsertionPointAfter(loop);
        pass(loc, 0);
      } else {
        b.setInsertionPoint(first);
        take(first.getLoc());
        b.setInsertionPointAfter(last);
        pass(last.getLoc());
        b.setInsertionPointAfter(loop);
        take(loc, 0);
      }
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] loop at " << loc << ": turns "
                              << (acrossIterations ? "from the last dot to the next iteration's first" : "over each iteration's dots")
                              << "\n");
    });
  }
};

} // namespace
} // namespace tk::codegen
