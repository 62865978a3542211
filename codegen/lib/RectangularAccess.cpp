// The rectangle a masked pointer-tile load reads, proven by polynomial arithmetic on the ops
// that compute its pointers and mask (see RectangularAccess.h); and which kernel argument a
// pointer comes from, and which ops access global memory through which pointer.
#include "RectangularAccess.h"
#include "IndexArithmetic.h"
#include "MemoryTypes.h"
#include "Swizzle.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <utility>

using namespace mlir;

namespace tk::codegen {

//===----------------------------------------------------------------------===//
// Polynomials
//===----------------------------------------------------------------------===//

Polynomial Polynomial::constant(int64_t value) {
  Polynomial p;
  if (value)
    p.terms[{}] = value;
  return p;
}

Polynomial Polynomial::atom(int id) {
  Polynomial p;
  p.terms[{id}] = 1;
  return p;
}

namespace {
/// `into` += `value` for the monomial, dropping zeros; false when it overflows int64.
bool addTerm(std::map<Polynomial::Monomial, int64_t> &terms, const Polynomial::Monomial &m, int64_t value) {
  int64_t &slot = terms[m];
  if (__builtin_add_overflow(slot, value, &slot))
    return false;
  if (slot == 0)
    terms.erase(m);
  return true;
}

/// Recursion bound of the analysis (pointer, mask and slice chains).
constexpr unsigned kMaxDepth = 128;
} // namespace

Polynomial Polynomial::operator+(const Polynomial &other) const {
  Polynomial sum = *this;
  sum.overflow |= other.overflow;
  for (auto &[monomial, coefficient] : other.terms)
    sum.overflow |= !addTerm(sum.terms, monomial, coefficient);
  return sum;
}

Polynomial Polynomial::operator-(const Polynomial &other) const { return *this + other * constant(-1); }

Polynomial Polynomial::operator*(const Polynomial &other) const {
  Polynomial product;
  product.overflow = overflow || other.overflow;
  for (auto &[a, ca] : terms)
    for (auto &[b, cb] : other.terms) {
      Monomial m(a);
      m.append(b.begin(), b.end());
      llvm::sort(m);
      int64_t c;
      product.overflow |= __builtin_mul_overflow(ca, cb, &c) || !addTerm(product.terms, m, c);
    }
  return product;
}

bool Polynomial::contains(int atom) const {
  return llvm::any_of(terms, [&](auto &term) { return llvm::is_contained(term.first, atom); });
}

std::pair<Polynomial, Polynomial> Polynomial::splitBy(int atom) const {
  Polynomial with, without;
  for (auto &[monomial, coefficient] : terms) {
    auto it = llvm::find(monomial, atom);
    if (it == monomial.end()) {
      without.terms[monomial] = coefficient;
      continue;
    }
    Monomial rest(monomial);
    rest.erase(rest.begin() + (it - monomial.begin()));
    with.terms[rest] = coefficient;
  }
  return {with, without};
}

Polynomial Polynomial::shiftAxes(unsigned from, unsigned shift) const {
  Polynomial shifted;
  for (auto &[monomial, coefficient] : terms) {
    Monomial m(monomial);
    for (int &atom : m)
      if (atom < 0 && unsigned(-1 - atom) >= from)
        atom -= int(shift);
    llvm::sort(m);
    shifted.terms[m] = coefficient;
  }
  return shifted;
}

Polynomial Polynomial::withoutAxis(unsigned axis) const {
  Polynomial kept;
  for (auto &[monomial, coefficient] : terms)
    if (!llvm::is_contained(monomial, axisAtom(axis)))
      kept.terms[monomial] = coefficient;
  return kept;
}

Polynomial Polynomial::broadcast(RankedTensorType from, RankedTensorType to) const {
  Polynomial p = *this;
  int64_t shift = to.getRank() - from.getRank();
  for (int64_t d = 0; d < from.getRank(); ++d)
    if (from.getDimSize(d) == 1 && to.getDimSize(d + shift) != 1)
      p = p.withoutAxis(d);
  return p.shiftAxes(0, unsigned(shift));
}

std::optional<int> Polynomial::singleAtom() const {
  if (terms.size() != 1 || terms.begin()->first.size() != 1 || terms.begin()->second != 1)
    return std::nullopt;
  return terms.begin()->first.front();
}

std::optional<int64_t> Polynomial::constantValue() const {
  if (terms.empty())
    return 0;
  if (terms.size() != 1 || !terms.begin()->first.empty())
    return std::nullopt;
  return terms.begin()->second;
}

//===----------------------------------------------------------------------===//
// The analysis
//===----------------------------------------------------------------------===//

int RectangularAccessAnalysis::atomOf(Value value) {
  auto [it, inserted] = atomIds_.try_emplace(value, int(atoms_.size()));
  if (inserted)
    atoms_.push_back(value);
  return it->second;
}

std::optional<Polynomial> RectangularAccessAnalysis::of(Value value) {
  if (auto it = memo_.find(value); it != memo_.end())
    return it->second;
  if (depth_ >= kMaxDepth)
    return std::nullopt;
  ++depth_;
  std::optional<Polynomial> result = compute(value);
  --depth_;
  if (result && result->overflow)
    result = std::nullopt;
  memo_[value] = result;
  return result;
}

std::optional<Polynomial> RectangularAccessAnalysis::compute(Value value) {
  bool tile = isa<RankedTensorType>(value.getType());
  auto arg = dyn_cast<BlockArgument>(value);
  if (arg && loop_ && arg.getOwner() == loop_.getBody()) {
    if (arg == loop_.getInductionVar())
      return Polynomial::atom(atomOf(arg));
    // A carried value: start + iteration * bump, the bump found with the argument as an atom.
    if (!matchPattern(loop_.getLowerBound(), m_Zero()) || !matchPattern(loop_.getStep(), m_One()))
      return std::nullopt;
    unsigned number = arg.getArgNumber() - 1;
    int self = atomOf(arg);
    memo_[arg] = Polynomial::atom(self);
    std::optional<Polynomial> next = of(loop_.getBody()->getTerminator()->getOperand(number));
    // What was computed from the stand-in is recomputed on demand.
    SmallVector<Value> standIns;
    for (auto &[v, p] : memo_)
      if (p && p->contains(self))
        standIns.push_back(v);
    for (Value v : standIns)
      memo_.erase(v);
    std::optional<Polynomial> start = of(loop_.getInitArgs()[number]);
    if (!next || !start)
      return std::nullopt;
    Polynomial bump = *next - Polynomial::atom(self);
    int iteration = atomOf(loop_.getInductionVar());
    if (bump.contains(self) || bump.contains(iteration))
      return std::nullopt;
    return *start + Polynomial::atom(iteration) * bump;
  }
  Operation *def = value.getDefiningOp();
  if (def) {
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant)))
      return Polynomial::constant(constant.getSExtValue());
  }
  // Other scalars from before the loop (and kernel arguments) are atoms; sums and products are
  // expanded wherever they are (a bump `BK * ldb` must show its row stride).
  bool arithmetic = isa_and_nonnull<arith::AddIOp, arith::SubIOp, arith::MulIOp, AddPtrOp, arith::ExtSIOp>(def);
  if (!tile && !arithmetic && (!def || !loop_ || !loop_->isAncestor(def)))
    return isa<IntegerType, PtrType>(value.getType()) ? std::optional(Polynomial::atom(atomOf(value))) : std::nullopt;
  if (!def)
    return std::nullopt;
  auto binary = [&](auto combine) -> std::optional<Polynomial> {
    std::optional<Polynomial> lhs = of(def->getOperand(0)), rhs = of(def->getOperand(1));
    if (!lhs || !rhs)
      return std::nullopt;
    return combine(*lhs, *rhs);
  };
  // Sign extension keeps the value (an offset widened to i64: `head as i64 * rows * stride`).
  if (auto extend = dyn_cast<arith::ExtSIOp>(def))
    return of(extend.getIn());
  if (isa<arith::AddIOp, AddPtrOp>(def))
    return binary([](const Polynomial &a, const Polynomial &b) { return a + b; });
  if (isa<arith::SubIOp>(def))
    return binary([](const Polynomial &a, const Polynomial &b) { return a - b; });
  if (isa<arith::MulIOp>(def))
    return binary([](const Polynomial &a, const Polynomial &b) { return a * b; });
  if (auto range = dyn_cast<MakeRangeOp>(def))
    return Polynomial::constant(range.getStart()) + Polynomial::atom(Polynomial::axisAtom(0));
  if (auto splat = dyn_cast<SplatOp>(def))
    return of(splat.getSrc());
  // A layout conversion keeps every element's value (a store analysed after tk-assign-layouts).
  if (auto convert = dyn_cast<ConvertLayoutOp>(def))
    return of(convert.getSrc());
  if (auto expand = dyn_cast<ExpandDimsOp>(def)) {
    std::optional<Polynomial> src = of(expand.getSrc());
    return src ? std::optional(src->shiftAxes(expand.getAxis(), 1)) : std::nullopt;
  }
  if (auto broadcast = dyn_cast<BroadcastOp>(def)) {
    std::optional<Polynomial> src = of(broadcast.getSrc());
    auto from = cast<RankedTensorType>(broadcast.getSrc().getType()), to = cast<RankedTensorType>(broadcast.getType());
    return src ? std::optional(src->broadcast(from, to)) : std::nullopt;
  }
  return std::nullopt;
}

