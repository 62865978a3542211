// Two programs a CTA (`warp_specialize: 3`): ring positions and turns (ProgramsPerCta.h).
#include "ProgramsPerCta.h"
#include "IndexArithmetic.h"
#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace tk::codegen {

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
void takeTileTurns(scf::ForOp pipelined, scf::ForOp outer) {
  Location loc = pipelined.getLoc();
  OpBuilder b(pipelined);
  MmaTurnTakeOp::create(b, loc, IntegerAttr());
  b.setInsertionPointAfter(pipelined);
  MmaTurnPassOp::create(b, loc, IntegerAttr());
  b.setInsertionPoint(outer);
  MmaTurnPassOp::create(b, loc, b.getI32IntegerAttr(1));
  // The tiles of the program `delta` away (its loop from program_id + delta).
  Value pid = outer.getLowerBound(), ub = outer.getUpperBound(), step = outer.getStep();
  b.setInsertionPointAfter(outer);
  auto tilesFrom = [&](int64_t delta) {
    return tripCount(b, loc, arith::AddIOp::create(b, loc, pid, i32Constant(b, loc, delta)), ub, step);
  };
  Value mine = tilesFrom(0);
  // Program 0: one more take when program 1 has as many tiles (its first pass is left);
  // program 1: one more when program 0 has one tile more (program 0's last pass is left).
  Value sameAsNext = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tilesFrom(1), mine);
  Value fewerThanPrevious = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, tilesFrom(-1), mine);
  SmallVector<Value, 2> extraTurn{sameAsNext, fewerThanPrevious};
  for (auto [program, extra] : llvm::enumerate(extraTurn)) {
    OpBuilder inside = scf::IfOp::create(b, loc, TypeRange{}, extra, false).getThenBodyBuilder();
    MmaTurnTakeOp::create(inside, loc, inside.getI32IntegerAttr(int32_t(program)));
  }
}

} // namespace tk::codegen
