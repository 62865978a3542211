// LLVM dialect -> LLVM IR (nvptx64) -> optimized -> PTX through the NVPTX backend; PTX -> cubin
// through ptxas.
#include "tk/Codegen/Target.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"

#include <algorithm>
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <fstream>
#include <mutex>
#include <sstream>

namespace tk {

namespace {
const char *const kTriple = "nvptx64-nvidia-cuda";

void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // Shared-memory pointers in 32 bits, as Triton sets it: every ldmatrix, cp.async and
    // exchange address takes one register instead of two, and its arithmetic is 32-bit.
    auto &options = llvm::cl::getRegisteredOptions();
    if (auto it = options.find("nvptx-short-ptr"); it != options.end())
      static_cast<llvm::cl::opt<bool> *>(it->second)->setValue(true);
  });
}

std::unique_ptr<llvm::TargetMachine> targetMachine(const GpuTarget &target, const std::string &features,
                                                   std::string &error) {
  initializeNVPTX();
  llvm::Triple triple(kTriple);
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!t)
    return nullptr;
  llvm::TargetOptions options;
  // a * b + c becomes one fma, as Triton (enable_fp_fusion) and nvcc (-fmad=true) do.
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  return std::unique_ptr<llvm::TargetMachine>(t->createTargetMachine(
      triple, target.chip(), features, options, llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

std::unique_ptr<llvm::Module> translate(mlir::ModuleOp module, llvm::LLVMContext &context, const GpuTarget &target,
                                        llvm::TargetMachine &machine, std::string &error) {
  mlir::DialectRegistry registry;
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> llvmModule = mlir::translateModuleToLLVMIR(module, context, "tk");
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return nullptr;
  }
  llvmModule->setTargetTriple(llvm::Triple(kTriple));
  llvmModule->setDataLayout(machine.createDataLayout());
  // -O3, as clang would for CUDA.
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(*llvmModule, mam);
  return llvmModule;
}
} // namespace

std::string ptxFeatures(mlir::ModuleOp module, const GpuTarget &target) {
  int version = 80;
  // More than 4352 bytes of kernel parameters need PTX ISA 8.1 (up to 32764; each parameter
  // counted at 8 bytes, at most what it takes).
  module.walk([&](mlir::LLVM::LLVMFuncOp fn) {
    if (fn->hasAttr("nvvm.kernel") && fn.getNumArguments() * 8 > 4352)
      version = std::max(version, 81);
  });
  module.walk([&](mlir::LLVM::InlineAsmOp op) {
    llvm::StringRef text = op.getAsmString();
    if (text.starts_with(kFloat8MmaSync))
      version = std::max(version, 84);
    else if (target.sm < 90 && text.starts_with(kFloat8PairCvt))
      version = std::max(version, 81);
  });
  return "+ptx" + std::to_string(version);
}

namespace {
/// Translates and optimizes the module, then hands the LLVM module and its target machine to
/// `use`; returns "" with `error` set when any step fails.
template <typename Use>
std::string withLLVMModule(mlir::ModuleOp module, const GpuTarget &target, std::string &error, Use use) {
  auto machine = targetMachine(target, ptxFeatures(module, target), error);
  if (!machine)
    return "";
  llvm::LLVMContext context;
  auto llvmModule = translate(module, context, target, *machine, error);
  if (!llvmModule)
    return "";
  return use(*llvmModule, *machine);
}
} // namespace

std::string emitLLVMIR(mlir::ModuleOp module, const GpuTarget &target, std::string &error) {
  return withLLVMModule(module, target, error, [](llvm::Module &llvmModule, llvm::TargetMachine &) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvmModule.print(os, nullptr);
    return text;
  });
}

std::string emitPTX(mlir::ModuleOp module, const GpuTarget &target, std::string &error) {
  return withLLVMModule(module, target, error, [&](llvm::Module &llvmModule, llvm::TargetMachine &machine) {
    llvm::SmallString<0> ptx;
    llvm::raw_svector_ostream os(ptx);
    llvm::legacy::PassManager pm;
    if (machine.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
      error = "the NVPTX backend cannot emit PTX";
      return std::string();
    }
    pm.run(llvmModule);
    return std::string(ptx.str());
  });
}

std::string assembleCubin(const std::string &ptx, const GpuTarget &target, std::string &error, std::string *report) {
  std::string ptxas;
  if (const char *env = std::getenv("TK_PTXAS"))
    ptxas = env;
  else if (auto found = llvm::sys::findProgramByName("ptxas"))
    ptxas = *found;
  else if (auto cuda = llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"}))
    ptxas = *cuda;
  if (ptxas.empty()) {
    error = "cannot find ptxas (set TK_PTXAS, or put the CUDA toolkit's bin on the PATH)";
    return "";
  }
  llvm::SmallString<128> input, output, log;
  llvm::sys::fs::createTemporaryFile("tk", "ptx", input);
  llvm::sys::fs::createTemporaryFile("tk", "cubin", output);
  llvm::sys::fs::createTemporaryFile("tk", "log", log);
  {
    std::ofstream file(input.c_str());
    file << ptx;
  }
  std::string arch = "-arch=" + target.chip();
  llvm::SmallVector<llvm::StringRef> args = {ptxas, arch, "-O3", "-v", input, "-o", output};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log), llvm::StringRef(log)};
  int status = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects);
  std::ifstream logFile(log.c_str());
  std::stringstream logText;
  logText << logFile.rdbuf();
  std::string cubin;
  if (status == 0) {
    std::ifstream out(output.c_str(), std::ios::binary);
    std::stringstream data;
    data << out.rdbuf();
    cubin = data.str();
  } else {
    error = "ptxas rejected the PTX:\n" + logText.str();
  }
  if (report)
    *report = logText.str();
  llvm::sys::fs::remove(input);
  llvm::sys::fs::remove(output);
  llvm::sys::fs::remove(log);
  return cubin;
}

} // namespace tk
