// The layout rules of tk-assign-layouts, one model per op family: which non-default layouts
// (tensor-core accumulators and what follows from them without moving data) an op's results
// take from its operands, and which operands it takes in such a layout as they are.
#include "LayoutRules.h"
#include "IndexArithmetic.h"
#include "MmaPlan.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

#include "tk/Codegen/LayoutRules.cpp.inc"

namespace tk::codegen {

bool isUniform(Value value) {
  Operation *def = value.getDefiningOp();
  if (auto constant = dyn_cast_or_null<arith::ConstantOp>(def))
    return isa<SplatElementsAttr>(constant.getValue());
  return isa_and_nonnull<SplatOp>(def);
}

bool isTile(Value value) { return isa<RankedTensorType>(value.getType()); }

Value layoutPartner(OpOperand &operand) {
  Operation *user = operand.getOwner();
  if ((user->hasTrait<OpTrait::Elementwise>() || isa<AddPtrOp, LoadOp>(user)) && user->getNumResults() == 1)
    return user->getResult(0);
  if (auto dot = dyn_cast<DotOp>(user))
    return &operand == &dot.getAccMutable() ? dot.getResult() : Value();
  if (auto loop = dyn_cast<scf::ForOp>(user))
    return operand.getOperandNumber() >= loop.getNumControlOperands() ? loop.getTiedLoopRegionIterArg(&operand)
                                                                      : Value();
  if (auto yield = dyn_cast<scf::YieldOp>(user); yield && isa<scf::ForOp>(user->getParentOp()))
    return cast<scf::ForOp>(user->getParentOp()).getRegionIterArgs()[operand.getOperandNumber()];
  if (auto yield = dyn_cast<scf::YieldOp>(user); yield && isa<scf::IfOp>(user->getParentOp()))
    return user->getParentOp()->getResult(operand.getOperandNumber());
  return Value();
}

namespace {

/// Whether `value` is the same non-default layout as `bits`.
bool sameAs(const LayoutState &state, Value value, const LayoutBits &bits) { return state.hasLayout(value, bits); }

/// The layout an operand holds (it has one: acceptsOperandLayout is asked only then).
const LayoutBits &operandLayout(const LayoutState &state, OpOperand &operand) { return *state.layoutOf(operand.get()); }

bool reaches(Value value, OpOperand &target, int depth) {
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

/// Whether `value` is a loop's iteration argument whose next value is computed from `result`
/// by elementwise ops (`m = maximum(m, row_max)`): it can take result's layout, and its yield is
/// converted to it if it arrives in another. Its start is converted once before the loop when
/// it is in another layout (attention's row max, started from a peeled first block).
bool carriedInto(Value value, Value result) {
  auto arg = dyn_cast<BlockArgument>(value);
  auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
  if (!loop || arg.getArgNumber() == 0)
    return false;
  return reaches(result, *loop.getTiedLoopYieldedValue(arg), 4);
}

/// Ops that produce their result slot by slot from their operands' slots in any layout:
/// elementwise arithmetic, pointer arithmetic, and loads (each thread loads the elements it
/// holds: an epilogue's residual or gate, read straight in the accumulator's layout).
bool slotBySlot(Operation *op) {
  return (op->hasTrait<OpTrait::Elementwise>() || isa<AddPtrOp, LoadOp>(op)) && op->getNumResults() == 1;
}

/// A tile used once that can be produced in any layout where it is needed: a broadcast (each
/// thread reads, or recomputes, the rows or columns it holds), or an op that works slot by
/// slot on such tiles (a causal mask `rows >= cols`; a load of a residual through a pointer
/// tile of broadcast rows and columns under a bounds mask). Collects what would change layout.
bool adoptable(const LayoutState &state, Value value, SmallVector<Value> &adopted, int depth) {
  if (isUniform(value) || state.layoutOf(value))
    return false;
  Operation *def = value.getDefiningOp();
  if (!def || !value.hasOneUse() || depth == 0)
    return false;
  if (isa<BroadcastOp>(def)) {
    adopted.push_back(value);
    return true;
  }
  if (!slotBySlot(def))
    return false;
  for (Value operand : def->getOperands())
    if (isTile(operand) && !isUniform(operand) && !adoptable(state, operand, adopted, depth - 1))
      return false;
  adopted.push_back(value);
  return true;
}

/// Assigns `bits` to what produces `start` (a loop's or a dot's accumulator start) when it can
/// be produced in that layout (`adoptable`: a loaded C read straight there); else it stays, to
/// be converted once where it is used.
bool adoptStart(LayoutState &state, Value start, const LayoutBits &bits) {
  SmallVector<Value> adopted;
  if (isUniform(start) || state.layoutOf(start) || !adoptable(state, start, adopted, 6))
    return false;
  bool changed = false;
  for (Value value : adopted)
    changed |= state.assign(value, bits);
  return changed;
}

/// A 16-bit or narrower tile widened for arithmetic with a tile in a non-default layout (an
/// epilogue's `load(residual) as f32` next to the f32 accumulator): converting the narrow tile
/// into that layout moves half the bytes of converting the wide one out of it, and keeps the
/// accumulator where the tensor cores left it.
bool widenedNarrow(Value value) {
  auto extend = value.getDefiningOp<arith::ExtFOp>();
  if (!extend || !value.hasOneUse())
    return false;
  auto narrow = cast<RankedTensorType>(extend.getIn().getType()), wide = cast<RankedTensorType>(value.getType());
  return narrow.getElementTypeBitWidth() <= 16 && 2 * narrow.getElementTypeBitWidth() <= wide.getElementTypeBitWidth();
}

/// A layout's bits carried through a bit map of element indices: a reduction's (the index bits
/// `map` drops: slots along the axis are folded away, threads along it hold replicas), or a
/// shape op's from its result to its source (`resultToSource`, nothing dropped).
LayoutBits mappedBits(const LayoutBits &source, const BitMap &map) {
  LayoutBits slice;
  for (int bit : source.slot)
    if (bit >= 0 && map[bit] >= 0)
      slice.slot.push_back(map[bit]);
  for (int bit : source.thread)
    slice.thread.push_back(bit >= 0 ? map[bit] : -1);
  return slice;
}

/// A dot whose operands are produced for it alone, slot by slot from loads and broadcasts (B
/// possibly through `trans`), takes them as loaded fragments (MmaPlan.h) when its warps split
/// rows only and B, replicated over them, is no bigger than A: a GEMV's weights and
/// activations go from memory to the MMAs in registers. Both or neither: their k must match.
bool adoptLoadedFragments(DotOp dot, LayoutState &state) {
  std::optional<LayoutBits> aBits = loadedOperandBits(dot, state.threads(), 0);
  std::optional<LayoutBits> bBits = loadedOperandBits(dot, state.threads(), 1);
  if (!aBits || !bBits || state.layoutOf(dot.getA()) || state.layoutOf(dot.getB()))
    return false;
  auto aType = cast<RankedTensorType>(dot.getA().getType()), bType = cast<RankedTensorType>(dot.getB().getType());
  int64_t replicas = int64_t(1) << (bBits->thread.size() - 5);
  if (bType.getNumElements() * replicas > aType.getNumElements())
    return false;
  SmallVector<Value> aAdopted, bAdopted;
  if (!adoptable(state, dot.getA(), aAdopted, 8))
    return false;
  Value b = dot.getB();
  auto trans = b.getDefiningOp<TransOp>();
  LayoutBits bSource = *bBits;
  if (trans && b.hasOneUse() && !isUniform(trans.getSrc()) && !state.layoutOf(trans.getSrc())) {
    bSource = mappedBits(*bBits, resultToSource(trans));
    b = trans.getSrc();
  }
  if (!adoptable(state, b, bAdopted, 8))
    return false;
  for (Value value : aAdopted)
    state.assign(value, *aBits);
  for (Value value : bAdopted)
    state.assign(value, bSource);
  state.assign(dot.getB(), *bBits);
  return true;
}

/// Results of tensor-core dots take the accumulator layout; a loop's accumulator carried from
/// any start takes it too. A takes an earlier dot's accumulator as is (attention's P), or
/// both operands come as loaded fragments.
struct DotRule : public LayoutRuleOpInterface::ExternalModel<DotRule, DotOp> {
  bool inferResultLayouts(Operation *op, LayoutState &state) const {
    auto dot = cast<DotOp>(op);
    bool changed = inferAccumulator(dot, state);
    // Loaded fragments only for a dot whose result the tensor cores compute (one left in the
    // default layout runs by FMA from operands it stages itself).
    std::optional<MmaPlan> plan = planMma(dot, state.threads(), state.warpgroupMma());
    if (plan && sameAs(state, dot.getResult(), plan->accumulator))
      changed |= adoptLoadedFragments(dot, state);
    return changed;
  }

  static bool inferAccumulator(DotOp dot, LayoutState &state) {
    if (state.layoutOf(dot.getResult()))
      return false;
    std::optional<MmaPlan> plan = planMma(dot, state.threads(), state.warpgroupMma());
    if (!plan)
      return false;
    if (isUniform(dot.getAcc()) || sameAs(state, dot.getAcc(), plan->accumulator))
      return state.assign(dot.getResult(), plan->accumulator);
    // The accumulator of a loop: `acc = dot(a, b, f(acc))`. Optimistically in the mma layout; f
    // (elementwise, with broadcast row scales) follows, and whatever does not is converted. Its
    // start, when not uniform (C += A @ B from a loaded C), is loaded in that layout where it
    // can be (`adoptable`), else converted to it once before the loop; left in the default
    // layout, the whole product would run by FMA.
    bool changed = false;
    auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
    if (!loop)
      return inferFromAnyAccumulator(dot, *plan, state);
    auto carry = [&](unsigned k) {
      changed |= adoptStart(state, loop.getInitArgs()[k], plan->accumulator);
      changed |= state.assign(dot.getResult(), plan->accumulator);
      changed |= state.assign(loop.getRegionIterArgs()[k], plan->accumulator);
      changed |= state.assign(loop.getResult(k), plan->accumulator);
    };
    for (OpOperand &use : dot.getResult().getUses())
      if (use.getOwner() == loop.getBody()->getTerminator())
        carry(use.getOperandNumber());
    // `acc = f(dot(a, b, acc))`: the loop's accumulator rescaled after the product (attention
    // whose PV is issued before the softmax that gives the scale).
    auto arg = dyn_cast<BlockArgument>(dot.getAcc());
    if (arg && arg.getOwner() == loop.getBody() && arg != loop.getInductionVar() &&
        reaches(dot.getResult(), *loop.getTiedLoopYieldedValue(arg), 4))
      carry(arg.getArgNumber() - 1);
    return changed || inferFromAnyAccumulator(dot, *plan, state);
  }

  /// Once the other rules have settled, a tensor-core dot whose accumulator is still in the
  /// default layout (a loaded C outside a loop, a `while` loop's accumulator) takes the MMA's
  /// layout anyway, its accumulator loaded there where it can be, else converted: in the
  /// default layout the product would run by FMA.
  static bool inferFromAnyAccumulator(DotOp dot, const MmaPlan &plan, LayoutState &state) {
    if (!state.defaultSlices())
      return false;
    bool changed = adoptStart(state, dot.getAcc(), plan.accumulator);
    return state.assign(dot.getResult(), plan.accumulator) || changed;
  }
  bool acceptsOperandLayout(Operation *op, OpOperand &operand, const LayoutState &state) const {
    auto dot = cast<DotOp>(op);
    const LayoutBits &bits = operandLayout(state, operand);
    if (operand.getOperandNumber() < 2 && state.layoutOf(dot.getResult())) {
      std::optional<LayoutBits> loaded = loadedOperandBits(dot, state.threads(), operand.getOperandNumber());
      if (loaded && *loaded == bits)
        return true;
    }
    if (operand.getOperandNumber() == 0) {
      std::optional<LayoutBits> wanted = registerOperandBits(dot, state.threads(), state.warpgroupMma());
      return wanted && *wanted == bits;
    }
    return operand.getOperandNumber() == 2 && sameAs(state, dot.getResult(), bits);
  }
};

/// Whether `value` is the loop argument `arg` updated by at most `depth` elementwise ops, each
/// value on the way used only by the next (so nothing else in the body wants it in another
/// layout), whose other operands are uniform or can be produced in any layout (`adoptable`): a
/// running sum of loaded tiles (`acc += load(...)`, stream-K's partials).
bool updatedByAdoptables(const LayoutState &state, Value value, BlockArgument arg, int depth) {
  if (!value.hasOneUse())
    return false;
  if (value == arg)
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || depth == 0 || !def->hasTrait<OpTrait::Elementwise>() || def->getNumResults() != 1)
    return false;
  bool onPath = false;
  for (Value operand : def->getOperands()) {
    SmallVector<Value> adopted;
    if (!isTile(operand) || isUniform(operand))
      continue;
    if (!onPath && updatedByAdoptables(state, operand, arg, depth - 1))
      onPath = true;
    else if (!adoptable(state, operand, adopted, 6))
      return false;
  }
  return onPath;
}

/// A loop's iteration argument and result take the layout its yield arrives in, when its init
/// is uniform or already in that layout; once the other rules have settled, whatever the init
/// (loaded in that layout where it can be, else converted once before the loop): left in the
/// default layout, the value would be converted twice every iteration (an accumulator that
/// reaches its yield through a branch, from a loaded start). A start in a non-default layout
/// that the body only updates with adoptable tiles (`updatedByAdoptables`) keeps its layout.
struct ForRule : public LayoutRuleOpInterface::ExternalModel<ForRule, scf::ForOp> {
  bool inferResultLayouts(Operation *op, LayoutState &state) const {
    auto loop = cast<scf::ForOp>(op);
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    bool changed = false;
    for (auto [k, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
      const LayoutBits *yielded = state.layoutOf(yield.getOperand(k));
      Value init = loop.getInitArgs()[k];
      if (state.layoutOf(arg))
        continue;
      // (The body's elementwise ops then take the start's layout from the argument.)
      if (const LayoutBits *started = yielded ? nullptr : state.layoutOf(init);
          started && updatedByAdoptables(state, yield.getOperand(k), arg, 4)) {
        LayoutBits bits = *started;
        changed |= state.assign(arg, bits);
        changed |= state.assign(loop.getResult(k), bits);
        continue;
      }
      if (!yielded)
        continue;
      if (!isUniform(init) && !sameAs(state, init, *yielded) && !state.defaultSlices())
        continue;
      LayoutBits bits = *yielded;
      changed |= adoptStart(state, init, bits);
      changed |= state.assign(arg, bits);
      changed |= state.assign(loop.getResult(k), bits);
    }
    return changed;
  }
  bool acceptsOperandLayout(Operation *op, OpOperand &operand, const LayoutState &state) const {
    auto loop = cast<scf::ForOp>(op);
    if (operand.getOperandNumber() < loop.getNumControlOperands())
      return false;
    return sameAs(state, loop.getTiedLoopRegionIterArg(&operand), operandLayout(state, operand));
  }
};

/// Whether `value` is an iteration argument of an enclosing scf.for.
bool passedOn(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
  return loop && arg != loop.getInductionVar();
}

/// A branch's result takes the layout both of its yields arrive in (a mask applied only to the
/// blocks that need it), or the one's when the other passes a loop's value on (below).
struct IfRule : public LayoutRuleOpInterface::ExternalModel<IfRule, scf::IfOp> {
  bool inferResultLayouts(Operation *op, LayoutState &state) const {
    auto branch = cast<scf::IfOp>(op);
    if (branch.getElseRegion().empty())
      return false;
    bool changed = false;
    for (auto [k, result] : llvm::enumerate(branch.getResults())) {
      if (!isTile(result) || state.layoutOf(result))
        continue;
      const LayoutBits *bits = nullptr;
      bool agree = true;
      for (Value yielded : {branch.thenYield().getOperand(k), branch.elseYield().getOperand(k)}) {
        if (isUniform(yielded))
          continue;
        const LayoutBits *own = state.layoutOf(yielded);
        // Once the other rules have settled, a branch that passes a loop's value on unchanged
        // (a conditional accumulation, `if c { acc = dot(a, b, acc) }`) takes the other's
        // layout: the loop's value then takes it too (ForRule), and nothing is converted.
        if (!own && state.defaultSlices() && passedOn(yielded))
          continue;
        agree &= own && (!bits || *bits == *own);
        if (own)
          bits = own;
      }
      if (agree && bits) {
        LayoutBits copy = *bits;
        changed |= state.assign(result, copy);
      }
    }
    return changed;
  }
  bool acceptsOperandLayout(Operation *, OpOperand &, const LayoutState &) const { return false; }
};

/// A yield passes a tile on in the layout its loop argument or branch result has.
struct YieldRule : public LayoutRuleOpInterface::ExternalModel<YieldRule, scf::YieldOp> {
  bool inferResultLayouts(Operation *, LayoutState &) const { return false; }
  bool acceptsOperandLayout(Operation *, OpOperand &operand, const LayoutState &state) const {
    Value partner = layoutPartner(operand);
    return partner && sameAs(state, partner, operandLayout(state, operand));
  }
};

/// Whether `value` is added into a loop-carried value from a uniform start: it reaches the
/// yield of an scf.for through at most two elementwise ops (`acc += sum(x * w, axis)`, `acc`
/// from zeros: a splat takes any layout, a loaded start would arrive in another than the loop's).
bool accumulatedInLoop(Value value, int depth = 2) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (auto loop = isa<scf::YieldOp>(user) ? dyn_cast<scf::ForOp>(user->getParentOp()) : scf::ForOp())
      if (isUniform(loop.getInitArgs()[use.getOperandNumber()]))
        return true;
    if (depth > 0 && user->hasTrait<OpTrait::Elementwise>() && user->getNumResults() == 1 &&
        accumulatedInLoop(user->getResult(0), depth - 1))
      return true;
  }
  return false;
}

/// A reduction folds any layout; of a non-default one it leaves the result where the shuffles
/// put it: the slice without the reduced axis (an attention row's max and sum stay in the
/// threads that hold the row, ready to scale it). Of the default layout, so too when the result
/// is accumulated in a loop (a GEMV's per-thread partial sums over its 16 contiguous columns):
/// in the default layout of its own shape it would move through shared memory every iteration.
/// (That one only after the other rules settle: a source a later dot makes an accumulator
/// takes the accumulator's slice instead.)
struct ReduceRule : public LayoutRuleOpInterface::ExternalModel<ReduceRule, ReduceOp> {
  bool inferResultLayouts(Operation *op, LayoutState &state) const {
    auto reduce = cast<ReduceOp>(op);
    if (!isTile(reduce.getResult(0)) || state.layoutOf(reduce.getResult(0)))
      return false;
    const LayoutBits *source = state.layoutOf(reduce.getSrcs()[0]);
    std::optional<LayoutBits> defaultSource;
    if (!source && state.defaultSlices() && accumulatedInLoop(reduce.getResult(0)) &&
        llvm::none_of(reduce.getSrcs(), [&](Value src) { return state.layoutOf(src) != nullptr; })) {
      defaultSource = state.defaultBits(cast<RankedTensorType>(reduce.getSrcs()[0].getType()).getNumElements());
      source = &*defaultSource;
    }
    if (!source)
      return false;
    // Only when every operand is in that layout (an argmax's indices follow its values): an
    // operand in another would be converted to the default, and the slice would not follow.
    if (!defaultSource && !llvm::all_of(reduce.getSrcs(), [&](Value src) { return sameAs(state, src, *source); }))
      return false;
    auto shape = cast<RankedTensorType>(reduce.getSrcs()[0].getType()).getShape();
    BitMap toResult = dropAxis(shape, reduce.getAxis());
    // Only where the reduction stays within warps: across them its partials go through shared
    // memory anyway, and can land in the default layout on the way.
    for (size_t bit = 5; bit < source->thread.size(); ++bit)
      if (source->thread[bit] >= 0 && toResult[source->thread[bit]] < 0)
        return false;
    LayoutBits slice = mappedBits(*source, toResult);
    bool changed = false;
    for (Value result : reduce.getResults())
      changed |= state.assign(result, slice);
    return changed;
  }
  bool acceptsOperandLayout(Operation *op, OpOperand &operand, const LayoutState &state) const {
    const LayoutBits &bits = operandLayout(state, operand);
    return llvm::all_of(cast<ReduceOp>(op).getSrcs(), [&](Value src) { return sameAs(state, src, bits); });
  }
};

/// Shape changes that keep the row-major order keep the layout's bits; they move elements from
/// any layout (ShapeToThreads).
template <typename Op> struct KeepOrderRule : public LayoutRuleOpInterface::ExternalModel<KeepOrderRule<Op>, Op> {
  bool inferResultLayouts(Operation *op, LayoutState &state) const {
    bool changed = false;
    for (auto [value, result] : llvm::zip(op->getOperands(), op->getResults()))
      if (const LayoutBits *bits = state.layoutOf(value); bits && !state.layoutOf(result)) {
        LayoutBits copy = *bits;
        changed |= state.assign(result, copy);
      }
    return changed;
  }
  bool acceptsOperandLayout(Operation *, OpOperand &, const LayoutState &) const { return true; }
};

/// The wait for in-flight MMAs: result k is operand k, in its layout.
struct DotWaitRule : public LayoutRuleOpInterface::ExternalModel<DotWaitRule, DotWaitOp> {
  bool inferResultLayouts(Operation *op, LayoutState &state) const {
    return KeepOrderRule<DotWaitOp>().inferResultLayouts(op, state);
  }
  bool acceptsOperandLayout(Operation *op, OpOperand &operand, const LayoutState &state) const {
    return sameAs(state, op->getResult(operand.getOperandNumber()), operandLayout(state, operand));
  }
};

/// Pointer arithmetic and loads in a non-default layout (only where `adoptable` put them):
/// every tile operand arrives in the result's layout.
template <typename Op> struct SlotBySlotRule : public LayoutRuleOpInterface::ExternalModel<SlotBySlotRule<Op>, Op> {
  bool inferResultLayouts(Operation *, LayoutState &) const { return false; }
  bool acceptsOperandLayout(Operation *op, OpOperand &operand, const LayoutState &state) const {
    return sameAs(state, op->getResult(0), operandLayout(state, operand));
  }
};

/// A store of 4-byte elements held where the tensor cores left them (each thread two adjacent
/// columns, four lanes eight: a whole 32-byte sector a quad) writes them from there, its
/// pointers and mask made in that layout too (`adoptable`: used by this store alone), instead
/// of the tile crossing shared memory into the default layout first (stream-K's f32 partials,
/// f32 results).
struct StoreRule : public LayoutRuleOpInterface::ExternalModel<StoreRule, StoreOp> {
  static bool sectorRuns(const LayoutBits &bits, RankedTensorType tile) {
    return tile.getElementTypeBitWidth() == 32 && tile.getShape().back() >= 8 && bits.slot.size() > 0 &&
           bits.slot[0] == 0 && bits.thread.size() > 1 && bits.thread[0] == 1 && bits.thread[1] == 2;
  }
  bool inferResultLayouts(Operation *op, LayoutState &state) const {
    auto store = cast<StoreOp>(op);
    auto tile = dyn_cast<RankedTensorType>(store.getValue().getType());
    const LayoutBits *held = tile ? state.layoutOf(store.getValue()) : nullptr;
    if (!held || !sectorRuns(*held, tile) || state.layoutOf(store.getPtr()))
      return false;
    SmallVector<Value> adopted;
    for (Value operand : {store.getPtr(), store.getMask()})
      if (operand && !adoptable(state, operand, adopted, 6))
        return false;
    LayoutBits bits = *held;
    bool changed = false;
    for (Value value : adopted)
      changed |= state.assign(value, bits);
    return changed;
  }
  bool acceptsOperandLayout(Operation *op, OpOperand &operand, const LayoutState &state) const {
    auto store = cast<StoreOp>(op);
    const LayoutBits &bits = operandLayout(state, operand);
    return sectorRuns(bits, cast<RankedTensorType>(store.getValue().getType())) && sameAs(state, store.getPtr(), bits) &&
           (!store.getMask() || sameAs(state, store.getMask(), bits)) && sameAs(state, store.getValue(), bits);
  }
};

/// Broadcasts and transposes move elements from any layout into the default one.
template <typename Op> struct FromAnyRule : public LayoutRuleOpInterface::ExternalModel<FromAnyRule<Op>, Op> {
  bool inferResultLayouts(Operation *, LayoutState &) const { return false; }
  bool acceptsOperandLayout(Operation *, OpOperand &, const LayoutState &) const { return true; }
};

/// Ops whose tiles are all in the default layout (memory accesses, index ranges, scans, ...).
template <typename Op> struct DefaultOnlyRule : public LayoutRuleOpInterface::ExternalModel<DefaultOnlyRule<Op>, Op> {
  bool inferResultLayouts(Operation *, LayoutState &) const { return false; }
  bool acceptsOperandLayout(Operation *, OpOperand &, const LayoutState &) const { return false; }
};

template <typename... Ops> void attachDefaultOnly(MLIRContext *context) {
  (Ops::template attachInterface<DefaultOnlyRule<Ops>>(*context), ...);
}

} // namespace