std::optional<SmallVector<Polynomial>> RectangularAccessAnalysis::negativeWhenTrue(Value mask) {
  Operation *def = mask.getDefiningOp();
  if (!def || depth_ >= kMaxDepth)
    return std::nullopt;
  ++depth_;
  auto result = negativeWhenTrueOf(def, mask);
  --depth_;
  return result;
}

std::optional<SmallVector<Polynomial>> RectangularAccessAnalysis::negativeWhenTrueOf(Operation *def, Value mask) {
  if (matchPattern(mask, m_One()))
    return SmallVector<Polynomial>{};
  if (auto both = dyn_cast<arith::AndIOp>(def)) {
    auto lhs = negativeWhenTrue(both.getLhs()), rhs = negativeWhenTrue(both.getRhs());
    if (!lhs || !rhs)
      return std::nullopt;
    lhs->append(rhs->begin(), rhs->end());
    return lhs;
  }
  auto shifted = [&](Value src, unsigned from, unsigned shift) -> std::optional<SmallVector<Polynomial>> {
    auto inner = negativeWhenTrue(src);
    if (inner)
      for (Polynomial &p : *inner)
        p = p.shiftAxes(from, shift);
    return inner;
  };
  if (auto convert = dyn_cast<ConvertLayoutOp>(def))
    return negativeWhenTrue(convert.getSrc());
  if (auto broadcast = dyn_cast<BroadcastOp>(def)) {
    auto inner = negativeWhenTrue(broadcast.getSrc());
    auto from = cast<RankedTensorType>(broadcast.getSrc().getType()), to = cast<RankedTensorType>(broadcast.getType());
    if (inner)
      for (Polynomial &p : *inner)
        p = p.broadcast(from, to);
    return inner;
  }
  if (auto expand = dyn_cast<ExpandDimsOp>(def))
    return shifted(expand.getSrc(), expand.getAxis(), 1);
  auto compare = dyn_cast<arith::CmpIOp>(def);
  if (!compare)
    return std::nullopt;
  std::optional<Polynomial> lhs = of(compare.getLhs()), rhs = of(compare.getRhs());
  if (!lhs || !rhs)
    return std::nullopt;
  Polynomial one = Polynomial::constant(1);
  switch (compare.getPredicate()) {
  case arith::CmpIPredicate::slt:
    return SmallVector<Polynomial>{*lhs - *rhs};
  case arith::CmpIPredicate::sgt:
    return SmallVector<Polynomial>{*rhs - *lhs};
  case arith::CmpIPredicate::sle:
    return SmallVector<Polynomial>{*lhs - *rhs - one};
  case arith::CmpIPredicate::sge:
    return SmallVector<Polynomial>{*rhs - *lhs - one};
  default:
    return std::nullopt;
  }
}

