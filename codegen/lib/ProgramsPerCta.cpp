// Two programs a CTA (`warp_specialize: 3`): ring positions and turns (ProgramsPerCta.h).
#include "ProgramsPerCta.h"
#include "IndexArithmetic.h"
#include "ProducerSlice.h"
#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FormatVariadic.h"

#define DEBUG_TYPE "tk-pipeline-dot-loads"

using namespace mlir;

namespace tk::codegen {
namespace {

/// Whether `op` (or an op inside it) may write memory: an effect other than a read, or
/// effects it does not declare.
bool writesMemory(Operation *op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects = getEffectsRecursively(op);
  return !effects || llvm::any_of(*effects, [](const MemoryEffects::EffectInstance &effect) {
    return !isa<MemoryEffects::Read>(effect.getEffect());
  });
}

} // namespace

bool tilePingPongFits(scf::ForOp loop, ArrayRef<RectangularAccess> accesses,
                      const RectangularAccessAnalysis &analysis) {
  auto kernel = loop->getParentOfType<func::FuncOp>();
  auto why = [&](const char *reason) {
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << kernel.getName() << ": no two programs a CTA: " << reason << "\n");
    return false;
  };
  if (numWarpsOf(kernel) != 4)
    return why("num_warps is not 4 (one warpgroup a program)");
  // One warpgroup holds a whole tile's accumulators: more than 128 registers a thread spill
  // beside the rest (of 232): one 128x256 f32 accumulator, or two of 128x128, the running sum
  // and a dot's own product beside it (block-wise scales, PROMOTE: ptxas spilled 984-1112
  // bytes, session 29). Counted in 32-bit registers: the loop's carried tiles of a dot's type
  // (its running sums, not a carried vector of scales) and each dot whose accumulator comes
  // from outside the loop (a fresh product).
  auto registers = [](RankedTensorType tile) {
    return tile.getNumElements() * int64_t(tile.getElementTypeBitWidth()) / 32;
  };
  SmallVector<DotOp> dots;
  loop.getBody()->walk([&](DotOp dot) { dots.push_back(dot); });
  int64_t accumulators = 0;
  for (BlockArgument carried : loop.getRegionIterArgs())
    if (llvm::any_of(dots, [&](DotOp dot) { return dot.getType() == carried.getType(); }))
      accumulators += registers(cast<RankedTensorType>(carried.getType()));
  for (DotOp dot : dots)
    if (loop.isDefinedOutsideOfLoop(dot.getAcc()))
      accumulators += registers(cast<RankedTensorType>(dot.getType()));
  if (accumulators / threadsOf(kernel) > 128)
    return why("a program's accumulators take more than 128 registers a thread");
  return programsDifferInTilesOnly(loop, accesses, analysis, "two programs a CTA");
}

namespace {

/// A loop over tiles `range(program_id(0), n, num_programs(0))` at the kernel's top level.
bool isTileLoop(Operation *op) {
  auto loop = dyn_cast<scf::ForOp>(op);
  auto first = loop ? loop.getLowerBound().getDefiningOp<ProgramIdOp>() : ProgramIdOp();
  auto step = loop ? loop.getStep().getDefiningOp<NumProgramsOp>() : NumProgramsOp();
  return first && first.getAxis() == 0 && step && step.getAxis() == 0;
}

} // namespace

bool programsDifferInTilesOnly(scf::ForOp loop, ArrayRef<RectangularAccess> accesses,
                               const RectangularAccessAnalysis &analysis, llvm::StringRef what) {
  auto kernel = loop->getParentOfType<func::FuncOp>();
  auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
  auto why = [&](const char *reason) {
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << kernel.getName() << ": no " << what << ": " << reason << "\n");
    return false;
  };
  if (!outer || outer->getBlock() != &kernel.front())
    return why("the loop of dots is not directly in a loop over tiles at the kernel's top level");
  if (!isTileLoop(outer))
    return why("the tiles are not range(program_id(0), n, num_programs(0))");
  // An odd grid gets one more program (a CTA holds two, or a cluster two CTAs), and
  // num_programs(0) counts it: the loops over tiles share the tiles among them all (each
  // still runs once), but nothing else may depend on the program: program_id(0) only starts
  // loops over tiles, and nothing outside them writes memory (an extra program would write
  // again). num_programs(0) is the same in every program, so it may shape anything (the
  // loops' steps, TAIL_SPLIT's whole waves and the tiles after them).
  bool otherUses = false;
  kernel.walk([&](ProgramIdOp id) {
    if (id.getAxis() == 0)
      otherUses |= llvm::any_of(id->getUses(), [](OpOperand &use) {
        return !isTileLoop(use.getOwner()) || use.getOperandNumber() != 0; // (the lower bound)
      });
  });
  if (otherUses)
    return why("program_id(0) is used otherwise than to start loops over tiles");
  // (Waiting for the kernel ahead, as every program does, writes nothing.)
  for (Operation &op : kernel.front())
    if (!isTileLoop(&op) && !isa<GridDependencyWaitOp, LaunchDependentsOp>(op) && writesMemory(&op))
      return why("an op outside the loops over tiles writes memory");
  for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep(), outer.getUpperBound()})
    if (!outer.isDefinedOutsideOfLoop(bound))
      return why("the k-loop's bounds differ from tile to tile");
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> inputs = producerInputs(loop, accesses, analysis);
  inputs.push_back(outer.getUpperBound());
  for (Value v : inputs)
    if (!collectScalarSlice(v, kernel, loop, slice))
      return false;
  Value first = outer.getLowerBound();
  for (Operation *op : slice)
    if (isa<ProgramIdOp>(op) || llvm::is_contained(op->getOperands(), first))
      return why("the copies depend on the program otherwise than through the tile index");
  return true;
}

