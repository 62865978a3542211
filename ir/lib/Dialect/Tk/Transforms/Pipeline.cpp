#include "tk/Dialect/Tk/Transforms/Passes.h"

#include "mlir/Transforms/Passes.h"

void tk::buildTileOptimizationPipeline(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createInlinerPass());
  pm.addPass(mlir::createSymbolDCEPass());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(mlir::createLoopInvariantCodeMotionPass());
  pm.addNestedPass<mlir::func::FuncOp>(createTkCombineDotAdd());
  pm.addPass(mlir::createCanonicalizerPass());
}
