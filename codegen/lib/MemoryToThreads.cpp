// Pointer arithmetic, loads and stores. Each thread accesses its groups of contiguous elements
// with one vector instruction when the axis analysis proves the group contiguous, aligned and
// under one mask value; otherwise element by element. Masked-off lanes never touch memory.
#include "AffineAddresses.h"
#include "AxisAnalysis.h"
#include "IndexArithmetic.h"
#include "MemoryAccess.h"
#include "MemoryTypes.h"
#include "Patterns.h"
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tk::codegen {

namespace {

Type pointeeOf(Value ptr) { return cast<PtrType>(tk::elementTypeOf(ptr.getType())).getPointee(); }

int64_t bytesOf(Type element) { return std::max<int64_t>(1, memoryType(element).getIntOrFloatBitWidth() / 8); }

struct AddPtrPattern : public OpConversionPattern<AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AddPtrOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Type element = memoryType(pointeeOf(op.getPtr()));
    auto ptrType = LLVM::LLVMPointerType::get(getContext(), 1);
    size_t count = std::max(adaptor.getPtr().size(), adaptor.getOffset().size());
    SmallVector<Value> values;
    for (size_t i = 0; i < count; ++i)
      values.push_back(LLVM::GEPOp::create(rewriter, op.getLoc(), ptrType, element, slotOf(adaptor.getPtr(), i),
                                           ValueRange{slotOf(adaptor.getOffset(), i)}));
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

} // namespace

int64_t vectorSlots(const AxisAnalysis &axis, const BlockedLayout &l, Value ptr, Value mask, Type element) {
  return vectorSlots(axis, l.size < l.threads * l.sizePerThread ? 1 : l.sizePerThread, ptr, mask, element);
}

int64_t vectorSlots(const AxisAnalysis &axis, int64_t run, Value ptr, Value mask, Type element) {
  int64_t width = run;
  if (width == 1)
    return 1;
  AxisInfo p = axis.get(ptr);
  int64_t bytes = bytesOf(element);
  while (width > 1 && (p.contiguity < width || p.divisibility < width * bytes ||
                       (mask && axis.get(mask).constancy < width) || width * bytes > 16))
    width /= 2;
  return width;
}

int64_t accessWidth(const AxisAnalysis &axis, const ThreadTypeConverter &converter, Value ptr, Value mask,
                    RankedTensorType tile) {
  // Groups of slots are contiguous along the last dimension only up to its length. In an
  // accumulator layout (a load of an epilogue's operand), the slots whose bits are the index's
  // lowest hold consecutive elements: the column pair.
  int64_t groups;
  if (std::optional<LayoutBits> bits = layoutBitsOf(tile)) {
    int run = 0;
    while (run < int(bits->slot.size()) && bits->slot[run] == run)
      ++run;
    groups = vectorSlots(axis, int64_t(1) << run, ptr, mask, pointeeOf(ptr));
  } else {
    groups = vectorSlots(axis, converter.layoutOf(tile), ptr, mask, pointeeOf(ptr));
  }
  return std::min(tile.getShape().back(), groups);
}

Value l2EvictionPolicy(OpBuilder &b, Location loc, EvictionPolicy evict) {
  if (evict == EvictionPolicy::normal)
    return Value();
  return inlinePtx(b, loc, b.getI64Type(), ValueRange{},
                   std::string("createpolicy.fractional.L2::") + (evict == EvictionPolicy::first ? "evict_first" : "evict_last") +
                       ".b64 $0, 1.0;",
                   "=l", /*sideEffects=*/false);
}

namespace {

/// A load's or store's cache hints as PTX: the access's qualifiers ("" for none) and, for an
/// eviction priority, the L2 policy that goes with them. A cache operator (.ca, .cg) and an L1
/// eviction priority are alternative forms of ld in PTX; the operator wins (with .cg the line
/// skips L1, where the priority would act). The priority also applies in L2, as Triton's
/// `eviction_policy` does: `createpolicy.fractional.L2::evict_first` (or _last; sm_80, tk's
/// oldest target) and the access's `.L2::cache_hint`, so that data read once (a GEMV's
/// weights) does not push out of L2 what is read again (activations, lines a later kernel
/// prefetched). A load's L2 prefetch size (`.L2::256B`: the L2 fetches that many bytes around
/// the access) comes last.
struct CacheHints {
  std::string qualifiers;
  EvictionPolicy l2Evict = EvictionPolicy::normal; // the L2 part of the priority
  Value policy;             // the op's L2 policy (l2EvictionPolicy), the accesses' last operand

  bool empty() const { return qualifiers.empty(); }
};

CacheHints cacheHints(CacheModifier cache, EvictionPolicy evict, uint32_t prefetchSize = 0) {
  CacheHints hints;
  if (cache == CacheModifier::ca)
    hints.qualifiers = ".ca";
  else if (cache == CacheModifier::cg)
    hints.qualifiers = ".cg";
  else if (evict == EvictionPolicy::first)
    hints.qualifiers = ".L1::evict_first";
  else if (evict == EvictionPolicy::last)
    hints.qualifiers = ".L1::evict_last";
  if (evict != EvictionPolicy::normal) {
    hints.l2Evict = evict;
    hints.qualifiers += ".L2::cache_hint";
  }
  if (prefetchSize)
    hints.qualifiers += ".L2::" + std::to_string(prefetchSize) + "B";
  return hints;
}

/// The registers one access of `bytes` bytes moves: four, two or one 32-bit ("r") or one
/// 16-bit ("h") register, and their PTX type.
struct AccessRegisters {
  int count;
  unsigned bits;
  const char *ptxType;
};

AccessRegisters registersFor(int64_t bytes) {
  if (bytes >= 4)
    return {int(bytes / 4), 32, "b32"};
  return {1, 16, bytes == 2 ? "b16" : "b8"};
}

std::string vectorPrefix(int count) { return count == 1 ? "" : ".v" + std::to_string(count); }

/// The op's L2 policy as the access's last operand (number `number`), when it has one: added to
/// `operands` and `constraints`; its text (", $n") for the end of the access.
std::string policyOperand(const CacheHints &hints, int number, SmallVectorImpl<Value> &operands, std::string &constraints) {
  if (!hints.policy)
    return "";
  operands.push_back(hints.policy);
  constraints += ",l";
  return ", $" + std::to_string(number);
}

/// ld.global with cache qualifiers, as inline PTX (LLVM's loads carry no cache hints). The asm
/// has side effects: without them MLIR and LLVM take it for a pure computation and merge two
/// such loads of one address across a store or a gdc_wait between them.
Value hintedLoad(OpBuilder &b, Location loc, Type accessType, Value ptr, int64_t bytes, const CacheHints &hints) {
  AccessRegisters regs = registersFor(bytes);
  Type reg = b.getIntegerType(regs.bits);
  std::string list, constraints;
  for (int i = 0; i < regs.count; ++i) {
    list += (i ? ", $" : "$") + std::to_string(i);
    constraints += regs.bits == 32 ? "=r," : "=h,";
  }
  SmallVector<Value, 2> operands{ptr};
  constraints += "l";
  std::string policy = policyOperand(hints, regs.count + 1, operands, constraints);
  std::string text = "ld.global" + hints.qualifiers + vectorPrefix(regs.count) + "." + regs.ptxType + " " +
                     (regs.count == 1 ? list : "{" + list + "}") + ", [$" + std::to_string(regs.count) + "]" + policy + ";";
  Type result = regs.count == 1 ? reg : (Type)LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(regs.count, reg));
  Value raw = inlinePtx(b, loc, result, operands, text, constraints, /*sideEffects=*/true);
  if (regs.count > 1) {
    auto vector = VectorType::get({regs.count}, reg);
    Value packed = LLVM::PoisonOp::create(b, loc, vector);
    for (int i = 0; i < regs.count; ++i)
      packed = LLVM::InsertElementOp::create(b, loc, packed, LLVM::ExtractValueOp::create(b, loc, raw, ArrayRef<int64_t>{i}),
                                             i32Constant(b, loc, i));
    raw = packed;
  } else if (bytes == 1) {
    raw = LLVM::TruncOp::create(b, loc, b.getI8Type(), raw);
  }
  return raw.getType() == accessType ? raw : (Value)LLVM::BitcastOp::create(b, loc, accessType, raw);
}

/// st.global with cache qualifiers, as inline PTX.
void hintedStore(OpBuilder &b, Location loc, Value data, Value ptr, int64_t bytes, const CacheHints &hints) {
  AccessRegisters regs = registersFor(bytes);
  Type reg = b.getIntegerType(regs.bits);
  SmallVector<Value> operands{ptr};
  if (regs.count > 1) {
    Value vector = LLVM::BitcastOp::create(b, loc, VectorType::get({regs.count}, reg), data);
    for (int i = 0; i < regs.count; ++i)
      operands.push_back(LLVM::ExtractElementOp::create(b, loc, vector, i32Constant(b, loc, i)));
  } else {
    Value word = isa<VectorType>(data.getType()) || data.getType().getIntOrFloatBitWidth() == regs.bits
                     ? (Value)LLVM::BitcastOp::create(b, loc, reg, data)
                     : (Value)LLVM::ZExtOp::create(b, loc, reg, LLVM::BitcastOp::create(b, loc, b.getI8Type(), data));
    operands.push_back(word);
  }
  std::string list, constraints = "l";
  for (int i = 0; i < regs.count; ++i) {
    list += (i ? ", $" : "$") + std::to_string(i + 1);
    constraints += regs.bits == 32 ? ",r" : ",h";
  }
  std::string policy = policyOperand(hints, regs.count + 1, operands, constraints);
  std::string text = "st.global" + hints.qualifiers + vectorPrefix(regs.count) + "." + regs.ptxType + " [$0], " +
                     (regs.count == 1 ? list : "{" + list + "}") + policy + ";";
  inlinePtx(b, loc, TypeRange{}, operands, text, constraints, /*sideEffects=*/true);
}

/// Emits `scf.if pred { then } else { otherwise }` yielding one value of `type`.
template <typename Then, typename Else>
Value guarded(OpBuilder &b, Location loc, Value pred, Type type, Then then, Else otherwise) {
  if (!pred)
    return then(b);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, pred, true);
  OpBuilder thenBuilder = ifOp.getThenBodyBuilder();
  scf::YieldOp::create(thenBuilder, loc, then(thenBuilder));
  OpBuilder elseBuilder = ifOp.getElseBodyBuilder();
  scf::YieldOp::create(elseBuilder, loc, otherwise(elseBuilder));
  return ifOp.getResult(0);
}

