// The conversion patterns of tk-to-threads (one populate function per op family) and of the
// f8 casts before tk-threads-to-llvm.
#ifndef TK_CODEGEN_PATTERNS_H
#define TK_CODEGEN_PATTERNS_H

#include "AxisAnalysis.h"
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tk::codegen {

void populateElementwiseToThreads(ThreadTypeConverter &converter, const AxisAnalysis &axis,
                                  mlir::RewritePatternSet &patterns);
void populateMemoryToThreads(ThreadTypeConverter &converter, const AxisAnalysis &axis,
                             mlir::RewritePatternSet &patterns);
void populateReduceToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateScanToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateRandomToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateShapeToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateDotToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateAsyncCopyToThreads(ThreadTypeConverter &converter, const AxisAnalysis &axis,
                                mlir::RewritePatternSet &patterns);
/// mbarriers and TMA copies (TmaPipeline.cpp's ops).
void populateTmaToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
/// `kernel`'s atomics, whose barriers depend on the global writes that may precede them.
void populateAtomicToThreads(ThreadTypeConverter &converter, mlir::func::FuncOp kernel,
                             mlir::RewritePatternSet &patterns);
/// f8 <-> wider float conversions: integer arithmetic, f8 -> wider by sm_89's cvt on `sm` >= 89
/// (run before the LLVM conversion).
void populateFloat8CastPatterns(mlir::RewritePatternSet &patterns, int sm);
void populateDebugToThreads(ThreadTypeConverter &converter, bool debug, mlir::RewritePatternSet &patterns);
/// What lets a kernel overlap the one before it: gdc_wait, gdc_launch_dependents and
/// prefetch_l2 (sm_90 and later; nothing before).
void populateLaunchOverlapToThreads(ThreadTypeConverter &converter, int sm, mlir::RewritePatternSet &patterns);
/// The PTX of gdc_wait, by which tk-threads-to-llvm finds the kernels that wait for their grid
/// dependencies (the runtime launches them as programmatic dependents).
inline constexpr const char *kGridDependencyWait = "griddepcontrol.wait;";

} // namespace tk::codegen

#endif