bool inferElementwiseLayout(Operation *op, LayoutState &state) {
  if (op->getNumResults() != 1 || !isTile(op->getResult(0)) || state.layoutOf(op->getResult(0)))
    return false;
  // Operands: uniform, in one non-default layout, adoptable, which then produce that layout
  // themselves, loop-carried into this op's result, which then carry it, or narrow tiles
  // widened, which are converted into it before they widen.
  const LayoutBits *layout = nullptr;
  SmallVector<Value> adopted, carried, widened;
  for (Value operand : op->getOperands()) {
    if (!isTile(operand) || isUniform(operand))
      continue;
    const LayoutBits *own = state.layoutOf(operand);
    if (!own) {
      if (carriedInto(operand, op->getResult(0))) {
        carried.push_back(operand);
        continue;
      }
      SmallVector<Value> adoptedHere;
      if (adoptable(state, operand, adoptedHere, 6)) {
        adopted.append(adoptedHere);
        continue;
      }
      if (!widenedNarrow(operand))
        return false;
      widened.push_back(operand);
      continue;
    }
    if (layout && *layout != *own)
      return false;
    layout = own;
  }
  if (!layout)
    return false;
  LayoutBits bits = *layout;
  bool changed = false;
  for (Value value : llvm::concat<Value>(adopted, widened))
    changed |= state.assign(value, bits);
  for (Value arg : carried) {
    auto loop = cast<scf::ForOp>(cast<BlockArgument>(arg).getOwner()->getParentOp());
    changed |= state.assign(arg, bits);
    changed |= state.assign(loop.getTiedLoopResult(cast<BlockArgument>(arg)), bits);
  }
  changed |= state.assign(op->getResult(0), bits);
  return changed;
}

