// An op's bytes of the kernel's shared buffer (`tk_smem`), and the moves of a tile's elements
// between threads through them.
#ifndef TK_CODEGEN_SHAREDREGION_H
#define TK_CODEGEN_SHAREDREGION_H

#include "IndexArithmetic.h"

namespace tk::codegen {

/// A barrier of the threads the kernel's tiles are laid out over: `bar.sync 0` (the whole
/// program), or, in a warp-specialized kernel, named barrier 1 of its consumer threads (the
/// producer warpgroup never joins).
void programBarrier(mlir::OpBuilder &b, mlir::Location loc);

/// The bytes of the kernel's shared buffer (`tk_smem`) that `tk-allocate-shared` gave an op, through
/// which its threads exchange values: a barrier before the first write when an earlier use
/// (or the previous loop iteration) may still be reading them, and one after the writes.
class SharedRegion {
public:
  SharedRegion(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op);
  /// Element `index` of an array of `type` starting `byteOffset` bytes into the region.
  mlir::Value address(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type, mlir::Value index,
                      int64_t byteOffset = 0) const;
  void store(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value, mlir::Value index,
             int64_t byteOffset = 0) const;
  mlir::Value load(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type, mlir::Value index,
                   int64_t byteOffset = 0) const;
  /// Slot `index` of group `group`: groups of 32 slots of 8 bytes, for values of up to 64 bits.
  mlir::Value slot(mlir::OpBuilder &b, mlir::Location loc, int64_t group, mlir::Value index) const;
  void beginWrites(mlir::OpBuilder &b, mlir::Location loc) const;
  void endWrites(mlir::OpBuilder &b, mlir::Location loc) const;
  /// values[k] into group k at `index`, stored by the threads where
  /// `writer` holds, between the barriers; afterwards every thread may read them.
  void publish(mlir::OpBuilder &b, mlir::Location loc, mlir::Value writer, mlir::ValueRange values,
               mlir::Value index) const;

  /// The region's first byte.
  mlir::Value base() const { return base_; }

private:
  mlir::Value base_;
  bool leadingBarrier_ = true;
};

/// The values of a tile under `resultLayout` whose slot s holds the source element at
/// `map(index of s)`: taken from the thread's own slots when it holds them all, otherwise
/// written to the op's shared region by their owners and read back. With `matrixStores`
/// (sm_90), a 16-bit tile from an accumulator layout to the blocked one goes by stmatrix
/// (MatrixStores).
llvm::SmallVector<mlir::Value> redistribute(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                                            mlir::ValueRange source, const Distribution &sourceLayout,
                                            const Distribution &resultLayout, const BitMap &map,
                                            bool matrixStores = false);
/// Index bits along which a move of `bytes` bytes between two layouts goes in rounds so that
/// each round fits the shared buffer: bits that are slot bits of both.
std::vector<int> roundBits(const Distribution &source, const Distribution &result, int64_t bytes);
/// The same, always through shared memory (the owners' values reach their replicas).
llvm::SmallVector<mlir::Value> throughShared(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                                             mlir::ValueRange source, const Distribution &sourceLayout,
                                             const Distribution &resultLayout, const BitMap &map,
                                             bool matrixStores = false);

} // namespace tk::codegen

#endif
