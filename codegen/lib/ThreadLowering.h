// Shared pieces of the tk-to-threads conversion: the 1:N type converter and helpers that build
// per-thread index arithmetic. One populate function per op family.
#ifndef TK_CODEGEN_THREADLOWERING_H
#define TK_CODEGEN_THREADLOWERING_H

#include "AccumulatorLayouts.h"
#include "AxisAnalysis.h"
#include "Swizzle.h"
#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include <map>

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tk::codegen {
using namespace ::tk::gpu;

/// Static shared memory a kernel may use (more needs the dynamic opt-in).
constexpr int64_t kSharedLimit = 48 * 1024;

/// Converts tiles to the scalars one thread holds under the layout in their type, and tk
/// pointers to global LLVM pointers.
class ThreadTypeConverter : public mlir::TypeConverter {
public:
  ThreadTypeConverter(mlir::MLIRContext *context, int64_t threads);
  /// The blocked layout of a tile type (a scalar: one element every thread holds).
  BlockedLayout layoutOf(mlir::Type type) const;
  int64_t threads() const { return threads_; }
  /// Whether tensor-core dots may run on Hopper's wgmma (sm_90a).
  bool warpgroupMma() const { return warpgroupMma_; }
  void setWarpgroupMma(bool on) { warpgroupMma_ = on; }

private:
  int64_t threads_;
  bool warpgroupMma_ = false;
};

/// Per-kernel facts the patterns need.
struct KernelInfo {
  const ThreadTypeConverter *converter;
  const AxisAnalysis *axis;
};

mlir::Value i32Constant(mlir::OpBuilder &b, mlir::Location loc, int64_t value);
mlir::Value threadId(mlir::OpBuilder &b, mlir::Location loc);
/// The index of the element that slot `slot` of this thread holds under `layout`.
mlir::Value elementIndex(mlir::OpBuilder &b, mlir::Location loc, const BlockedLayout &layout, int64_t slot,
                         mlir::Value tid);
/// The LLVM type of an element stored in memory (i1 and the f8 formats are stored as bytes).
mlir::Type memoryType(mlir::Type element);
/// A value as memory holds it, and back.
mlir::Value toMemory(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value);
mlir::Value fromMemory(mlir::OpBuilder &b, mlir::Location loc, mlir::Value stored, mlir::Type type);
/// Applies a reduce/scan combine region to (accumulators..., next values...).
llvm::SmallVector<mlir::Value> combineRegion(mlir::OpBuilder &b, mlir::Region &region, mlir::ValueRange acc,
                                             mlir::ValueRange next);
/// shfl.sync of any scalar of up to 64 bits (through i32 pieces); `clamp` is the PTX c operand.
mlir::Value shuffle(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value, int64_t offset,
                    mlir::NVVM::ShflKind kind, int64_t clamp);
/// How a tile's elements sit in a program's threads: the default blocked layout, or another
/// linear layout (the tensor-core accumulator's), as bits of the element index.
struct Distribution {
  LayoutBits bits;
  std::optional<BlockedLayout> blocked; // the default layout (its index arithmetic is add/mul)
  static Distribution of(const BlockedLayout &l) { return {bitsOf(l), l}; }
  int64_t perThread() const { return int64_t(1) << bits.slot.size(); }
};
mlir::Value elementIndex(mlir::OpBuilder &b, mlir::Location loc, const Distribution &d, int64_t slot, mlir::Value tid);
mlir::Value isOwner(mlir::OpBuilder &b, mlir::Location loc, const Distribution &d, mlir::Value tid);

/// Bytes one element of a tile type (or a scalar type) takes in memory: pointers 8, i1 1.
int64_t elementBytes(mlir::Type type);
/// The bit map of a tile of 2^bits elements onto itself.
BitMap identityMap(int bits);

/// Rewrites an element index of one tile into the index of another under a bit map.
mlir::Value remapIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index, const BitMap &map);
/// The bit map from the row-major index of `shape` that drops the bits of `axis`.
BitMap dropAxis(llvm::ArrayRef<int64_t> shape, int64_t axis);
/// Threads that hold distinct elements of a tile under `layout` (the others are replicas).
mlir::Value isOwner(mlir::OpBuilder &b, mlir::Location loc, const BlockedLayout &layout, mlir::Value tid);