bool elementwiseAcceptsLayout(OpOperand &operand, const LayoutState &state) {
  Operation *user = operand.getOwner();
  return user->getNumResults() == 1 && sameAs(state, user->getResult(0), operandLayout(state, operand));
}

void registerLayoutRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tk::TkDialect *) {
    DotOp::attachInterface<DotRule>(*context);
    ReduceOp::attachInterface<ReduceRule>(*context);
    ExpandDimsOp::attachInterface<KeepOrderRule<ExpandDimsOp>>(*context);
    ReshapeOp::attachInterface<KeepOrderRule<ReshapeOp>>(*context);
    BroadcastOp::attachInterface<FromAnyRule<BroadcastOp>>(*context);
    TransOp::attachInterface<FromAnyRule<TransOp>>(*context);
    AddPtrOp::attachInterface<SlotBySlotRule<AddPtrOp>>(*context);
    LoadOp::attachInterface<SlotBySlotRule<LoadOp>>(*context);
    StoreOp::attachInterface<StoreRule>(*context);
    attachDefaultOnly<MakeRangeOp, SplatOp, BitcastOp, PrefetchL2Op, AtomicRMWOp, AtomicCASOp, ScanOp, RandOp, HintOp,
                      PrintOp, AssertOp>(context);
  });
  registry.addExtension(+[](MLIRContext *context, tk::gpu::TkgDialect *) {
    DotWaitOp::attachInterface<DotWaitRule>(*context);
    // A TMA store's threads write the tile into its staging buffer from wherever they hold it.
    TmaStoreOp::attachInterface<FromAnyRule<TmaStoreOp>>(*context);
    attachDefaultOnly<LocalLoadOp, AsyncCopyOp, ConvertLayoutOp>(context);
  });
  registry.addExtension(+[](MLIRContext *context, scf::SCFDialect *) {
    scf::ForOp::attachInterface<ForRule>(*context);
    scf::IfOp::attachInterface<IfRule>(*context);
    scf::YieldOp::attachInterface<YieldRule>(*context);
    attachDefaultOnly<scf::WhileOp, scf::ConditionOp>(context);
  });
  registry.addExtension(
      +[](MLIRContext *context, arith::ArithDialect *) { attachDefaultOnly<arith::ConstantOp>(context); });
}

} // namespace tk::codegen
