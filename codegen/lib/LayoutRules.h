// The per-op layout rules of tk-assign-layouts: the state they read and write, and the op
// interface each op with tiles implements (LayoutRules.td; models in LayoutRules.cpp).
#ifndef TK_CODEGEN_LAYOUTRULES_H
#define TK_CODEGEN_LAYOUTRULES_H

#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include "llvm/ADT/DenseMap.h"

namespace tk::codegen {
using namespace ::tk::gpu;

/// What tk-assign-layouts has decided so far: the tiles held in a layout other than the
/// default blocked one (tensor-core accumulators, what follows from them without moving data).
class LayoutState {
public:
  LayoutState(int64_t threads, bool warpgroupMma, int64_t vectorWidth)
      : threads_(threads), warpgroupMma_(warpgroupMma), vectorWidth_(vectorWidth) {}
  /// The non-default layout of a tile, or null (the default).
  const LayoutBits *layoutOf(mlir::Value value) const {
    auto it = assigned_.find(value);
    return it == assigned_.end() ? nullptr : &it->second;
  }
  /// Gives a tile a layout unless it has one already (the first decision stays); returns
  /// whether it took this one.
  bool assign(mlir::Value value, LayoutBits bits) { return assigned_.try_emplace(value, std::move(bits)).second; }
  /// Whether `value` has been given exactly `bits`.
  bool hasLayout(mlir::Value value, const LayoutBits &bits) const {
    const LayoutBits *own = layoutOf(value);
    return own && *own == bits;
  }
  int64_t threads() const { return threads_; }
  bool warpgroupMma() const { return warpgroupMma_; }
  /// Whether rules may start from the default layout (a reduction's slice of it): only once
  /// the layouts that follow from tensor-core dots have settled, so that none of them is
  /// pre-empted by a default one.
  bool defaultSlices() const { return defaultSlices_; }
  void allowDefaultSlices() { defaultSlices_ = true; }
  /// The default (blocked) layout's bits of a tile of `elements` elements.
  LayoutBits defaultBits(int64_t elements) const {
    return bitsOf(BlockedLayout::of(elements, threads_, vectorWidth_));
  }
  const llvm::DenseMap<mlir::Value, LayoutBits> &assigned() const { return assigned_; }

private:
  int64_t threads_;
  bool warpgroupMma_;
  int64_t vectorWidth_;
  bool defaultSlices_ = false;
  llvm::DenseMap<mlir::Value, LayoutBits> assigned_;
};

/// Tiles whose every element is the same value (splats): they sit in any layout as they are.
bool isUniform(mlir::Value value);
bool isTile(mlir::Value value);
/// The value whose layout an operand must arrive in: an elementwise op's, addptr's or load's
/// result, a dot's for
/// its accumulator, a loop's iteration argument for its init and its yield, a branch's result
/// for its yields. Null for any other operand.
mlir::Value layoutPartner(mlir::OpOperand &operand);

/// The rule of ops with the `Elementwise` trait (arith, math, tk's own): the result takes the
/// one non-default layout of its operands, which must all arrive in it.
bool inferElementwiseLayout(mlir::Operation *op, LayoutState &state);
bool elementwiseAcceptsLayout(mlir::OpOperand &operand, const LayoutState &state);

/// Attaches the rules to the ops of tk, tkg and scf.
void registerLayoutRules(mlir::DialectRegistry &registry);

} // namespace tk::codegen

#include "tk/Codegen/LayoutRules.h.inc"

#endif