/// The bytes of the kernel's shared buffer (`tk_smem`) that `tk-allocate-shared` gave an op, through
/// which its threads exchange values: a barrier before the first write when an earlier use
/// (or the previous loop iteration) may still be reading them, and one after the writes.
class SharedRegion {
public:
  SharedRegion(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op);
  /// Element `index` of an array of `type` starting `byteOffset` bytes into the region.
  mlir::Value address(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type, mlir::Value index,
                      int64_t byteOffset = 0) const;
  void store(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value, mlir::Value index, int64_t byteOffset = 0) const;
  mlir::Value load(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type, mlir::Value index, int64_t byteOffset = 0) const;
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

/// The distribution of a tile under the layout in its type.
Distribution distributionOf(mlir::Value tile);

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
/// stages of 2-byte elements (A as rows of K) and the warpgroups can split it.
std::optional<MmaPlan> planMma(DotOp op, int64_t threads, bool warpgroupMma = false);
/// The wgmma plan of a dot whose operands are stages (A as rows of K, B as rows of N when
/// `bRowsOfN`), when wgmma takes its shapes and types; planMma checks the stages.
std::optional<MmaPlan> planWarpgroupShapes(DotOp op, int64_t threads, bool bRowsOfN);
/// The k of one mma.sync for operands of `element`: two 16-byte chunks (16 for 2-byte
/// elements, 8 for tf32, 32 for i8).
inline int64_t mmaKStep(mlir::Type element) { return 2 * 16 / elementBytes(element); }
/// Lowers a dot whose result is in the accumulator layout (TensorCores.cpp).
void lowerToTensorCores(DotOp op, mlir::ValueRange a, mlir::ValueRange b, mlir::ValueRange acc,
                        mlir::ConversionPatternRewriter &rewriter, const ThreadTypeConverter &converter);
/// Lowers a dot whose plan is on wgmma (WarpgroupMma.cpp).
void lowerToWarpgroupMma(DotOp op, mlir::ValueRange a, mlir::ValueRange acc, mlir::ConversionPatternRewriter &rewriter,
                         const ThreadTypeConverter &converter);
/// The shared bytes a wgmma dot stages A in (none when A is a stage or in registers).
int64_t warpgroupMmaSharedBytes(DotOp op, const ThreadTypeConverter &converter);
/// `wgmma.wait_group pending`, after which `accumulators` (f32, returned) are valid: inline PTX
/// that takes and returns them, so that no use moves above it.
llvm::SmallVector<mlir::Value> waitForWarpgroupMma(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange accumulators,
                                                   int pending);
/// The stage ring a tensor-core operand is read from (`tkg.local_load`), or null.
LocalLoadOp tensorCoreStage(mlir::Value operand, const ThreadTypeConverter &converter);
/// Round to nearest (ties away from zero) at tf32's 10 mantissa bits; inf and NaN unchanged.
mlir::Value roundToTf32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);
/// The layout in which a tensor-core dot takes A from registers: the accumulator layout of
/// an earlier dot over the same rows (attention's P), when every warp holds whole rows.
std::optional<LayoutBits> registerOperandBits(DotOp op, int64_t threads, bool warpgroupMma = false);
/// The A fragment of 16-row tile `tile` and k-step `kk` (16 columns) of an m x k tile `a` held
/// in an accumulator layout: four pairs of 2-byte elements, (row, k) = (g, 2t), (g + 8, 2t),
/// (g, 2t + 8), (g + 8, 2t + 8) — mma.sync's A and wgmma's A from registers alike (a wgmma
/// 64-row tile is 16 rows per warp).
llvm::SmallVector<mlir::Value> registerFragment(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange a, int64_t k,
                                                int64_t tile, int64_t kk);
/// Stages `values` (a tile under layout `l`, rows of `swizzle.rowLength`) into `shared` at
/// `offset`, swizzled, one 16-byte store per chunk of slots (f32 rounded to tf32 first when
/// `tf32`), by the threads that own them.
void stageSwizzled(mlir::OpBuilder &b, mlir::Location loc, const SharedRegion &shared, mlir::ValueRange values,
                   const BlockedLayout &l, mlir::Value tid, int64_t offset, const SwizzleParams &swizzle, bool tf32 = false);
/// Bytes of shared memory an op needs (0: none), by op family.
int64_t sharedBytesOf(mlir::Operation *op, const ThreadTypeConverter &converter);
int64_t reduceSharedBytes(ReduceOp op, const ThreadTypeConverter &converter);
int64_t scanSharedBytes(ScanOp op, const ThreadTypeConverter &converter);
int64_t shapeSharedBytes(mlir::Operation *op, const ThreadTypeConverter &converter);
int64_t convertLayoutSharedBytes(ConvertLayoutOp op, const ThreadTypeConverter &converter);
int64_t dotSharedBytes(DotOp op, const ThreadTypeConverter &converter);
int64_t atomicSharedBytes(mlir::Operation *op, const ThreadTypeConverter &converter);
/// Shared memory one program may use on a GPU of compute capability `sm` (dynamic, opted in).
int64_t maxSharedBytes(int sm);
/// Gives each op that needs shared memory its bytes of `tk_smem`: stage rings first, for the
/// whole kernel; then the exchanges, sharing nothing between ops while they fit in 48 KiB, so
/// that ops which run once need no barrier before writing. Returns the size.
mlir::FailureOr<int64_t> assignShared(mlir::func::FuncOp kernel, const ThreadTypeConverter &converter, int sm);
int64_t roundUp16(int64_t bytes);

/// The values of a tile under `resultLayout` whose slot s holds the source element at
/// `map(index of s)`: taken from the thread's own slots when it holds them all, otherwise
/// written to the op's shared region by their owners and read back.
llvm::SmallVector<mlir::Value> redistribute(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                                            mlir::ValueRange source, const Distribution &sourceLayout,
                                            const Distribution &resultLayout, const BitMap &map);
