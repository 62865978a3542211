// print and assert on the GPU: print is the device's vprintf, one line per element the
// printing thread owns, in the interpreter's format ("pid (x, y, z) idx (i, j) label value");
// assert (kept only with --debug, as Triton's device_assert) calls __assertfail, which prints
// file, line and message and stops the kernel with CUDA_ERROR_ASSERT.

#include "IndexArithmetic.h"
#include "Patterns.h"
#include "ThreadTypeConverter.h"
#include "tk/Dialect/Tk/IR/SourcePositions.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tk::codegen {

namespace {

/// A NUL-terminated string constant of the module, by value (equal strings share one global).
Value stringConstant(OpBuilder &b, Location loc, ModuleOp module, StringRef text) {
  std::string contents = text.str();
  contents.push_back('\0');
  std::string name = "tk_str_" + std::to_string(llvm::hash_value(contents) & 0xffffffffffff);
  auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), contents.size());
    global = LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal, name,
                                    b.getStringAttr(contents), /*alignment=*/1);
  }
  return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), global.getSymName());
}

LLVM::LLVMFuncOp declaration(OpBuilder &b, ModuleOp module, StringRef name, LLVM::LLVMFunctionType type) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// printf's conversion for a value and the value as printf receives it (varargs promotion).
std::pair<std::string, Value> printfArgument(OpBuilder &b, Location loc, Value v, Type original) {
  Type type = v.getType();
  if (isa<LLVM::LLVMPointerType>(type))
    return {"0x%llx", LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v)};
  if (isa<FloatType>(type))
    return {"%g", type.isF64() ? v : (Value)arith::ExtFOp::create(b, loc, b.getF64Type(), v)};
  if (type.getIntOrFloatBitWidth() == 64)
    return {"%lld", v};
  if (type.getIntOrFloatBitWidth() < 32)
    v = type.isInteger(1) ? (Value)arith::ExtUIOp::create(b, loc, b.getI32Type(), v)
                          : (Value)arith::ExtSIOp::create(b, loc, b.getI32Type(), v);
  (void)original;
  return {"%d", v};
}

void vprintf(OpBuilder &b, Location loc, ModuleOp module, StringRef format, ValueRange args) {
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto fn = declaration(b, module, "vprintf", LLVM::LLVMFunctionType::get(b.getI32Type(), {ptr, ptr}));
  SmallVector<Type> fields;
  for (Value a : args)
    fields.push_back(a.getType());
  auto record = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
  Value buffer = LLVM::AllocaOp::create(b, loc, ptr, record, i32Constant(b, loc, 1));
  for (size_t i = 0; i < args.size(); ++i) {
    Value field = LLVM::GEPOp::create(b, loc, ptr, record, buffer, ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
    LLVM::StoreOp::create(b, loc, args[i], field);
  }
  LLVM::CallOp::create(b, loc, fn, ValueRange{stringConstant(b, loc, module, format), buffer});
}

struct PrintPattern : public OpConversionPattern<PrintOp> {
  PrintPattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context), converter(converter) {}

  LogicalResult matchAndRewrite(PrintOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    std::string label = op.getPrefix().str();
    std::string escaped;
    for (char c : label)
      escaped += c == '%' ? std::string("%%") : std::string(1, c);
    SmallVector<Value> pid{gridIndex(rewriter, loc, 0, false), gridIndex(rewriter, loc, 1, false),
                           gridIndex(rewriter, loc, 2, false)};
    Value tid = threadId(rewriter, loc);
    if (op.getArgs().empty()) {
      emitOnce(rewriter, loc, arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, tid, i32Constant(rewriter, loc, 0)),
               [&](OpBuilder &b) { vprintf(b, loc, module, "pid (%d, %d, %d) " + escaped + "\n", pid); });
    }
    for (auto [arg, values] : llvm::zip(op.getArgs(), adaptor.getArgs())) {
      BlockedLayout l = converter.layoutOf(arg.getType());
      auto tile = dyn_cast<RankedTensorType>(arg.getType());
      Value owner = tile ? isOwner(rewriter, loc, l, tid)
                         : (Value)arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, tid, i32Constant(rewriter, loc, 0));
      emitOnce(rewriter, loc, owner, [&](OpBuilder &b) {
        for (size_t slot = 0; slot < values.size(); ++slot) {
          SmallVector<Value> args(pid);
          std::string format = "pid (%d, %d, %d)";
          if (tile) {
            Value index = elementIndex(b, loc, l, slot, tid);
            format += " idx (";
            int64_t stride = tile.getNumElements();
            for (int64_t d = 0; d < tile.getRank(); ++d) {
              stride /= tile.getDimSize(d);
              Value coordinate = arith::RemUIOp::create(b, loc, arith::DivUIOp::create(b, loc, index, i32Constant(b, loc, stride)),
                                                        i32Constant(b, loc, tile.getDimSize(d)));
              format += d ? ", %d" : "%d";
              args.push_back(coordinate);
            }
            format += ")";
          }
          auto [conversion, value] = printfArgument(b, loc, values[slot], arg.getType());
          format += " " + escaped + conversion + "\n";
          args.push_back(value);
          vprintf(b, loc, module, format, args);
        }
      });
    }
    rewriter.eraseOp(op);
    return success();
  }

  template <typename Body> static void emitOnce(OpBuilder &b, Location loc, Value pred, Body body) {
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, pred, false);
    OpBuilder inner = ifOp.getThenBodyBuilder();
    body(inner);
  }

  ThreadTypeConverter &converter;
};

