#include "tk/Codegen/Passes.h"
#include "tk/Dialect/Tk/IR/Tk.h"
#include "tk/Dialect/Tk/Transforms/Passes.h"
#include "tk/Dialect/TkGpu/IR/TkGpu.h"
#include "tk/Driver/Compiler.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int tk::optMain(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registerTkDialects(registry);
  mlir::registerTransformsPasses();
  registerTkPasses();
  registerTkCodegenPasses();
  registry.insert<tk::gpu::TkgDialect, mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect>();
  mlir::PassPipelineRegistration<>("tk-tile-pipeline",
                                   "The tile-level cleanup pipeline of tkc --emit=tk",
                                   [](mlir::OpPassManager &pm) { buildTileOptimizationPipeline(pm); });
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "tk optimizer driver\n", registry));
}