bool RectangularAccessAnalysis::nonNegative(const Polynomial &original) {
  // c * X - c * y + rest >= 0 when y < X is known and c + rest >= 0: a reversed program id
  // (`num_programs(0) - 1 - program_id(0)`, heavy causal blocks first) or tile index.
  Polynomial p = original;
  for (size_t atom = 0; atom < atoms_.size(); ++atom) {
    auto term = p.terms.find(Polynomial::Monomial{int(atom)});
    if (term == p.terms.end() || term->second >= 0)
      continue;
    if (std::optional<Polynomial> above = knownAbove(atoms_[atom])) {
      Polynomial c = Polynomial::constant(-term->second);
      p = p + c * Polynomial::atom(int(atom)) - c * *above + c;
    }
  }
  for (auto &[monomial, coefficient] : p.terms) {
    if (coefficient < 0)
      return false;
    for (int atom : monomial)
      if (atom < 0 || !nonNegative(atoms_[atom]))
        return false;
  }
  return true;
}

/// A small sign analysis. Program ids and integer kernel arguments are taken as non-negative:
/// kernel arguments that feed a load's coordinates are sizes, strides and offsets, which the
/// grid and the masks already presume non-negative; an explicit subtraction or a negative
/// constant (a window that starts before the matrix) is not, unless it only feeds a divisor.
bool RectangularAccessAnalysis::nonNegative(Value atom, unsigned depth) {
  // Each value's answer is kept, so that a long chain of scalar index arithmetic (a stream-K
  // tile's row, some 20 ops from the kernel's arguments) costs one visit per op.
  if (auto known = signs_.find(atom); known != signs_.end())
    return known->second;
  if (depth > 64) {
    cutOff_ = true;
    return false;
  }
  // An answer that ran into the depth limit is not kept: asked again from nearer the root, the
  // same value may be proved.
  bool outer = std::exchange(cutOff_, false);
  bool answer = computeNonNegative(atom, depth);
  if (!cutOff_)
    signs_[atom] = answer;
  cutOff_ |= outer;
  return answer;
}