struct AssertPattern : public OpConversionPattern<AssertOp> {
  AssertPattern(ThreadTypeConverter &converter, bool debug, MLIRContext *context)
      : OpConversionPattern(converter, context), debug(debug) {}

  LogicalResult matchAndRewrite(AssertOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    if (!debug) {
      rewriter.eraseOp(op);
      return success();
    }
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto ptr = LLVM::LLVMPointerType::get(getContext());
    auto fn = declaration(rewriter, module, "__assertfail",
                          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(getContext()),
                                                      {ptr, ptr, rewriter.getI32Type(), ptr, rewriter.getI64Type()}));
    std::string file = "<unknown>";
    int64_t line = 0;
    if (auto positions = sourcePositions(loc); !positions.empty()) { // (an assert in an fn: its line there)
      file = positions.front().getFilename().str();
      line = positions.front().getLine();
    }
    auto kernel = op->getParentOfType<func::FuncOp>();
    for (Value cond : adaptor.getCond()) {
      Value failed = arith::XOrIOp::create(rewriter, loc, cond, arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true)));
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, failed, false);
      OpBuilder b = ifOp.getThenBodyBuilder();
      LLVM::CallOp::create(b, loc, fn,
                           ValueRange{stringConstant(b, loc, module, op.getMessage()), stringConstant(b, loc, module, file),
                                      i32Constant(b, loc, line), stringConstant(b, loc, module, kernel.getSymName()),
                                      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1))});
    }
    rewriter.eraseOp(op);
    return success();
  }

  bool debug;
};

/// tk.progress: an empty `asm volatile`, which neither MLIR nor LLVM deletes, so a loop with no
/// other effect is kept (LLVM deletes an effect-free loop only under mustprogress).
struct ProgressPattern : public OpConversionPattern<ProgressOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ProgressOp op, OneToNOpAdaptor, ConversionPatternRewriter &rewriter) const override {
    inlinePtx(rewriter, op.getLoc(), TypeRange{}, ValueRange{}, "", "", /*sideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateDebugToThreads(ThreadTypeConverter &converter, bool debug, RewritePatternSet &patterns) {
  patterns.add<PrintPattern>(converter, patterns.getContext());
  patterns.add<AssertPattern>(converter, debug, patterns.getContext());
  patterns.add<ProgressPattern>(converter, patterns.getContext());
}

} // namespace tk::codegen