Value programsApart(OpBuilder &b, Location loc, Value programs) {
  return arith::ShRUIOp::create(b, loc, programs, i32Constant(b, loc, 1));
}

Value tripCount(OpBuilder &b, Location loc, Value lb, Value ub, Value step) {
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  Value steps = arith::DivSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, span, arith::SubIOp::create(b, loc, step, i32Constant(b, loc, 1))), step);
  Value ran = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub);
  return arith::SelectOp::create(b, loc, ran, steps, i32Constant(b, loc, 0));
}

std::pair<Value, Value> advanceRingPosition(OpBuilder &b, Location loc, Value stage, Value parity, Value count,
                                            int64_t stages) {
  Value s = i32Constant(b, loc, stages);
  Value at = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, parity, s), stage);
  Value next = arith::RemUIOp::create(b, loc, arith::AddIOp::create(b, loc, at, count), i32Constant(b, loc, 2 * stages));
  return {arith::RemUIOp::create(b, loc, next, s), arith::DivUIOp::create(b, loc, next, s)};
}

/// The two programs of a CTA take turns at their tiles' k-loops (tkg.mma_turn_take/pass,
/// named barriers): program 1's loop starts only once program 0's has waited for all its
/// stages and the other way round. This is what keeps a program's full-barrier waits at
/// most one phase ahead of the barrier (a parity wait cannot tell phases two apart); it
/// also gives one program's epilogue the time of the other's MMAs. Program 1 gives program
/// 0 the first turn; after the tiles, each takes the turns the other still passes to it
/// (program 0 has as many tiles as program 1 or one more).
void takeTileTurns(scf::ForOp pipelined, scf::ForOp outer, bool afterAnother) {
  Location loc = pipelined.getLoc();
  OpBuilder b(pipelined);
  MmaTurnTakeOp::create(b, loc, IntegerAttr());
  b.setInsertionPointAfter(pipelined);
  MmaTurnPassOp::create(b, loc, IntegerAttr());
  b.setInsertionPoint(outer);
  if (afterAnother) {
    // After an earlier loop's turns, both programs meet before this loop's first: program 1's
    // pass below must not arrive on program 0's turn barrier while program 0 has yet to take
    // the earlier loop's last pass there (two arrivals of 128 threads would complete the
    // barrier of 256 without program 0). Each program reaches it in its own copy of the code
    // (tk-specialize-programs), so it is not `.aligned` (bar.sync is): all threads of an aligned
    // barrier must run one instruction, and synccheck reports two copies' bar.sync as divergent.
    inlinePtx(b, loc, TypeRange{}, ValueRange{}, llvm::formatv("barrier.sync {0}, 256;", kProgramsMeetBarrier).str(), "",
              /*sideEffects=*/true);
  }
  MmaTurnPassOp::create(b, loc, b.getI32IntegerAttr(1));
  // The tiles of the CTA's other program: `apart` after this one (program 1, seen from program
  // 0) or before it (program 0, seen from program 1).
  Value pid = outer.getLowerBound(), ub = outer.getUpperBound(), step = outer.getStep();
  b.setInsertionPointAfter(outer);
  Value apart = programsApart(b, loc, step);
  auto tilesFrom = [&](Value first) { return tripCount(b, loc, first, ub, step); };
  Value mine = tilesFrom(pid);
  // Program 0: one more take when program 1 has as many tiles (its first pass is left);
  // program 1: one more when program 0 has one tile more (program 0's last pass is left).
  Value sameAsNext = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           tilesFrom(arith::AddIOp::create(b, loc, pid, apart)), mine);
  Value fewerThanPrevious = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                                  tilesFrom(arith::SubIOp::create(b, loc, pid, apart)), mine);
  SmallVector<Value, 2> extraTurn{sameAsNext, fewerThanPrevious};
  for (auto [program, extra] : llvm::enumerate(extraTurn)) {
    OpBuilder inside = scf::IfOp::create(b, loc, TypeRange{}, extra, false).getThenBodyBuilder();
    MmaTurnTakeOp::create(inside, loc, inside.getI32IntegerAttr(int32_t(program)));
  }
}

} // namespace tk::codegen