bool RectangularAccessAnalysis::computeNonNegative(Value atom, unsigned depth) {
  if (loop_ && atom == loop_.getInductionVar()) {
    APInt lower, step;
    return matchPattern(loop_.getLowerBound(), m_ConstantInt(&lower)) && !lower.isNegative() &&
           matchPattern(loop_.getStep(), m_ConstantInt(&step)) && step.isStrictlyPositive();
  }
  if (auto arg = dyn_cast<BlockArgument>(atom)) {
    // An enclosing loop's induction variable (a persistent kernel's tile index) starts at its
    // lower bound and only grows (scf.for's step is positive).
    if (auto outer = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()); outer && arg == outer.getInductionVar())
      return nonNegative(outer.getLowerBound(), depth + 1);
    return isa<func::FuncOp>(arg.getOwner()->getParentOp()) && isa<IntegerType>(arg.getType());
  }
  APInt constant;
  if (matchPattern(atom, m_ConstantInt(&constant)))
    return !constant.isNegative();
  Operation *def = atom.getDefiningOp();
  auto operandsNonNegative = [&] {
    return llvm::all_of(def->getOperands(), [&](Value v) { return nonNegative(v, depth + 1); });
  };
  if (isa<ProgramIdOp, NumProgramsOp>(def))
    return true;
  if (isa<arith::AddIOp, arith::MulIOp, arith::MinSIOp, arith::ExtSIOp>(def))
    return operandsNonNegative();
  // A zero-extension is non-negative whatever it extends (cdiv's rounding-up bit, an i1).
  if (isa<arith::ExtUIOp>(def))
    return true;
  // x - x % y, x rounded down to a multiple of y (the tiles of a persistent kernel's whole
  // waves, `tiles - tiles % num_programs(0)`): for x >= 0 the remainder lies in [0, x],
  // whatever y's sign.
  if (auto difference = dyn_cast<arith::SubIOp>(def)) {
    auto remainder = difference.getRhs().getDefiningOp<arith::RemSIOp>();
    return remainder && remainder.getLhs() == difference.getLhs() && nonNegative(difference.getLhs(), depth + 1);
  }
  // The larger of two values is at least either one (`maximum(first - start, 0)`).
  if (isa<arith::MaxSIOp>(def))
    return llvm::any_of(def->getOperands(), [&](Value v) { return nonNegative(v, depth + 1); });
  // A remainder has its dividend's sign; divisors in index arithmetic (tile counts, group
  // sizes) are taken as positive, so a quotient has its dividend's sign too.
  if (isa<arith::RemSIOp, arith::DivSIOp, arith::DivUIOp, arith::CeilDivSIOp, arith::FloorDivSIOp>(def))
    return nonNegative(def->getOperand(0), depth + 1);
  // A choice has the sign both of its values have (a tile index chosen by `where` or a branch).
  if (auto select = dyn_cast<arith::SelectOp>(def))
    return nonNegative(select.getTrueValue(), depth + 1) && nonNegative(select.getFalseValue(), depth + 1);
  if (auto branch = dyn_cast<scf::IfOp>(def)) {
    unsigned k = cast<OpResult>(atom).getResultNumber();
    return !branch.getElseRegion().empty() && nonNegative(branch.thenYield().getOperand(k), depth + 1) &&
           nonNegative(branch.elseYield().getOperand(k), depth + 1);
  }
  return false;
}