Value zeroOf(OpBuilder &b, Location loc, Type type) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
}

} // namespace

Value loadElement(OpBuilder &b, Location loc, Value ptr, Value pred, Value other, Type element) {
  Type stored = memoryType(element);
  Value loaded = guarded(
      b, loc, pred, stored, [&](OpBuilder &inside) -> Value { return LLVM::LoadOp::create(inside, loc, stored, ptr, bytesOf(element)); },
      [&](OpBuilder &inside) -> Value { return other ? toMemory(inside, loc, other) : zeroOf(inside, loc, stored); });
  return fromMemory(b, loc, loaded, element);
}

namespace {

/// Loads and stores: both pick how many consecutive slots one access covers.
template <typename Op> struct AccessPattern : public OpConversionPattern<Op> {
  AccessPattern(ThreadTypeConverter &converter, const AxisAnalysis &axis, MLIRContext *context)
      : OpConversionPattern<Op>(converter, context), axis(axis), converter(converter) {}

  /// Slots per access for the tile `data` moved through `op`'s pointers under its mask.
  int64_t widthFor(Op op, Value data) const {
    auto tile = dyn_cast<RankedTensorType>(data.getType());
    if (!tile)
      return 1;
    return accessWidth(axis, converter, op.getPtr(), op.getMask(), tile);
  }

  /// Where the access's slots are: the default layout, or an accumulator's (an epilogue's
  /// operand read where it is used, 4-byte partials written where they are held).
  Distribution distributionFor(Value ptr) const {
    Type type = ptr.getType();
    return hasLinearLayout(type) ? Distribution{*layoutBitsOf(type), std::nullopt} : Distribution::of(converter.layoutOf(type));
  }

  const AxisAnalysis &axis;
  ThreadTypeConverter &converter;
};

struct LoadPattern : public AccessPattern<LoadOp> {
  using AccessPattern::AccessPattern;

