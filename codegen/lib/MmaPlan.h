// Whether and how a `dot` runs on tensor cores: the split of its result over warps (mma.sync)
// or warpgroups (wgmma), and the accumulator layout that follows (AccumulatorLayouts.h).
#ifndef TK_CODEGEN_MMAPLAN_H
#define TK_CODEGEN_MMAPLAN_H

#include "MemoryTypes.h"
#include "tk/Dialect/TkGpu/IR/TkGpu.h"

namespace tk::codegen {
using namespace ::tk::gpu;

/// A tensor-core `dot`: how the warps split the result, and the accumulator's layout. None
/// when the shapes or types do not fit. On mma.sync, warps split it warpsM x warpsN, each
/// computing mTiles x nTiles m16n8 tiles. On wgmma (`warpgroup`), warpgroups of 4 warps split
/// it warpsM x warpsN, each issuing m64nNk16 with N = nTiles * 8 for each of mTiles 64-row
/// tiles (warp w of a group holds rows 16w .. 16w + 15 of each: the mma.sync m16n8 layout).
struct MmaPlan {
  int64_t warpsM = 1, warpsN = 1, mTiles = 1, nTiles = 1;
  bool warpgroup = false;
  LayoutBits accumulator;
};
/// `warpgroupMma`: the dot may run on wgmma (sm_90a), which it does when both operands are
/// stages of 2-byte elements (A as rows of K), or of FP8 (both K-major: B from a `trans`
/// stage), and the warpgroups can split it. Otherwise mma.sync, FP8 too (m16n8k32, sm_89+).
std::optional<MmaPlan> planMma(DotOp op, int64_t threads, bool warpgroupMma = false);
/// The wgmma plan of a dot whose operands are stages (A as rows of K, B as rows of N when
/// `bRowsOfN`), when wgmma takes its shapes and types; planMma checks the stages.
std::optional<MmaPlan> planWarpgroupShapes(DotOp op, int64_t threads, bool bRowsOfN);
/// The k of one mma.sync for operands of `element`: two 16-byte chunks (16 for 2-byte
/// elements, 8 for tf32, 32 for i8); wgmma's likewise (16, and 32 for FP8).
inline int64_t mmaKStep(mlir::Type element) { return 2 * 16 / elementBytes(element); }
/// Whether `op` runs on tensor cores once its loads are staged (the pipeliner's question, asked
/// before there are stages): mma.sync's plan, or an FP8 dot's wgmma plan (A as loaded, B
/// through `trans`: both K-major).
bool takesTensorCores(DotOp op, int64_t threads);
/// The layout in which a tensor-core dot takes A from registers: the accumulator layout of
/// an earlier dot over the same rows (attention's P), when every warp holds whole rows.
std::optional<LayoutBits> registerOperandBits(DotOp op, int64_t threads, bool warpgroupMma = false);
/// Operands of a mma.sync dot loaded straight into its fragments ("loaded fragments": a GEMV's
/// weights and activations, no shared memory): A [m, k] and B [k, n] in layouts whose K is
/// permuted the same way, so that each thread holds runs of up to 16 contiguous k (one 16-byte
/// load of f8) and the products still pair A's k with B's. With logical k = 16 kk + 8 q + 2 t +
/// p (k-step kk, half q, lane-in-group t, pair p) the physical k bits are p, q, the low `c` bits
/// of kk (c = min(2, log2(k / 16))), t, then kk's other bits. Only where warps split the rows
/// alone (B is replicated over them): operandNumber 0 (A) or 1 (B); none otherwise.
std::optional<LayoutBits> loadedOperandBits(DotOp op, int64_t threads, unsigned operandNumber);
/// The slot of a loaded fragment's element: A's (m-tile, k-step, half, pair, row + 8) and B's
/// (n-tile, k-step, half, pair); k the dot's K.
int64_t loadedASlot(int64_t k, int64_t mTile, int64_t kStep, int64_t half, int64_t pair, int64_t rowHalf);
int64_t loadedBSlot(int64_t k, int64_t nTile, int64_t kStep, int64_t half, int64_t pair);
/// Whether a mma.sync dot's operands are loaded fragments (their assigned layouts).
bool takesLoadedFragments(DotOp op, int64_t threads);
/// Whether a wgmma dot takes A from registers: A's layout (assigned) is registerOperandBits'.
bool warpgroupAInRegisters(DotOp op, int64_t threads);

} // namespace tk::codegen

#endif