namespace {

int64_t divisibilityOf(BlockArgument arg) {
  auto kernel = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  auto attr = kernel ? kernel.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), TkDialect::kDivisibility) : IntegerAttr();
  return attr ? attr.getInt() : 1;
}

/// A kernel argument of the loop's function (not of an inner region).
BlockArgument kernelArgument(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  return arg && isa<func::FuncOp>(arg.getOwner()->getParentOp()) ? arg : BlockArgument();
}

/// `p` / `divisor` when it divides every term: a constant every coefficient, or an atom (alone)
/// every monomial once.
std::optional<Polynomial> dividedBy(const Polynomial &p, const Polynomial &divisor) {
  if (std::optional<int64_t> d = divisor.constantValue()) {
    Polynomial quotient;
    for (auto &[monomial, coefficient] : p.terms) {
      if (*d == 0 || coefficient % *d)
        return std::nullopt;
      quotient.terms[monomial] = coefficient / *d;
    }
    return quotient;
  }
  std::optional<int> atom = divisor.singleAtom();
  if (!atom)
    return std::nullopt;
  auto [quotient, remainder] = p.splitBy(*atom);
  return remainder.terms.empty() ? std::optional(quotient) : std::nullopt;
}

} // namespace

std::optional<Polynomial> RectangularAccessAnalysis::knownAbove(Value value) {
  // program_id(d) < num_programs(d).
  if (auto id = value.getDefiningOp<ProgramIdOp>()) {
    for (auto [index, atom] : llvm::enumerate(atoms_))
      if (auto count = atom.getDefiningOp<NumProgramsOp>(); count && count.getAxis() == id.getAxis())
        return Polynomial::atom(int(index));
    return std::nullopt;
  }
  // A loop's index is below its upper bound, and index / H below upper / H where H divides it.
  Value divisor;
  if (auto quotient = value.getDefiningOp<arith::DivSIOp>()) {
    divisor = quotient.getRhs();
    value = quotient.getLhs();
  }
  auto arg = dyn_cast<BlockArgument>(value);
  auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
  if (!loop || arg != loop.getInductionVar())
    return std::nullopt;
  std::optional<Polynomial> upper = of(loop.getUpperBound());
  if (!upper || !divisor)
    return upper;
  // (Rounding toward zero keeps index / H below upper / H for a non-negative index only.)
  std::optional<Polynomial> by = of(divisor);
  return by && nonNegative(value) ? dividedBy(*upper, *by) : std::nullopt;
}

std::optional<RectangularAccess> RectangularAccessAnalysis::match(LoadOp load) {
  return match(load.getPtr(), load.getMask(), dyn_cast<RankedTensorType>(load.getType()));
}

