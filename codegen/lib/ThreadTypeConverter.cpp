// The 1:N type converter of tk-to-threads.
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace tk::codegen {

ThreadTypeConverter::ThreadTypeConverter(MLIRContext *context, int64_t threads) : threads_(threads) {
  addConversion([](Type type) { return type; });
  addConversion([context](PtrType) -> Type { return LLVM::LLVMPointerType::get(context, 1); });
  addConversion([context](SharedBufferType) -> Type { return LLVM::LLVMPointerType::get(context, 3); });
  addConversion([context](BarriersType) -> Type { return LLVM::LLVMPointerType::get(context, 3); });
  // A tensor map is passed by value; the kernel reads it through its parameter's address.
  addConversion([context](TensorMapType) -> Type { return LLVM::LLVMPointerType::get(context); });
  addConversion([this](RankedTensorType type, SmallVectorImpl<Type> &results) -> std::optional<LogicalResult> {
    Type element = convertType(type.getElementType());
    if (!element)
      return failure();
    // Only a tile whose type names its layout (tk-assign-layouts) says how many scalars each
    // thread keeps.
    if (!layoutBitsOf(type))
      return failure();
    results.append(scalarsPerThread(type), element);
    return success();
  });
}

BlockedLayout ThreadTypeConverter::layoutOf(Type type) const {
  if (!isa<RankedTensorType>(type))
    return BlockedLayout{1, threads_, 1};
  std::optional<BlockedLayout> blocked = blockedLayoutOf(type);
  if (!blocked) {
    if (!misplaced_)
      misplaced_ = type;
    return BlockedLayout{cast<RankedTensorType>(type).getNumElements(), threads_, 1};
  }
  return *blocked;
}

} // namespace tk::codegen
