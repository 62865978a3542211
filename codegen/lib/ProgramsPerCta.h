// Two programs a CTA (`warp_specialize: 3`, TmaPipeline.cpp): the ring positions each program
// reads from and the turns the two take at their tiles' k-loops.
#ifndef TK_CODEGEN_PROGRAMSPERCTA_H
#define TK_CODEGEN_PROGRAMSPERCTA_H

#include "RectangularAccess.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <utility>

namespace tk::codegen {

/// Whether two programs of 4 warps can share a CTA and its producer (`warp_specialize: 3`),
/// each on its own tiles: programsDifferInTilesOnly (the producer fills both programs' tiles,
/// program 1's `programsApart` after program 0's), and accumulators of at most 128 registers
/// a thread (the k-loop's carried tiles of a dot's type and the dots' fresh products beside
/// them).
bool tilePingPongFits(mlir::scf::ForOp loop, llvm::ArrayRef<RectangularAccess> accesses,
                      const RectangularAccessAnalysis &analysis);

/// Whether a persistent kernel's programs differ in their tiles only, as two programs a CTA
/// and clusters (`what`, for the debug log) need: the loop of dots directly in a loop over
/// tiles `range(program_id(0), n, num_programs(0))` at the kernel's top level, program_id(0)
/// starting such loops and nothing else (num_programs(0), the same in every program, may
/// shape anything: TAIL_SPLIT's whole waves), nothing outside them writing memory, the
/// k-loop's bounds the same for every tile, and the copies' coordinates depending on the
/// program only through the tile index. (A launcher may then add a program: the tiles are
/// shared among them all, each still run once.)
bool programsDifferInTilesOnly(mlir::scf::ForOp loop, llvm::ArrayRef<RectangularAccess> accesses,
                               const RectangularAccessAnalysis &analysis, llvm::StringRef what);

/// With two programs a CTA, program w of CTA c is w * C + c of `programs` = 2C (gridIndex): how
/// far apart the CTA's two programs' ids are, and so their tiles at each step of a loop over
/// tiles `range(program_id(0), n, programs)`: C.
mlir::Value programsApart(mlir::OpBuilder &b, mlir::Location loc, mlir::Value programs);

/// cdiv(ub - lb, step) when lb < ub, else 0 (i32, a positive step).
mlir::Value tripCount(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lb, mlir::Value ub, mlir::Value step);

/// The position of a ring of `stages` stages `count` (< 2 * stages) positions after (stage,
/// parity): (stage', parity').
std::pair<mlir::Value, mlir::Value> advanceRingPosition(mlir::OpBuilder &b, mlir::Location loc, mlir::Value stage,
                                                        mlir::Value parity, mlir::Value count, int64_t stages);

/// The named barrier (of both programs' 256 threads) at which they meet between two loops over
/// tiles (after the programs' own, 1 and 2, and their turns', 3 and 4).
constexpr int64_t kProgramsMeetBarrier = 5;

/// The turns of a CTA's two programs at the k-loop `pipelined` of their tiles (in `outer`,
/// `range(program_id(0), n, num_programs(0))`); `afterAnother`: an earlier loop over tiles
/// took turns too (the programs meet first).
void takeTileTurns(mlir::scf::ForOp pipelined, mlir::scf::ForOp outer, bool afterAnother);

} // namespace tk::codegen

#endif
