// Which tiles live in the tensor-core accumulator layout instead of the default blocked one:
// results of `dot`s that mma.sync computes, and what follows from them without moving data
// (elementwise ops on them, loop-carried accumulators). Where such a tile meets any other op,
// a `tk.convert_layout` moves it to the default layout through shared memory.
#include "ThreadLowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tk::codegen {

namespace {

/// Tiles whose every element is the same value sit in any layout as they are.
bool isUniform(Value value) {
  Operation *def = value.getDefiningOp();
  if (auto constant = dyn_cast_or_null<arith::ConstantOp>(def))
    return isa<SplatElementsAttr>(constant.getValue());
  return isa_and_nonnull<SplatOp>(def);
}

bool isTile(Value value) { return isa<RankedTensorType>(value.getType()); }

bool sameBits(const LayoutBits &a, const LayoutBits &b) { return a.slot == b.slot && a.thread == b.thread; }

class Assignment {
public:
  Assignment(func::FuncOp kernel, int64_t threads) : kernel_(kernel), threads_(threads) {}

  void propagate() {
    for (bool changed = true; changed;) {
      changed = false;
      kernel_.walk([&](Operation *op) {
        if (auto dot = dyn_cast<DotOp>(op)) {
          if (special_.count(dot.getResult()))
            return;
          auto plan = planMma(dot, threads_);
          if (!plan)
            return;
          if (isUniform(dot.getAcc()) ||
              (special_.count(dot.getAcc()) && sameBits(special_.at(dot.getAcc()), plan->accumulator))) {
            changed |= mark(dot.getResult(), plan->accumulator);
            return;
          }
          // The accumulator of a loop, carried from a uniform start: `acc = dot(a, b, f(acc))`.
          // Optimistically in the mma layout; f (elementwise, with broadcast row scales) follows,
          // and whatever does not is converted (insertConversions).
          auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
          if (!loop)
            return;
          for (OpOperand &use : dot.getResult().getUses()) {
            unsigned k = use.getOperandNumber();
            if (use.getOwner() != loop.getBody()->getTerminator() || !isUniform(loop.getInitArgs()[k]))
              continue;
            changed |= mark(dot.getResult(), plan->accumulator);
            changed |= mark(loop.getRegionIterArgs()[k], plan->accumulator);
            changed |= mark(loop.getResult(k), plan->accumulator);
          }
          return;
        }
        if (auto loop = dyn_cast<scf::ForOp>(op)) {
          auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
          for (auto [k, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
            auto it = special_.find(yield.getOperand(k));
            Value init = loop.getInitArgs()[k];
            if (it == special_.end() || special_.count(arg))
              continue;
            if (isUniform(init) || (special_.count(init) && sameBits(special_.at(init), it->second))) {
              LayoutBits bits = it->second;
              changed |= mark(arg, bits);
              changed |= mark(loop.getResult(k), bits);
            }
          }
          return;
        }
        if (op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1 && isTile(op->getResult(0)) &&
            !special_.count(op->getResult(0))) {
          // Operands: uniform, in one special layout, or adoptable (below), which then produce
          // that layout themselves.
          const LayoutBits *layout = nullptr;
          SmallVector<Value> adopted;
          for (Value operand : op->getOperands()) {
            if (!isTile(operand) || isUniform(operand))
              continue;
            auto it = special_.find(operand);
            if (it == special_.end()) {
              if (!adoptable(operand, adopted, 6))
                return;
              continue;
            }
            if (layout && !sameBits(*layout, it->second))
              return;
            layout = &it->second;
          }
          if (!layout)
            return;
          LayoutBits bits = *layout;
          for (Value value : adopted)
            changed |= mark(value, bits);
          changed |= mark(op->getResult(0), bits);
        }
      });
    }
  }

  /// Every use of a special tile by an op that does not take it in that layout gets a
  /// convert_layout to the default layout first; an mma dot's accumulator and a special loop
  /// value's yield that arrive in the default layout get one to the special layout.
  void insertConversions() {
    SmallVector<OpOperand *> uses;
    for (auto &[value, bits] : special_)
      for (OpOperand &use : value.getUses())
        if (!acceptsSpecial(use))
          uses.push_back(&use);
    for (OpOperand *use : uses) {
      OpBuilder b(use->getOwner());
      auto convert = ConvertLayoutOp::create(b, use->getOwner()->getLoc(), use->get().getType(), use->get());
      use->set(convert.getResult());
    }
    SmallVector<std::pair<OpOperand *, LayoutBits>> into;
    kernel_.walk([&](Operation *op) {
      auto needs = [&](OpOperand &use, Value wanting) {
        auto it = special_.find(wanting);
        if (it != special_.end() && !isUniform(use.get()) && !special_.count(use.get()))
          into.push_back({&use, it->second});
      };
      if (auto dot = dyn_cast<DotOp>(op))
        needs(dot.getAccMutable(), dot.getResult());
      else if (auto yield = dyn_cast<scf::YieldOp>(op); yield && isa<scf::ForOp>(op->getParentOp()))
        for (OpOperand &operand : yield->getOpOperands())
          needs(operand, cast<scf::ForOp>(op->getParentOp()).getRegionIterArgs()[operand.getOperandNumber()]);
    });
    for (auto &[use, bits] : into) {
      OpBuilder b(use->getOwner());
      auto convert = ConvertLayoutOp::create(b, use->getOwner()->getLoc(), use->get().getType(), use->get());
      use->set(convert.getResult());
      mark(convert.getResult(), bits);
    }
  }

  const llvm::DenseMap<Value, LayoutBits> &special() const { return special_; }

private:
  /// A tile used once that can be produced in any layout where it is needed: a broadcast
  /// (each thread reads, or recomputes, the rows or columns it holds), or an elementwise op of
  /// such tiles (a causal mask `rows >= cols`). Collects what would change layout.
  bool adoptable(Value value, SmallVector<Value> &adopted, int depth) {
    if (isUniform(value) || special_.count(value))
      return false;
    Operation *def = value.getDefiningOp();
    if (!def || !value.hasOneUse() || depth == 0)
      return false;
    if (isa<BroadcastOp>(def)) {
      adopted.push_back(value);
      return true;
    }
    if (!def->hasTrait<OpTrait::Elementwise>() || def->getNumResults() != 1)
      return false;
    for (Value operand : def->getOperands())
      if (isTile(operand) && !isUniform(operand) && !adoptable(operand, adopted, depth - 1))
        return false;
    adopted.push_back(value);
    return true;
  }

  bool mark(Value value, LayoutBits bits) { return special_.try_emplace(value, std::move(bits)).second; }

  bool acceptsSpecial(OpOperand &use) const {
    Operation *user = use.getOwner();
    const LayoutBits &bits = special_.at(use.get());
    auto sameAs = [&](Value other) { return special_.count(other) && sameBits(special_.at(other), bits); };
    if (auto dot = dyn_cast<DotOp>(user)) {
      if (use.getOperandNumber() == 0) {
        std::optional<LayoutBits> operand = registerOperandBits(dot, threads_);
        return operand && sameBits(*operand, bits);
      }
      return use.getOperandNumber() == 2 && sameAs(dot.getResult());
    }
    if (auto yield = dyn_cast<scf::YieldOp>(user)) {
      auto loop = dyn_cast<scf::ForOp>(yield->getParentOp());
      return loop && sameAs(loop.getRegionIterArgs()[use.getOperandNumber()]);
    }
    if (auto loop = dyn_cast<scf::ForOp>(user)) {
      if (use.getOperandNumber() < loop.getNumControlOperands())
        return false;
      return sameAs(loop.getRegionIterArgs()[use.getOperandNumber() - loop.getNumControlOperands()]);
    }
    if (user->hasTrait<OpTrait::Elementwise>() && user->getNumResults() == 1)
      return sameAs(user->getResult(0));
    // Reductions fold any distribution (row maxima and sums of an attention score tile).
    if (auto reduce = dyn_cast<ReduceOp>(user))
      return llvm::all_of(reduce.getSrcs(), sameAs);
    return false;
  }

  func::FuncOp kernel_;
  int64_t threads_;
  llvm::DenseMap<Value, LayoutBits> special_;
};

} // namespace

Distribution distributionOf(const ThreadTypeConverter &converter, Value value) {
  if (const LayoutBits *bits = converter.specialLayout(value))
    return Distribution{*bits, std::nullopt};
  return Distribution::of(converter.layoutOf(value.getType()));
}

void assignLayouts(func::FuncOp kernel, ThreadTypeConverter &converter) {
  // A broadcast of index arithmetic used several times gets a copy per use, so that each can
  // take the layout its user wants (it is recomputed where it is needed, so copies cost
  // nothing; a broadcast through shared memory keeps its single exchange).
  kernel.walk([](BroadcastOp broadcast) {
    if (!rematerializable(broadcast.getSrc()))
      return;
    for (OpOperand &use : llvm::make_early_inc_range(llvm::drop_begin(broadcast->getUses()))) {
      OpBuilder b(use.getOwner());
      use.set(b.clone(*broadcast)->getResult(0));
    }
  });
  Assignment assignment(kernel, converter.threads());
  assignment.propagate();
  assignment.insertConversions();
  for (auto &[value, bits] : assignment.special())
    converter.setSpecialLayout(value, bits);
}

} // namespace tk::codegen