/// Index bits along which a move of `bytes` bytes between two layouts goes in rounds so that
/// each round fits the shared buffer: bits that are slot bits of both.
std::vector<int> roundBits(const Distribution &source, const Distribution &result, int64_t bytes);
/// The same, always through shared memory (the owners' values reach their replicas).
llvm::SmallVector<mlir::Value> throughShared(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                                             mlir::ValueRange source, const Distribution &sourceLayout,
                                             const Distribution &resultLayout, const BitMap &map);

/// How many consecutive slots one memory instruction covers for a pointer tile and mask
/// (contiguous, aligned, under one mask value, at most 16 bytes).
int64_t vectorSlots(const AxisAnalysis &axis, const BlockedLayout &l, mlir::Value ptr, mlir::Value mask, mlir::Type element);
/// The same for an access of `tile` through `ptr`, within the tile's last dimension.
int64_t accessWidth(const AxisAnalysis &axis, const ThreadTypeConverter &converter, mlir::Value ptr, mlir::Value mask,
                    mlir::RankedTensorType tile);

/// (row, column) of element `index` of a row-major tile with rows of `rowLength`.
std::pair<mlir::Value, mlir::Value> rowAndColumn(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index,
                                                 int64_t rowLength);
/// Element index of (row, column) in a swizzled 2-D array (SwizzleParams as arithmetic).
mlir::Value swizzledIndex(mlir::OpBuilder &b, mlir::Location loc, const SwizzleParams &swizzle, mlir::Value row,
                          mlir::Value column);
/// Swizzled indices of (row + R, column + C) for a thread's row and column and constants R and
/// C, written so that LLVM sees the constants (SwizzleParams::fold): each distinct low chunk of
/// C gets one base index, the rest is an offset that folds into the instruction's address
/// (otherwise every (R, C) keeps its own address register live across a loop).
class SwizzledOffsets {
public:
  SwizzledOffsets(mlir::OpBuilder &b, mlir::Location loc, const SwizzleParams &swizzle, mlir::Value row,
                  mlir::Value column)
      : b_(b), loc_(loc), swizzle_(swizzle), row_(row), column_(column) {}
  mlir::Value at(int64_t rows, int64_t columns);

private:
  mlir::OpBuilder &b_;
  mlir::Location loc_;
  SwizzleParams swizzle_;
  mlir::Value row_, column_;
  std::map<int64_t, mlir::Value> bases_;
};
/// Start of stage `stage` of a shared buffer (an `!llvm.ptr<3>` to its first byte).
mlir::Value stageBase(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer, mlir::Value stage,
                      SharedBufferType type);
/// Whether every user of a `tkg.local_load` is a tensor-core `dot` (which reads the stage itself).
bool feedsTensorCoresOnly(LocalLoadOp op, const ThreadTypeConverter &converter);
int64_t localAllocBytes(LocalAllocOp op);

/// Whether a tile is a cheap function of element indices and scalars (ranges, splats,
/// constants, shape changes, elementwise arithmetic), which a broadcast recomputes in each
/// thread instead of moving it through shared memory.
bool rematerializable(mlir::Value tile);

/// The bit map from a shape op's result element index to its source's.
BitMap resultToSource(mlir::Operation *op);
/// For an integer or pointer tile that is an affine function of its element index (ranges,
/// splats, shape changes, adds, subtracts and multiplies by constants, addptr): what each
/// index bit adds to an element (in elements, for pointers). None for anything else.
std::optional<std::vector<int64_t>> indexBitCoefficients(mlir::Value tile);
/// The pointer of slot `slot` of a pointer tile under the default layout: slot 0's plus a
/// constant when the tile is affine in its index (the slots' index bits are constants or'ed to
/// the thread's), so that one address register serves every slot; otherwise the slot's own.
/// i32 offsets that would overflow inside the tile are not wrapped then.
mlir::Value slotPointer(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptrTile, mlir::ValueRange ptrs,
                        const BlockedLayout &l, size_t slot, const std::optional<std::vector<int64_t>> &coefficients);

/// Operand k of a 1:N adaptor at slot i (a scalar operand serves every slot).
inline mlir::Value slotOf(mlir::ValueRange values, size_t i) { return values.size() == 1 ? values[0] : values[i]; }

void populateElementwiseToThreads(ThreadTypeConverter &converter, const AxisAnalysis &axis, mlir::RewritePatternSet &patterns);
void populateMemoryToThreads(ThreadTypeConverter &converter, const AxisAnalysis &axis, mlir::RewritePatternSet &patterns);
void populateReduceToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateScanToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateRandomToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateShapeToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateDotToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateAsyncCopyToThreads(ThreadTypeConverter &converter, const AxisAnalysis &axis,
                                mlir::RewritePatternSet &patterns);
void populateAtomicToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
/// f8 <-> wider float conversions as integer arithmetic (run before the LLVM conversion).
void populateFloat8CastPatterns(mlir::RewritePatternSet &patterns);
void populateDebugToThreads(ThreadTypeConverter &converter, bool debug, mlir::RewritePatternSet &patterns);

} // namespace tk::codegen

#endif
