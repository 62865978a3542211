// A 16-bit tile in a tensor-core accumulator layout written to shared memory with stmatrix
// (sm_90) into a bank-conflict-free arrangement, and read back in the blocked layout with
// vector loads: the epilogue's move of a matmul's rounded result before its coalesced store.
#ifndef TK_CODEGEN_MATRIXSTORES_H
#define TK_CODEGEN_MATRIXSTORES_H

#include "IndexArithmetic.h"
#include "SharedRegion.h"

namespace tk::codegen {

/// The stmatrix.x4 instructions that write an accumulator-like layout's slots: which two slot
/// bits pick an x4's four matrices (lane bits 3 and 4 of the row addresses), which the
/// instruction, and where each lane's row address points in the tile (a distribution whose
/// thread bits are the rows' lane bits 2-4, then the matrix bits, then the warp's, and whose
/// slots are the instructions). Matrix bits are the first slot bits above bit 0 that
/// `mayPickMatrix` accepts.
struct MatrixFragments {
  int matrixSlots[2] = {0, 0};
  std::vector<int> instructionSlots;
  Distribution rowAddresses;
  /// None when `source` is not accumulator-like: the pair in a register, the lanes' columns, 8
  /// rows from lane bits 2-4, no replicas (every lane of a warp takes part in each stmatrix).
  static std::optional<MatrixFragments> of(const Distribution &source, llvm::function_ref<bool(int)> mayPickMatrix);
  /// The source slot of matrix `matrix` (0-3) of instruction `instruction` (its register's
  /// lower element; the higher is the slot after it).
  int64_t slot(int64_t instruction, int matrix) const;
};

/// stmatrix.x4 stores four 8x8 matrices of 16-bit elements: lane l gives the address of row
/// l % 8 of matrix l / 8 (16 contiguous bytes), and register k of lane l holds matrix k's
/// elements (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1), the lower column in the low half.
/// An accumulator layout is exactly that: slot bit 0 and lane bits 0, 1 are element index
/// bits 0, 1, 2 (a matrix row is 8 contiguous elements, 16 bytes), lane bits 2-4 pick the
/// rows; two more slot bits pick the matrix, the remaining slot bits the instruction.
///
/// In the region, 16-byte chunks are XOR-swizzled: the three index bits of the matrix rows
/// are XORed into the chunk's low three bits (those the rows do not already vary), so the 8
/// rows of each matrix land in 8 different 16-byte bank groups; the blocked layout's reads of
/// up to 16 contiguous bytes by consecutive threads cover whole aligned groups of 8 chunks,
/// which the XOR (by higher bits only) permutes among themselves: both sides conflict-free.
class MatrixStores {
public:
  /// The plan for moving a tile of `type` from `source` to `result` through a region whose
  /// element index is the tile's remapped by `packed` (a move in rounds drops the round bits),
  /// or none: not 16-bit, not an accumulator-like source, not to a blocked layout that holds
  /// every element once, or rounds that would split an instruction's slots.
  static std::optional<MatrixStores> plan(const Distribution &source, const Distribution &result, mlir::Type type,
                                          const BitMap &packed);

  /// The region's element index for the tile's element `index`.
  mlir::Value place(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index) const;
  /// Stores the source slots for which `inRound` holds, 8 per stmatrix.x4 (every lane takes
  /// part: the source layout has no replicas).
  void store(mlir::OpBuilder &b, mlir::Location loc, const SharedRegion &region, mlir::ValueRange source,
             mlir::Value tid, llvm::function_ref<bool(int64_t)> inRound) const;
  /// Reads the result slots for which `inRound` holds into `result`, in runs of up to 8
  /// contiguous elements per vector load.
  void load(mlir::OpBuilder &b, mlir::Location loc, const SharedRegion &region, mlir::Type type, mlir::Value tid,
            llvm::function_ref<bool(int64_t)> inRound, llvm::MutableArrayRef<mlir::Value> result) const;

private:
  Distribution source_, result_;
  BitMap packed_, swizzle_; // the region index's bits; which of them XOR into a chunk's low bits
  MatrixFragments fragments_;
  int64_t readWidth_;
};

} // namespace tk::codegen

#endif