  LogicalResult matchAndRewrite(LoadOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = pointeeOf(op.getPtr()), stored = memoryType(element);
    ValueRange ptrs = adaptor.getPtr();
    ValueRange masks = op.getMask() ? adaptor.getMask() : ValueRange{};
    ValueRange others = op.getOther() ? adaptor.getOther() : ValueRange{};
    int64_t width = widthFor(op, op.getResult());
    CacheHints hints = cacheHints(op.getCache(), op.getEvict(), op.getPrefetchSize());
    hints.policy = l2EvictionPolicy(rewriter, loc, hints.l2Evict); // (once for all the op's accesses)
    Distribution l = distributionFor(op.getPtr());
    auto coefficients = indexBitCoefficients(op.getPtr());
    SmallVector<Value> values;
    // Slots that differ only in broadcast bits hold the same pointer and mask values (the
    // broadcast computes each distinct element once): such an access reuses the earlier one's
    // result (a GEMV row's activations, broadcast over the weight rows a thread holds).
    DenseMap<std::pair<Value, Value>, SmallVector<size_t, 1>> accessesAt; // by first pointer and mask
    for (size_t start = 0; start < ptrs.size(); start += width) {
      Value pred = masks.empty() ? Value() : slotOf(masks, start);
      SmallVector<size_t, 1> &candidates = accessesAt[{ptrs[start], pred}];
      auto same = llvm::find_if(candidates, [&](size_t earlier) { return sameAccess(ptrs, masks, others, earlier, start, width); });
      if (same != candidates.end()) {
        for (int64_t k = 0; k < width; ++k)
          values.push_back(values[*same + size_t(k)]);
        continue;
      }
      candidates.push_back(start);
      Value ptr = slotPointer(rewriter, loc, op.getPtr(), ptrs, l, start, coefficients);
      Type accessType = width == 1 ? stored : (Type)VectorType::get({width}, stored);
      Value loaded = guarded(
          rewriter, loc, pred, accessType,
          [&](OpBuilder &b) -> Value {
            if (!hints.empty())
              return hintedLoad(b, loc, accessType, ptr, width * bytesOf(element), hints);
            return LLVM::LoadOp::create(b, loc, accessType, ptr, width * bytesOf(element));
          },
          [&](OpBuilder &b) -> Value {
            // Masked-off lanes take `other` (or zero).
            if (width == 1)
              return others.empty() ? zeroOf(b, loc, stored) : toMemory(b, loc, slotOf(others, start));
            Value vector = LLVM::PoisonOp::create(b, loc, accessType);
            for (int64_t k = 0; k < width; ++k) {
              Value v = others.empty() ? zeroOf(b, loc, stored) : toMemory(b, loc, slotOf(others, start + k));
              vector = LLVM::InsertElementOp::create(b, loc, vector, v, i32Constant(b, loc, k));
            }
            return vector;
          });
      for (int64_t k = 0; k < width; ++k) {
        Value v = width == 1 ? loaded : (Value)LLVM::ExtractElementOp::create(rewriter, loc, loaded, i32Constant(rewriter, loc, k));
        values.push_back(fromMemory(rewriter, loc, v, element));
      }
    }
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }

