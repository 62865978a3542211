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


class Assignment {
public:
  Assignment(func::FuncOp kernel, int64_t threads, bool warpgroupMma)
      : kernel_(kernel), threads_(threads), warpgroupMma_(warpgroupMma) {}

  void propagate() {
    for (bool changed = true; changed;) {
      changed = false;
      kernel_.walk([&](Operation *op) {
        if (auto dot = dyn_cast<DotOp>(op)) {
          if (special_.count(dot.getResult()))
            return;
          auto plan = planMma(dot, threads_, warpgroupMma_);
          if (!plan)
            return;
          if (isUniform(dot.getAcc()) ||
              (special_.count(dot.getAcc()) && special_.at(dot.getAcc()) == plan->accumulator)) {
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
            if (isUniform(init) || (special_.count(init) && special_.at(init) == it->second)) {
              LayoutBits bits = it->second;
              changed |= mark(arg, bits);
              changed |= mark(loop.getResult(k), bits);
            }
          }
          return;
        }
        // A branch's result takes the layout both of its yields arrive in (a mask applied
        // only to the blocks that need it).
        if (auto branch = dyn_cast<scf::IfOp>(op)) {
          if (branch.getElseRegion().empty())
            return;
          for (auto [k, result] : llvm::enumerate(branch.getResults())) {
            if (!isTile(result) || special_.count(result))
              continue;
            const LayoutBits *bits = nullptr;
            bool agree = true;
            for (Value yielded : {branch.thenYield().getOperand(k), branch.elseYield().getOperand(k)}) {
              if (isUniform(yielded))
                continue;
              auto it = special_.find(yielded);
              agree &= it != special_.end() && (!bits || *bits == it->second);
              if (it != special_.end())
                bits = &it->second;
            }
            if (agree && bits) {
              LayoutBits copy = *bits;
              changed |= mark(result, copy);
            }
          }
          return;
        }
        // A reduction of a special tile leaves its result where the shuffles put it: the
        // slice of that layout without the reduced axis (an attention row's max and sum stay
        // in the threads that hold the row, ready to scale it).
        if (auto reduce = dyn_cast<ReduceOp>(op)) {
          auto it = special_.find(reduce.getSrcs()[0]);
          if (it == special_.end() || !isTile(reduce.getResult(0)) || special_.count(reduce.getResult(0)))
            return;
          auto shape = cast<RankedTensorType>(reduce.getSrcs()[0].getType()).getShape();
          BitMap toResult = dropAxis(shape, reduce.getAxis());
          // Only where the reduction stays within warps: across them its partials go through
          // shared memory anyway, and can land in the default layout on the way.
          for (size_t bit = 5; bit < it->second.thread.size(); ++bit)
            if (it->second.thread[bit] >= 0 && toResult[it->second.thread[bit]] < 0)
              return;
          LayoutBits slice = sliceBits(it->second, toResult);
          for (Value result : reduce.getResults())
            changed |= mark(result, slice);
          return;
        }
        // Shape changes that keep the row-major order keep the bits, as does the wait for
        // in-flight MMAs (result k is operand k).
        if (isa<ExpandDimsOp, ReshapeOp, DotWaitOp>(op)) {
          for (auto [value, result] : llvm::zip(op->getOperands(), op->getResults()))
            if (auto it = special_.find(value); it != special_.end() && !special_.count(result)) {
              LayoutBits bits = it->second;
              changed |= mark(result, bits);
            }
          return;
        }
        if (op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1 && isTile(op->getResult(0)) &&
            !special_.count(op->getResult(0))) {
          // Operands: uniform, in one special layout, adoptable (below), which then produce
          // that layout themselves, or loop-carried into this op's result, which then carry it.
          const LayoutBits *layout = nullptr;
          SmallVector<Value> adopted, carried;
          for (Value operand : op->getOperands()) {
            if (!isTile(operand) || isUniform(operand))
              continue;
            auto it = special_.find(operand);
            if (it == special_.end()) {
              if (carriedInto(operand, op->getResult(0))) {
                carried.push_back(operand);
                continue;
              }
              if (!adoptable(operand, adopted, 6))
                return;
              continue;
            }
            if (layout && *layout != it->second)
              return;
            layout = &it->second;
          }
          if (!layout)
            return;
          LayoutBits bits = *layout;
          for (Value value : adopted)
            changed |= mark(value, bits);
          for (Value arg : carried) {
            auto loop = cast<scf::ForOp>(cast<BlockArgument>(arg).getOwner()->getParentOp());
            changed |= mark(arg, bits);
            changed |= mark(loop.getTiedLoopResult(cast<BlockArgument>(arg)), bits);
          }
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
      else if (isa<scf::YieldOp>(op))
        for (OpOperand &operand : op->getOpOperands())
          if (Value partner = partnerOf(operand))
            needs(operand, partner);
    });
    for (auto &[use, bits] : into) {
      OpBuilder b(use->getOwner());
      auto convert = ConvertLayoutOp::create(b, use->getOwner()->getLoc(), use->get().getType(), use->get());
      use->set(convert.getResult());
      mark(convert.getResult(), bits);
    }
  }

  /// The 1:N conversion sizes a tile by its type: a special layout that holds a different
  /// number of elements per thread than the default goes into the type's encoding, and the
  /// uniform tiles it meets (loop inits, elementwise operands) get copies of that type.
  void encodeLayouts(const ThreadTypeConverter &converter) {
    for (auto &[value, bits] : special_) {
      auto type = cast<RankedTensorType>(value.getType());
      if (int64_t(1) << bits.slot.size() != converter.layoutOf(type).perThread())
        value.setType(encoded(type, bits));
    }
    kernel_.walk([&](Operation *op) {
      for (OpOperand &operand : op->getOpOperands()) {
        Value partner = partnerOf(operand);
        auto type = partner ? dyn_cast<RankedTensorType>(partner.getType()) : RankedTensorType();
        if (!type || !type.getEncoding() || !isTile(operand.get()) || !isUniform(operand.get()))
          continue;
        auto own = cast<RankedTensorType>(operand.get().getType());
        operand.set(uniformCopy(operand.get(), RankedTensorType::get(own.getShape(), own.getElementType(), type.getEncoding())));
      }
    });
  }

  const llvm::DenseMap<Value, LayoutBits> &special() const { return special_; }

private:
  RankedTensorType encoded(RankedTensorType type, const LayoutBits &bits) const {
    SmallVector<int32_t> slots(bits.slot.begin(), bits.slot.end()), threads(bits.thread.begin(), bits.thread.end());
    return RankedTensorType::get(type.getShape(), type.getElementType(), LayoutAttr::get(type.getContext(), slots, threads));
  }

  /// The value whose layout an operand must arrive in: an elementwise op's result, a dot's
  /// for its accumulator, a loop's iteration argument for its init and its yield.
  static Value partnerOf(OpOperand &operand) {
    Operation *user = operand.getOwner();
    if (user->hasTrait<OpTrait::Elementwise>() && user->getNumResults() == 1)
      return user->getResult(0);
    if (auto dot = dyn_cast<DotOp>(user))
      return &operand == &dot.getAccMutable() ? dot.getResult() : Value();
    if (auto loop = dyn_cast<scf::ForOp>(user))
      return operand.getOperandNumber() >= loop.getNumControlOperands() ? loop.getTiedLoopRegionIterArg(&operand) : Value();
    if (auto yield = dyn_cast<scf::YieldOp>(user); yield && isa<scf::ForOp>(user->getParentOp()))
      return cast<scf::ForOp>(user->getParentOp()).getRegionIterArgs()[operand.getOperandNumber()];
    if (auto yield = dyn_cast<scf::YieldOp>(user); yield && isa<scf::IfOp>(user->getParentOp()))
      return user->getParentOp()->getResult(operand.getOperandNumber());
    return Value();
  }

  /// A uniform tile (splat or splat constant) made again with type `type`.
  static Value uniformCopy(Value uniform, RankedTensorType type) {
    Operation *def = uniform.getDefiningOp();
    OpBuilder b(def->getContext());
    b.setInsertionPointAfter(def);
    Operation *copy = b.clone(*def);
    copy->getResult(0).setType(type);
    if (auto constant = dyn_cast<arith::ConstantOp>(copy))
      constant.setValueAttr(DenseElementsAttr::get(type, cast<SplatElementsAttr>(constant.getValue()).getSplatValue<Attribute>()));
    return copy->getResult(0);
  }

  /// The bits of a tile reduced along the index bits `map` drops: slots along the axis are
  /// folded away, threads along it hold replicas.
  static LayoutBits sliceBits(const LayoutBits &source, const BitMap &map) {
    LayoutBits slice;
    for (int bit : source.slot)
      if (bit >= 0 && map[bit] >= 0)
        slice.slot.push_back(map[bit]);
    for (int bit : source.thread)
      slice.thread.push_back(bit >= 0 ? map[bit] : -1);
    return slice;
  }

  /// Whether `value` is a loop's iteration argument, started from a uniform tile, whose next
  /// value is computed from `result` by elementwise ops (`m = maximum(m, row_max)`): it can
  /// take result's layout, and its yield is converted to it if it arrives in another.
  bool carriedInto(Value value, Value result) const {
    auto arg = dyn_cast<BlockArgument>(value);
    auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
    if (!loop || arg.getArgNumber() == 0 || !isUniform(loop.getTiedLoopInit(arg)->get()))
      return false;
    return reaches(result, *loop.getTiedLoopYieldedValue(arg), 4);
  }

  static bool reaches(Value value, OpOperand &target, int depth) {
    for (OpOperand &use : value.getUses()) {
      if (&use == &target)
        return true;
      Operation *user = use.getOwner();
      if (depth > 0 && user->hasTrait<OpTrait::Elementwise>() && user->getNumResults() == 1 &&
          reaches(user->getResult(0), target, depth - 1))
        return true;
    }
    return false;
  }

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
    auto sameAs = [&](Value other) { return special_.count(other) && special_.at(other) == bits; };
    if (auto dot = dyn_cast<DotOp>(user)) {
      if (use.getOperandNumber() == 0) {
        std::optional<LayoutBits> operand = registerOperandBits(dot, threads_, warpgroupMma_);
        return operand && *operand == bits;
      }
      return use.getOperandNumber() == 2 && sameAs(dot.getResult());
    }
    if (isa<scf::YieldOp>(user)) {
      Value partner = partnerOf(use);
      return partner && sameAs(partner);
    }
    if (auto loop = dyn_cast<scf::ForOp>(user)) {
      if (use.getOperandNumber() < loop.getNumControlOperands())
        return false;
      return sameAs(loop.getRegionIterArgs()[use.getOperandNumber() - loop.getNumControlOperands()]);
    }
    if (user->hasTrait<OpTrait::Elementwise>() && user->getNumResults() == 1)
      return sameAs(user->getResult(0));
    if (auto wait = dyn_cast<DotWaitOp>(user))
      return sameAs(wait.getResult(use.getOperandNumber()));
    // Shape changes move elements from any distribution (ShapeToThreads).
    if (isa<BroadcastOp, ExpandDimsOp, ReshapeOp, TransOp>(user))
      return true;
    // Reductions fold any distribution (row maxima and sums of an attention score tile).
    if (auto reduce = dyn_cast<ReduceOp>(user))
      return llvm::all_of(reduce.getSrcs(), sameAs);
    return false;
  }

  func::FuncOp kernel_;
  int64_t threads_;
  bool warpgroupMma_;
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
  Assignment assignment(kernel, converter.threads(), converter.warpgroupMma());
  assignment.propagate();
  assignment.insertConversions();
  assignment.encodeLayouts(converter);
  for (auto &[value, bits] : assignment.special())
    converter.setSpecialLayout(value, bits);
}

} // namespace tk::codegen