std::optional<RectangularAccess> RectangularAccessAnalysis::match(Value ptr, Value mask, RankedTensorType type) {
  // Tiles of the stages tensor cores read: 2-byte elements, or FP8's 1.
  if (!type || type.getRank() != 2 || (type.getElementTypeBitWidth() != 16 && type.getElementTypeBitWidth() != 8) ||
      !isa<FloatType>(type.getElementType()) || !mask)
    return std::nullopt;
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  std::optional<Polynomial> pointers = of(ptr);
  if (!pointers)
    return std::nullopt;
  // The base: the one pointer atom, alone in its term, a kernel argument.
  RectangularAccess access;
  for (auto &[monomial, coefficient] : pointers->terms)
    for (int atom : monomial)
      if (atom >= 0 && isa<PtrType>(atoms_[atom].getType())) {
        if (access.base || monomial.size() != 1 || coefficient != 1)
          return std::nullopt;
        access.base = kernelArgument(atoms_[atom]);
        if (!access.base || divisibilityOf(access.base) % 16)
          return std::nullopt;
      }
  if (!access.base)
    return std::nullopt;
  int row = Polynomial::axisAtom(0), col = Polynomial::axisAtom(1);
  Polynomial offsets = *pointers - Polynomial::atom(atomOf(access.base));
  auto [perColumn, notColumns] = offsets.splitBy(col);
  auto [perRow, rest] = notColumns.splitBy(row);
  if (perColumn.constantValue() != 1 || perRow.contains(row) || perRow.contains(col) || rest.contains(row))
    return std::nullopt;
  access.rowStride = perRow;

  // Launch-time values: constants >= 1 and i32 kernel arguments, with a required divisibility.
  auto launchValue = [&](const Polynomial &p, int64_t divisor) {
    if (std::optional<int64_t> value = p.constantValue())
      return *value >= 1 && *value % divisor == 0;
    std::optional<int> atom = p.singleAtom();
    BlockArgument arg = atom && *atom >= 0 ? kernelArgument(atoms_[*atom]) : BlockArgument();
    return arg && arg.getType().isInteger(32) && divisibilityOf(arg) % divisor == 0;
  };
  if (!launchValue(access.rowStride, 16 / elementBytes))
    return std::nullopt;

  // Each mask term bounds one axis: axis + r < 0 from above, -axis + r < 0 from below.
  std::optional<SmallVector<Polynomial>> bounds = negativeWhenTrue(mask);
  if (!bounds)
    return std::nullopt;
  SmallVector<Polynomial> upper[2], lower[2];
  for (const Polynomial &bound : *bounds) {
    auto [onRow, rowRest] = bound.splitBy(row);
    auto [onCol, colRest] = bound.splitBy(col);
    bool isRow = !onRow.terms.empty();
    if (isRow == !onCol.terms.empty())
      return std::nullopt;
    const Polynomial &remainder = isRow ? rowRest : colRest;
    std::optional<int64_t> coefficient = (isRow ? onRow : onCol).constantValue();
    if (remainder.contains(row) || remainder.contains(col) || (coefficient != 1 && coefficient != -1))
      return std::nullopt;
    (*coefficient == 1 ? upper : lower)[isRow ? 0 : 1].push_back(remainder);
  }
  // The starts: from a lower bound (0 <= start + axis: r = -start - 1), else the terms of the
  // offset with the row stride (an argument) are the row's.
  std::optional<Polynomial> start[3]; // row, column, and a stack's matrix index
  for (int axis : {0, 1})
    if (!lower[axis].empty())
      start[axis] = Polynomial::constant(-1) - lower[axis].front();
  // A stack of matrices (attention's heads: p + head * rows * stride + row * stride + col),
  // rows bounded above only: the bound (start + axis < E) gives the row extent E (its
  // negative terms) and start. The columns start where their bound says (start + axis < W),
  // or at what of the offset an argument stride does not divide, or at 0 (then spanning the
  // tile); what remains of the offset, over E rows of the stride, is the matrix's index.
  Polynomial stackOffset;
  auto negatedNegativeTerms = [](const Polynomial &p) {
    Polynomial negated;
    for (auto &[monomial, coefficient] : p.terms)
      if (coefficient < 0)
        negated.terms[monomial] = -coefficient;
    return negated;
  };
  // E is one atom: a row start with negative terms of its own (a reversed program id,
  // `num_programs(0) - 1 - program_id(0)`) leaves each negative atom of the bound a candidate.
  if (!start[0] && !start[1] && lower[0].empty() && lower[1].empty() && upper[0].size() == 1 && upper[1].size() <= 1) {
    Polynomial colStart;
    if (upper[1].size() == 1)
      colStart = upper[1].front() + negatedNegativeTerms(upper[1].front());
    else if (std::optional<int> strideAtom = access.rowStride.singleAtom())
      colStart = rest.splitBy(*strideAtom).second;
    std::optional<Polynomial> rowOffset = dividedBy(rest - colStart, access.rowStride);
    for (auto &[monomial, coefficient] : upper[0].front().terms) {
      if (coefficient != -1 || monomial.size() != 1 || !rowOffset || (upper[1].size() != 1 && !colStart.terms.empty()))
        continue;
      int rowsAtom = monomial.front();
      Polynomial rows = Polynomial::atom(rowsAtom), rowStart = upper[0].front() + rows;
      auto [index, remainder] = (*rowOffset - rowStart).splitBy(rowsAtom);
      if (remainder.terms.empty() && !index.terms.empty() && !index.contains(rowsAtom) && !rowStart.contains(rowsAtom) &&
          nonNegative(index)) {
        access.stackIndex = index;
        stackOffset = index * rows * access.rowStride;
        start[0] = rowStart;
        start[1] = colStart;
        break;
      }
    }
  }
  std::optional<int> strideAtom = access.rowStride.singleAtom();
  if (!start[0] && !start[1] && strideAtom)
    std::tie(start[0], start[1]) = rest.splitBy(*strideAtom);
  else if (!start[0] && start[1] && strideAtom)
    start[0] = (rest - *start[1]).splitBy(*strideAtom).first;
  else if (start[0] && !start[1])
    start[1] = rest - *start[0] * access.rowStride;
  if (!start[0] || !start[1] || !(rest == *start[0] * access.rowStride + *start[1] + stackOffset))
    return std::nullopt;
  for (int axis : {0, 1}) {
    for (const Polynomial &r : lower[axis])
      if (!(r == Polynomial::constant(-1) - *start[axis]))
        return std::nullopt;
    // Without a lower bound the load reads below the rectangle's start where TMA reads zeros:
    // the start must not be negative.
    if (lower[axis].empty() && !nonNegative(*start[axis]))
      return std::nullopt;
  }
  // The extents: every upper bound says start + axis < extent, with extent = start - r.
  std::optional<Polynomial> extent[2];
  for (int axis : {0, 1}) {
    for (const Polynomial &r : upper[axis]) {
      Polynomial e = *start[axis] - r;
      if (extent[axis] && !(*extent[axis] == e))
        return std::nullopt;
      extent[axis] = e;
    }
    // A stack's columns span the tile.
    if (!extent[axis] && axis == 1 && access.stackIndex)
      extent[axis] = Polynomial::constant(type.getShape()[1]);
    if (!extent[axis] || !launchValue(*extent[axis], 1))
      return std::nullopt;
  }
  // Coordinates are built in i32, coefficients included.
  if (access.stackIndex)
    start[2] = *access.stackIndex;
  for (const std::optional<Polynomial> &coordinate : start)
    for (auto &[monomial, coefficient] : coordinate ? coordinate->terms : std::map<Polynomial::Monomial, int64_t>{}) {
      if (coefficient < INT32_MIN || coefficient > INT32_MAX)
        return std::nullopt;
      for (int atom : monomial)
        if (atom < 0 || !atoms_[atom].getType().isInteger(32))
          return std::nullopt;
    }
  access.rowStart = *start[0];
  access.colStart = *start[1];
  access.rowExtent = *extent[0];
  access.colExtent = *extent[1];
  return access;
}