  /// Whether the accesses of `width` slots at `a` and `b` have the very same pointer, mask
  /// and `other` values (so they read the same bytes into the same results).
  static bool sameAccess(ValueRange ptrs, ValueRange masks, ValueRange others, size_t a, size_t b, int64_t width) {
    for (int64_t k = 0; k < width; ++k)
      if (ptrs[a + size_t(k)] != ptrs[b + size_t(k)] ||
          (!masks.empty() && slotOf(masks, a + size_t(k)) != slotOf(masks, b + size_t(k))) ||
          (!others.empty() && slotOf(others, a + size_t(k)) != slotOf(others, b + size_t(k))))
        return false;
    return true;
  }
};

struct StorePattern : public AccessPattern<StoreOp> {
  using AccessPattern::AccessPattern;

  LogicalResult matchAndRewrite(StoreOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = pointeeOf(op.getPtr()), stored = memoryType(element);
    ValueRange ptrs = adaptor.getPtr(), values = adaptor.getValue();
    ValueRange masks = op.getMask() ? adaptor.getMask() : ValueRange{};
    int64_t width = widthFor(op, op.getValue());
    CacheHints hints = cacheHints(CacheModifier::none, op.getEvict());
    hints.policy = l2EvictionPolicy(rewriter, loc, hints.l2Evict); // (once for all the op's accesses)
    Distribution l = distributionFor(op.getPtr());
    auto coefficients = indexBitCoefficients(op.getPtr());
    for (size_t start = 0; start < ptrs.size(); start += width) {
      Value ptr = slotPointer(rewriter, loc, op.getPtr(), ptrs, l, start, coefficients);
      Value data;
      if (width == 1) {
        data = toMemory(rewriter, loc, slotOf(values, start));
      } else {
        data = LLVM::PoisonOp::create(rewriter, loc, VectorType::get({width}, stored));
        for (int64_t k = 0; k < width; ++k)
          data = LLVM::InsertElementOp::create(rewriter, loc, data,
                                               toMemory(rewriter, loc, slotOf(values, start + k)),
                                               i32Constant(rewriter, loc, k));
      }
      auto emit = [&](OpBuilder &b) {
        if (!hints.empty())
          hintedStore(b, loc, data, ptr, width * bytesOf(element), hints);
        else
          LLVM::StoreOp::create(b, loc, data, ptr, width * bytesOf(element));
      };
      if (masks.empty()) {
        emit(rewriter);
        continue;
      }
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, slotOf(masks, start), false);
      OpBuilder thenBuilder = ifOp.getThenBodyBuilder();
      emit(thenBuilder);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateMemoryToThreads(ThreadTypeConverter &converter, const AxisAnalysis &axis, RewritePatternSet &patterns) {
  patterns.add<AddPtrPattern>(converter, patterns.getContext());
  patterns.add<LoadPattern, StorePattern>(converter, axis, patterns.getContext());
}

} // namespace tk::codegen
