// The tkg dialect: the GPU backend's layouts, shared-memory buffers and asynchronous ops.
#ifndef TK_DIALECT_TKGPU_IR_TKGPU_H
#define TK_DIALECT_TKGPU_IR_TKGPU_H

#include "tk/Dialect/Tk/IR/Tk.h"
#include "tk/Dialect/TkGpu/IR/ThreadLayouts.h"

#include "mlir/IR/TensorEncoding.h"

#include "tk/Dialect/TkGpu/IR/TkgDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tk/Dialect/TkGpu/IR/TkgTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tk/Dialect/TkGpu/IR/TkgAttrs.h.inc"

#define GET_OP_CLASSES
#include "tk/Dialect/TkGpu/IR/TkgOps.h.inc"

namespace tk::gpu {

/// Tiles of more elements have no layout (the front end's limit on a tile).
constexpr int64_t kMaxLayoutElements = int64_t(1) << 20;
/// Whether tiles of `shape` can take a layout: static dimensions of 2^k elements, at most
/// kMaxLayoutElements in all.
mlir::LogicalResult verifyLayoutShape(llvm::ArrayRef<int64_t> shape,
                                      llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// The threads of a program: the kernel's warps (tk::numWarpsOf) times 32.
int64_t threadsOf(mlir::Operation *kernelOrInside);
/// The warps of a kernel's producer warpgroup (`tkg.producer_warps`, set by a warp-specialized
/// TMA pipeline), 0 for none; they come after the threadsOf threads the tiles are laid out over.
int64_t producerWarpsOf(mlir::Operation *kernelOrInside);
/// The programs a kernel's CTA holds (`tkg.programs_per_cta`, `warp_specialize: 3`), else 1.
int64_t programsPerCtaOf(mlir::Operation *kernelOrInside);
/// The CTAs of a kernel's clusters (`tkg.cluster_ctas`, `cluster_size: 2`), else 1.
int64_t clusterCtasOf(mlir::Operation *kernelOrInside);
/// The threads a kernel is launched with: threadsOf times programsPerCtaOf, plus the producer's.
int64_t launchThreadsOf(mlir::Operation *kernelOrInside);

/// The blocked layout of a tile type under `#tkg.blocked`; none for other encodings.
std::optional<BlockedLayout> blockedLayoutOf(mlir::Type type);
/// The layout bits of a tile type under either encoding; none for a tile without one.
std::optional<LayoutBits> layoutBitsOf(mlir::Type type);
/// Whether a tile type is held in a `#tkg.linear` layout (a tensor-core accumulator's).
bool hasLinearLayout(mlir::Type type);
/// The scalars one thread keeps of a tile type under its encoding (1 for a scalar type).
int64_t scalarsPerThread(mlir::Type type);
/// `#tkg.linear` of the bits (thread bits: 5 lane bits, then the warp bits).
LinearLayoutAttr linearLayout(mlir::MLIRContext *context, const LayoutBits &bits);
/// The tile type `type` with layout `encoding`.
mlir::RankedTensorType withLayout(mlir::Type type, mlir::Attribute encoding);

} // namespace tk::gpu

#endif