TensorMapAttr tensorMapFor(const RectangularAccess &access, RankedTensorType tile, const RectangularAccessAnalysis &analysis) {
  SmallVector<int64_t> args, values;
  auto launchValue = [&](const Polynomial &p) {
    if (std::optional<int64_t> value = p.constantValue()) {
      args.push_back(-1);
      values.push_back(*value);
      return;
    }
    args.push_back(cast<BlockArgument>(analysis.atomValue(*p.singleAtom())).getArgNumber());
    values.push_back(0); // no factor
  };
  int64_t bytes = elementBytes(tile.getElementType());
  auto swizzle = SwizzleParams::ofElements(tile.getShape()[0], tile.getShape()[1], bytes);
  SmallVector<int64_t> box{tile.getShape()[0], swizzle.blockLength};
  // A stack of matrices: as deep as a non-negative i32 index reaches (no index is outside
  // it), its matrices rowExtent x rowStride elements apart.
  if (access.stackIndex) {
    args.push_back(-1);
    values.push_back(int64_t(1) << 31);
    box.insert(box.begin(), 1);
  }
  int64_t rank = box.size();
  launchValue(access.rowExtent);
  launchValue(access.colExtent);
  if (access.stackIndex) {
    std::optional<int64_t> rows = access.rowExtent.constantValue(), stride = access.rowStride.constantValue();
    const Polynomial &argument = rows ? access.rowStride : access.rowExtent;
    if (rows && stride) {
      args.push_back(-1);
      values.push_back(*rows * *stride);
    } else if (rows || stride) {
      launchValue(argument);
      values.back() = rows ? *rows : *stride; // the argument's factor
    } else {
      launchValue(access.rowExtent);
      // The factor another argument: encoded as -1 - its index.
      values.back() = -1 - int64_t(cast<BlockArgument>(analysis.atomValue(*access.rowStride.singleAtom())).getArgNumber());
    }
  }
  launchValue(access.rowStride);
  int64_t blockBytes = swizzle.blockBytes();
  // A recipe the attribute cannot hold (a constant past 2^32: an i64 stride of 2^33) gives no
  // map, and the load keeps cp.async; quietly, as a load that is no rectangle does.
  MLIRContext *context = tile.getContext();
  ScopedDiagnosticHandler quiet(context, [](Diagnostic &) { return success(); });
  return TensorMapAttr::getChecked([&] { return mlir::emitError(UnknownLoc::get(context)); }, context,
                                   int64_t(access.base.getArgNumber()), ArrayRef(args).take_front(rank),
                                   ArrayRef(values).take_front(rank), ArrayRef(args).drop_front(rank),
                                   ArrayRef(values).drop_front(rank), ArrayRef<int64_t>(box),
                                   int64_t(blockBytes >= 32 ? blockBytes : 0), bytes);
}

Value RectangularAccessAnalysis::build(OpBuilder &b, Location loc, const Polynomial &value, const IRMapping &mapping) {
  Value sum;
  for (auto &[monomial, coefficient] : value.terms) {
    Value term;
    for (int atom : monomial) {
      Value factor = mapping.lookupOrDefault(atoms_[atom]);
      term = term ? arith::MulIOp::create(b, loc, term, factor).getResult() : factor;
    }
    Value scale = i32Constant(b, loc, int32_t(coefficient));
    term = !term ? scale : coefficient == 1 ? term : arith::MulIOp::create(b, loc, term, scale).getResult();
    sum = sum ? arith::AddIOp::create(b, loc, sum, term).getResult() : term;
  }
  return sum ? sum : i32Constant(b, loc, 0);
}

namespace {

/// Where a pointer comes from: a kernel argument, or back to a loop argument being followed (a
/// pointer bumped in its own loop, which adds no other base).
struct PointerBase {
  BlockArgument argument;
  bool cycle = false;
};

std::optional<PointerBase> pointerBase(Value ptr, SmallPtrSetImpl<Value> &following, int depth) {
  if (depth > 64 || !ptr)
    return std::nullopt;
  if (auto arg = dyn_cast<BlockArgument>(ptr)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (isa<func::FuncOp>(owner))
      return PointerBase{arg};
    auto loop = dyn_cast<scf::ForOp>(owner);
    OpOperand *init = loop ? loop.getTiedLoopInit(arg) : nullptr;
    if (!init)
      return std::nullopt;
    if (!following.insert(arg).second)
      return PointerBase{BlockArgument(), true};
    // Both the value the loop starts from and the one each iteration yields: a loop that
    // switches a pointer to another argument points into both.
    std::optional<PointerBase> start = pointerBase(init->get(), following, depth + 1);
    std::optional<PointerBase> next = pointerBase(loop.getTiedLoopYieldedValue(arg)->get(), following, depth + 1);
    following.erase(arg);
    if (!start || !next)
      return std::nullopt;
    if (next->cycle || (!start->cycle && next->argument == start->argument))
      return start;
    return std::nullopt;
  }
  Operation *def = ptr.getDefiningOp();
  if (auto add = dyn_cast<AddPtrOp>(def))
    return pointerBase(add.getPtr(), following, depth + 1);
  if (isa<SplatOp, BroadcastOp, ExpandDimsOp, ReshapeOp, TransOp, ConvertLayoutOp>(def))
    return pointerBase(def->getOperand(0), following, depth + 1);
  return std::nullopt;
}

} // namespace

BlockArgument baseArgument(Value ptr) {
  SmallPtrSet<Value, 4> following;
  std::optional<PointerBase> base = pointerBase(ptr, following, 0);
  return base && !base->cycle ? base->argument : BlockArgument();
}

bool releases(MemorySemantic sem) { return sem == MemorySemantic::release || sem == MemorySemantic::acq_rel; }
bool acquires(MemorySemantic sem) { return sem == MemorySemantic::acquire || sem == MemorySemantic::acq_rel; }

GlobalAccess globalAccessOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, GlobalAccess>(op)
      .Case<LoadOp, PrefetchL2Op, AsyncCopyOp>([](auto read) { return GlobalAccess{read.getPtr(), false}; })
      .Case<StoreOp>([](StoreOp write) { return GlobalAccess{write.getPtr(), true}; })
      .Case<AtomicRMWOp, AtomicCASOp>([](auto atomic) { return GlobalAccess{atomic.getPtr(), true, releases(atomic.getSem())}; })
      .Default([](Operation *) { return GlobalAccess{}; });
}

} // namespace tk::codegen
