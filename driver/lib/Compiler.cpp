#include "tk/Driver/Compiler.h"
#include "tk/Frontend/SymbolIndex.h"

#include "tk/Codegen/Passes.h"
#include "tk/Codegen/Target.h"
#include "tk/Dialect/Tk/IR/Tk.h"
#include "tk/Dialect/Tk/IR/SourcePositions.h"
#include "tk/Dialect/Tk/Transforms/Passes.h"
#include "tk/Frontend/MLIRGen.h"
#include "tk/Frontend/Parser.h"
#include "tk/Frontend/Sema.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Config/llvm-config.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_os_ostream.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <dlfcn.h>
#include <unistd.h>

namespace tk {

std::string KernelSummary::str() const {
  std::ostringstream os;
  os << name << ": " << runtimeArgs << " args, constants {" << constants << "}, num_warps=" << numWarps
     << ", num_stages=" << numStages << ", " << tileOps << " tile ops";
  if (configs)
    os << ", " << configs << " autotune configs";
  if (tensorCoreDots > 0 || fmaDots > 0)
    os << ", dots: " << tensorCoreDots << " on tensor cores, " << fmaDots << " by FMA";
  // What warp_specialize became (a kernel without a TMA pipeline to fill keeps one warpgroup
  // kind, and two programs a CTA fall back to one): said, since nothing else shows it.
  if (warpSpecialize > 0 && tensorCoreDots >= 0)
    os << (producer ? ", a producer warpgroup"
                    : ", no producer warpgroup (warp_specialize " + std::to_string(warpSpecialize) +
                          " did not apply: no loop of dots filled by TMA)");
  if (programsPerCta > 1)
    os << ", " << programsPerCta << " programs a CTA";
  else if (warpSpecialize == 3 && producer)
    os << ", one program a CTA (warp_specialize 3's two did not apply)";
  if (clusterCtas > 1)
    os << ", on clusters of " << clusterCtas << " CTAs";
  else if (clusterSize > 1 && tensorCoreDots >= 0)
    os << ", one CTA a cluster (cluster_size " << clusterSize
       << " did not apply: it needs a producer over a persistent loop whose programs differ in their tiles only)";
  return os.str();
}

struct Compiler::Impl {
  explicit Impl(CompileOptions opts)
      : options(std::move(opts)), diags(sources),
        program(sources, diags, options.stdlibDirs.empty() ? std::vector<std::string>{defaultStdlibDir()}
                                                           : options.stdlibDirs),
        sema(program, diags) {
    sema.setDefinesLabel(options.definesLabel);
    if (!options.tool.empty())
      diags.setUnlocatedPrefix(options.tool + ": ");
    registerTkDialects(registry);
    registry.insert<mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect>();
    context = std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
  }

  CompileOptions options;
  SourceManager sources;
  DiagEngine diags;
  Program program;
  Sema sema;
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> context;
  bool loaded = false;
  bool internalError = false;
  std::string ptxasReport;
  int64_t sharedBytes = 0; // dynamic shared memory of the last GPU emit
  int launchThreads = 0;   // nvvm.maxntid of the last GPU emit (0: none yet)
  std::set<std::string> twoProgramsACta; // of the last GPU emit: the kernels with tk_programs_per_cta_
  std::set<std::string> onClusters;      // ... and those with tk_cluster_ctas_
  std::map<std::string, int> threadsOf;  // of the last GPU emit: each kernel's launch threads
  std::map<std::string, std::pair<int64_t, int64_t>> dotPlacement; // of the last GPU emit, by kernel
  std::vector<const KernelItem *> selected;
  std::vector<std::unique_ptr<KernelInstance>> instances;
  std::vector<size_t> configCounts;
  mlir::OwningOpRef<mlir::ModuleOp> module;

  bool selectKernels();
  /// The source place an MLIR location names (the front end made it from a SourceManager file's
  /// path, line and column), or none when it names no file of this compile.
  SrcRange rangeOf(mlir::FileLineColLoc place) const {
    for (uint32_t id = 1; id <= sources.fileCount(); ++id)
      if (sources.path(id) == place.getFilename().getValue()) {
        SrcLoc at{id, place.getLine(), place.getColumn()};
        return {at, at};
      }
    return {};
  }
  /// Marks what is known of the runtime arguments' divisibility (`tk.divisibility`).
  void markDivisibility(mlir::ModuleOp gpu) {
    for (auto fn : gpu.getOps<mlir::func::FuncOp>()) {
      // Collected and set at once (setArgAttr per argument is quadratic in their number).
      llvm::SmallVector<mlir::DictionaryAttr> argAttrs;
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        argAttrs.push_back(fn.getArgAttrDict(i) ? fn.getArgAttrDict(i) : mlir::DictionaryAttr::get(context.get()));
      for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
        auto name = fn.getArgAttrOfType<mlir::StringAttr>(i, TkDialect::kName);
        if (!name || fn.getArgAttr(i, TkDialect::kNoSpec))
          continue;
        mlir::Value arg = fn.getArgument(i);
        if (std::find(options.equalToOne.begin(), options.equalToOne.end(), name.str()) != options.equalToOne.end() &&
            mlir::isa<mlir::IntegerType>(arg.getType()) && !fn.getBody().empty()) {
          mlir::OpBuilder b(&fn.getBody().front(), fn.getBody().front().begin());
          mlir::Value one = mlir::arith::ConstantOp::create(b, arg.getLoc(), b.getIntegerAttr(arg.getType(), 1));
          arg.replaceAllUsesWith(one);
          continue;
        }
        int64_t divisibility = mlir::isa<PtrType>(arg.getType()) ? 16 : 1;
        if (auto it = options.divisibility.find(name.str()); it != options.divisibility.end())
          divisibility = it->second;
        if (divisibility > 1) {
          mlir::NamedAttrList attrs(argAttrs[i]);
          attrs.set(TkDialect::kDivisibility, mlir::IntegerAttr::get(mlir::IntegerType::get(context.get(), 64), divisibility));
          argAttrs[i] = attrs.getDictionary(context.get());
        }
      }
      fn.setAllArgAttrs(argAttrs);
    }
  }
  /// Instantiates each selected kernel for options.autotuneConfig (the first config by
  /// default), or with everyConfig for each of its @autotune configs in turn (`tkc check`).
  bool instantiateAll(bool requireValues, bool everyConfig = false);
  /// One kernel for its config `index` (none where the kernel has no @autotune); with
  /// leftOutIfBad (`tkc check`'s configs past the first) a config that does not compile is a
  /// warning naming it.
  bool instantiate(const KernelItem &kernel, const AutotuneSpec *tune, size_t index, bool requireValues,
                   bool leftOutIfBad);
  bool buildModule();
};

Compiler::Compiler(CompileOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Compiler::~Compiler() = default;

const DiagEngine &Compiler::diagnostics() const { return impl_->diags; }
bool Compiler::hadInternalError() const { return impl_->internalError; }
const SourceManager &Compiler::sourceManager() const { return impl_->sources; }
void Compiler::setIndex(SymbolIndex *index) { impl_->sema.setIndex(index); }
size_t Compiler::checkedNodes() const { return impl_->sema.checkedNodes(); }

std::optional<SrcRange> Compiler::globalDeclaration(uint32_t fileId, const std::string &name) const {
  if (const GlobalSymbol *symbol = impl_->program.lookup(fileId, name))
    return symbol->range;
  return std::nullopt;
}

std::string Compiler::diagnosticsText() const {
  std::ostringstream os;
  impl_->diags.print(os);
  return os.str();
}

std::string Compiler::defaultStdlibDir() {
  // Set but empty is as unset: no folder is named '' (it found no stdlib import at all).
  if (const char *env = std::getenv("TK_STDLIB_DIR"); env && *env)
    return env;
  // Beside libtkc.so first (a program that embeds the JIT lives anywhere), then the
  // executable: the installed stdlib (its place from each, as GNUInstallDirs put them), then
  // the source tree's (a build folder's bin/ is two levels down).
  std::vector<std::pair<std::filesystem::path, const char *>> bases;
  Dl_info library;
  if (dladdr(reinterpret_cast<void *>(&Compiler::defaultStdlibDir), &library) && library.dli_fname)
    bases.emplace_back(std::filesystem::path(library.dli_fname).parent_path(), TK_STDLIB_FROM_LIBDIR);
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n > 0) {
    buffer[n] = 0;
    bases.emplace_back(std::filesystem::path(buffer).parent_path(), TK_STDLIB_FROM_BINDIR);
  }
  for (const auto &[base, installed] : bases)
    for (auto candidate : {base / installed, base / "../../stdlib", base / "../stdlib"}) {
      std::error_code ec;
      if (std::filesystem::is_directory(candidate, ec))
        return std::filesystem::weakly_canonical(candidate, ec).string();
    }
  return TK_SOURCE_STDLIB_DIR;
}

bool Compiler::load(const std::string &path, const std::string *text) {
  bool ok = true;
  runWithLargeStack([&] { ok = impl_->program.loadMain(path, text, impl_->options.mainHasFolder); });
  impl_->loaded = ok;
  return ok && impl_->selectKernels();
}

bool Compiler::Impl::selectKernels() {
  ModuleAST *main = program.mainModule();
  selected.clear();
  for (auto &k : main->kernels)
    if (options.kernel.empty() || k->name == options.kernel)
      selected.push_back(k.get());
  if (!options.kernel.empty() && selected.empty()) {
    std::string names;
    for (auto &k : main->kernels)
      names += (names.empty() ? "" : ", ") + k->name;
    // A kernel of an imported file is compiled from that file (an import brings its functions
    // and constants, not kernels to launch): say which.
    std::string importedFrom;
    for (const auto &module : program.modules())
      for (auto &k : module->kernels)
        if (module.get() != main && k->name == options.kernel && importedFrom.empty())
          importedFrom = module->path;
    // Command-line mistakes have no place in the source: unlocated, as the option's own errors.
    diags.error({}, "no kernel named '" + options.kernel + "' in " + main->path +
                        (names.empty() ? " (it has no kernels)" : " (kernels: " + names + ")") +
                        (importedFrom.empty() ? ""
                                              : "; '" + options.kernel + "' is a kernel of the imported " + importedFrom +
                                                    ": compile or run that file"));
    return false;
  }
  // Every -D must name a constant of some selected kernel, or a launch option.
  for (auto &[name, value] : options.defines) {
    bool known = isLaunchOption(name);
    for (const KernelItem *k : selected)
      for (const KernelParam &p : k->params)
        known |= p.mode == KernelParam::Mode::Const && p.name == name;
    if (!known && !options.ignoreUnknownDefines) {
      diags.error({}, options.definesLabel + name + "=" + value + ": no selected kernel has a const parameter named '" +
                                      name + "'");
    }
  }
  return !diags.hasErrors();
}

namespace {
/// A config's constants and launch options as text, as KernelDecl::configs holds them.
std::map<std::string, std::string> configValues(const TuneConfig &config) {
  std::map<std::string, std::string> values;
  for (auto &[name, value] : config.values)
    values[name] = value.str();
  for (auto [name, value] : {std::pair{"num_warps", config.numWarps}, {"num_stages", config.numStages},
                             {"warp_specialize", config.warpSpecialize}, {"cluster_size", config.clusterSize}})
    if (value)
      values[name] = std::to_string(*value);
  return values;
}
} // namespace

bool Compiler::Impl::instantiateAll(bool requireValues, bool everyConfig) {
  instances.clear();
  configCounts.clear();
  bool ok = true;
  runWithLargeStack([&] {
    std::vector<std::optional<AutotuneSpec>> tunes;
    size_t first = options.autotuneConfig.value_or(0);
    for (const KernelItem *kernel : selected) {
      tunes.push_back(sema.autotune(*kernel));
      ok &= instantiate(*kernel, tunes.back() ? &*tunes.back() : nullptr, first, requireValues, false);
    }
    // The other configs once every kernel's own has been checked: they share the program's
    // size budget (each config's copy of the body is charged to it before it is made, which
    // bounds what they keep in memory), and what it leaves unchecked says so
    // instead of failing on a size that no config alone has.
    // Only the first configs' instances stay (what the summaries and a module describe: the
    // others, of the same names, made the module fail to build and `tkc check --stats` print
    // nothing for a file of autotuned kernels).
    size_t firstInstances = instances.size();
    if (everyConfig && !options.autotuneConfig)
      for (size_t k = 0; k < selected.size(); ++k) {
        size_t count = tunes[k] ? tunes[k]->configs.size() : 0;
        for (size_t index = 1; index < count; ++index) {
          size_t reported = diags.diagnostics().size();
          bool fine = !sema.sizeLimitReached() &&
                      instantiate(*selected[k], &*tunes[k], index, requireValues, /*leftOutIfBad=*/true);
          if (sema.sizeLimitReached()) {
            diags.takeSince(reported);
            diags.warning(selected[k]->nameRange,
                          "@autotune config" +
                              (index + 1 == count ? " " + std::to_string(count)
                                                  : "s " + std::to_string(index + 1) + " to " + std::to_string(count)) +
                              " of kernel '" + selected[k]->name +
                              "' not type-checked: with the configs before, the program passes the compiler's size "
                              "limit (tkc tune --dry-run compiles each config alone)");
            break;
          }
          ok &= fine;
        }
      }
    instances.resize(firstInstances);
    configCounts.resize(firstInstances);
  });
  return ok && !diags.hasErrors();
}

bool Compiler::Impl::instantiate(const KernelItem &kernel, const AutotuneSpec *tune, size_t index, bool requireValues,
                                 bool leftOutIfBad) {
  size_t count = tune ? tune->configs.size() : 0;
  const TuneConfig *config = index < count ? &tune->configs[index] : nullptr;
  auto missing = sema.unboundConstants(kernel, options.defines, config);
  if (!missing.empty() && !requireValues) {
    std::string list;
    for (auto &m : missing)
      list += (list.empty() ? "" : ", ") + m;
    diags.warning(kernel.nameRange, "kernel '" + kernel.name + "' was not type-checked: const " + list +
                                        (missing.size() == 1 ? " has" : " have") +
                                        " no value (give -D " + missing[0] + "=VALUE or a default)");
    return true;
  }
  size_t reported = diags.diagnostics().size(), errors = diags.errorCount();
  auto instance = sema.instantiate(kernel, options.defines, config);
  // A config past the first that does not compile is one the tuner and AOT headers leave out:
  // a warning naming it, at its first error (the first config's errors are the kernel's own,
  // and an error every config shares is reported once, by the first: DiagEngine drops repeats).
  if (leftOutIfBad && diags.errorCount() > errors) {
    std::vector<Diagnostic> reports = diags.takeSince(reported);
    auto first = std::find_if(reports.begin(), reports.end(), [](auto &d) { return d.severity == Severity::Error; });
    diags.warning(first == reports.end() ? kernel.nameRange : first->range,
                  "@autotune config " + std::to_string(index + 1) + " of " + std::to_string(count) + " (" +
                      configText(configValues(*config)) + ") does not compile, and the tuner leaves it out: " +
                      (first == reports.end() ? std::string("(too many errors)") : first->message));
    return true;
  }
  if (!instance)
    return false;
  instances.push_back(std::move(instance));
  configCounts.push_back(count);
  return true;
}

bool Compiler::Impl::buildModule() {
  std::vector<const KernelInstance *> kernels;
  for (auto &instance : instances)
    kernels.push_back(instance.get());
  std::string internal;
  mlir::ScopedDiagnosticHandler handler(context.get(), [&](mlir::Diagnostic &diag) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << diag.getLocation() << ": " << diag;
    internal += text + "\n";
    return mlir::success();
  });
  runWithLargeStack([&] { module = generateModule(*context, sources, kernels, sema.fnInstances()); });
  bool ok = mlir::succeeded(mlir::verify(*module));
  if (ok && options.optimize) {
    mlir::PassManager pm(context.get());
    buildTileOptimizationPipeline(pm);
    ok = mlir::succeeded(pm.run(*module));
  }
  if (!ok) {
    internalError = true;
    diags.error(SrcRange{}, "internal compiler error: the generated tk IR does not verify:\n" + internal);
    return false;
  }
  return true;
}

bool Compiler::check() {
  if (!impl_->loaded)
    return false;
  return impl_->instantiateAll(false, /*everyConfig=*/true);
}

bool Compiler::emit(EmitKind kind, std::ostream &out) {
  // The passes, the printer and LLVM walk nested regions recursively: as deep as the source's
  // statements nest (ParseLimits), which the large stack holds.
  bool ok = false;
  runWithLargeStack([&] { ok = emitOnThisStack(kind, out); });
  return ok;
}

bool Compiler::emitOnThisStack(EmitKind kind, std::ostream &out) {
  if (!impl_->loaded)
    return false;
  if (kind == EmitKind::AST) {
    dumpAST(*impl_->program.mainModule(), out);
    return true;
  }
  if (!impl_->instantiateAll(true) || !impl_->buildModule())
    return false;
  mlir::OpPrintingFlags flags;
  if (impl_->options.printLocations)
    flags.enableDebugInfo(true, /*prettyForm=*/false);
  if (kind == EmitKind::Tk) {
    llvm::raw_os_ostream os(out);
    impl_->module->print(os, flags);
    os << "\n";
    return true;
  }
  // GPU stages work on a copy: the tile-level module stays available (signatures, interpreter).
  mlir::OwningOpRef<mlir::ModuleOp> gpu = impl_->module->clone();
  impl_->markDivisibility(*gpu);
  {
    // Each error of the lowering as the front end's are (at its place in the source, with the
    // line and a caret, and a note for each fn call it was inlined through), reported when the
    // lowering fails.
    std::vector<std::pair<std::string, llvm::SmallVector<mlir::FileLineColLoc>>> errors;
    mlir::ScopedDiagnosticHandler handler(impl_->context.get(), [&](mlir::Diagnostic &diag) {
      if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
        errors.emplace_back(diag.str(), tk::sourcePositions(diag.getLocation()));
      return mlir::success();
    });
    mlir::PassManager pm(impl_->context.get());
    if (!impl_->options.equalToOne.empty()) { // fold the arguments specialized to 1
      pm.addPass(mlir::createCanonicalizerPass());
      pm.addPass(mlir::createCSEPass());
    }
    buildGpuLoweringPipeline(pm, impl_->options.debug, impl_->options.sm, impl_->options.archSpecific);
    if (mlir::failed(pm.run(*gpu))) {
      for (const auto &[message, places] : errors) {
        Diagnostic &error = impl_->diags.error(places.empty() ? SrcRange{} : impl_->rangeOf(places.front()), message);
        for (size_t k = 1; k < places.size(); ++k)
          DiagEngine::note(error, impl_->rangeOf(places[k]), "in the call to the fn from here");
      }
      if (errors.empty()) // a failure that said nothing
        impl_->diags.error(SrcRange{}, "GPU code generation failed");
      return false;
    }
  }
  auto shared = (*gpu)->getAttrOfType<mlir::IntegerAttr>(tk::gpu::TkgDialect::kSharedBytes);
  impl_->sharedBytes = shared ? shared.getInt() : 0;
  impl_->dotPlacement.clear();
  if (auto kernels = (*gpu)->getAttrOfType<mlir::DictionaryAttr>(tk::gpu::TkgDialect::kDotPlacement))
    for (mlir::NamedAttribute kernel : kernels)
      if (auto counts = mlir::dyn_cast<mlir::DenseI64ArrayAttr>(kernel.getValue()))
        impl_->dotPlacement[kernel.getName().str()] = {counts[0], counts[1]};
  impl_->launchThreads = 0;
  impl_->twoProgramsACta.clear();
  impl_->onClusters.clear();
  impl_->threadsOf.clear();
  gpu->walk([&](mlir::LLVM::LLVMFuncOp fn) {
    if (auto threads = fn->getAttrOfType<mlir::DenseI32ArrayAttr>("nvvm.maxntid"); threads && !threads.empty())
      impl_->threadsOf[fn.getSymName().str()] = impl_->launchThreads = threads[0];
    if ((*gpu).lookupSymbol(("tk_programs_per_cta_" + fn.getSymName()).str()))
      impl_->twoProgramsACta.insert(fn.getSymName().str());
    if ((*gpu).lookupSymbol(("tk_cluster_ctas_" + fn.getSymName()).str()))
      impl_->onClusters.insert(fn.getSymName().str());
  });
  if (kind == EmitKind::TkGpu) {
    llvm::raw_os_ostream os(out);
    gpu->print(os, flags);
    os << "\n";
    return true;
  }
  GpuTarget target;
  target.sm = impl_->options.sm;
  target.archSpecific = impl_->options.archSpecific;
  std::string error;
  std::string text = kind == EmitKind::LLVM ? emitLLVMIR(*gpu, target, error) : emitPTX(*gpu, target, error);
  if (text.empty()) {
    impl_->diags.error(SrcRange{}, "GPU code generation failed: " + error);
    return false;
  }
  if (kind == EmitKind::Cubin) {
    text = assembleCubin(text, target, error, &impl_->ptxasReport);
    if (text.empty()) {
      impl_->diags.error(SrcRange{}, error);
      return false;
    }
  }
  out << text;
  return true;
}

const std::string &Compiler::ptxasReport() const { return impl_->ptxasReport; }

int64_t Compiler::sharedBytes() const { return impl_->sharedBytes; }

std::string Compiler::llvmVersion() { return LLVM_VERSION_STRING; }

int Compiler::launchThreads() const {
  if (impl_->launchThreads)
    return impl_->launchThreads;
  std::vector<KernelSignature> sigs = signatures();
  return sigs.empty() ? 128 : sigs.front().numWarps * 32;
}

std::vector<std::pair<std::string, std::string>> Compiler::sources() const {
  std::vector<std::pair<std::string, std::string>> files;
  for (uint32_t id = 1; id <= impl_->sources.fileCount(); ++id)
    files.emplace_back(impl_->sources.path(id), impl_->sources.text(id));
  return files;
}

namespace {
/// A default's text when it is a literal (or a negated number, or a type's name), else "";
/// an integer literal of a float constant as a float ("2.0").
std::string literalText(const Expr *e, bool isFloat) {
  if (!e)
    return "";
  if (auto *i = dyn<IntLit>(e))
    return i->literal > uint64_t(INT64_MAX) ? "" : std::to_string(i->literal) + (isFloat ? ".0" : "");
  if (auto *b = dyn<BoolLit>(e))
    return b->literal ? "true" : "false";
  if (auto *f = dyn<FloatLit>(e)) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.17g", f->literal);
    return std::string(text).find_first_of(".eEni") == std::string::npos ? std::string(text) + ".0" : text;
  }
  if (auto *u = dyn<UnaryExpr>(e); u && u->op == '-' && (dyn<IntLit>(u->operand.get()) || dyn<FloatLit>(u->operand.get())))
    return "-" + literalText(u->operand.get(), isFloat);
  if (auto *n = dyn<NameExpr>(e); n && parseScalar(n->name))
    return n->name;
  return "";
}
} // namespace

bool Compiler::declarations(std::vector<KernelDecl> &out) {
  if (!impl_->loaded)
    return false;
  size_t errorsBefore = impl_->diags.errorCount();
  runWithLargeStack([&] {
    for (const KernelItem *kernel : impl_->selected) {
      KernelDecl decl;
      decl.name = kernel->name;
      std::vector<std::string> elemFrom;
      std::vector<Type> types = impl_->sema.declaredParamTypes(*kernel, &elemFrom);
      for (size_t k = 0; k < kernel->params.size(); ++k) {
        const KernelParam &p = kernel->params[k];
        decl.params.push_back({p.name, types[k], p.mode == KernelParam::Mode::Const,
                               p.mode == KernelParam::Mode::Nospec, p.defaultValue != nullptr, elemFrom[k],
                               literalText(p.defaultValue.get(), types[k].isFloatValue())});
      }
      if (std::optional<AutotuneSpec> tune = impl_->sema.autotune(*kernel)) {
        decl.tuneKey = tune->key;
        decl.resetToZero = tune->resetToZero;
        decl.restoreValue = tune->restoreValue;
        for (const TuneConfig &config : tune->configs)
          decl.configs.push_back(configValues(config));
      }
      out.push_back(std::move(decl));
    }
  });
  return impl_->diags.errorCount() == errorsBefore;
}

std::vector<KernelSignature> Compiler::signatures() const {
  std::vector<KernelSignature> result;
  for (auto &instance : impl_->instances) {
    KernelSignature sig;
    sig.name = instance->decl->name;
    for (const KernelArg &arg : instance->args)
      sig.args.emplace_back(arg.name, arg.type);
    for (auto &[name, value] : instance->constants) {
      sig.constants.emplace_back(name, value.str());
      for (const KernelParam &p : instance->decl->params) {
        if (p.name != name)
          continue;
        // The declared scalar type where the parameter names one (an AOT header spells u64 and
        // i1 constants as such), else the value's kind.
        std::optional<Scalar> declared = p.type ? parseScalar(p.type->name) : std::nullopt;
        sig.constantTypes.emplace_back(name, value.kind == ConstValue::Kind::DType
                                                 ? Type::typeName(ElemType{value.dtype(), false})
                                             : declared                               ? Type::scalar(*declared)
                                             : value.kind == ConstValue::Kind::Float ? Type::scalar(Scalar::F32)
                                                                                      : Type::scalar(Scalar::I64));
      }
    }
    sig.numWarps = instance->numWarps;
    sig.numStages = instance->numStages;
    sig.warpSpecialize = instance->warpSpecialize;
    sig.clusterSize = instance->clusterSize;
    result.push_back(std::move(sig));
  }
  return result;
}

void *Compiler::moduleOperation() const {
  return impl_->module ? impl_->module->getOperation() : nullptr;
}

std::vector<KernelSummary> Compiler::summaries() {
  std::vector<KernelSummary> result;
  if (!impl_->module && !impl_->instances.empty() && !impl_->buildModule())
    return result;
  for (size_t i = 0; i < impl_->instances.size(); ++i) {
    const KernelInstance &k = *impl_->instances[i];
    KernelSummary s;
    s.name = k.decl->name;
    s.runtimeArgs = k.args.size();
    for (auto &[name, value] : k.constants)
      s.constants += (s.constants.empty() ? "" : ", ") + name + "=" + value.str();
    s.numWarps = k.numWarps;
    s.numStages = k.numStages;
    s.configs = impl_->configCounts[i];
    if (auto placement = impl_->dotPlacement.find(s.name); placement != impl_->dotPlacement.end())
      std::tie(s.tensorCoreDots, s.fmaDots) = placement->second;
    if (impl_->twoProgramsACta.count(s.name))
      s.programsPerCta = 2;
    s.warpSpecialize = k.warpSpecialize;
    s.clusterSize = k.clusterSize;
    if (impl_->onClusters.count(s.name))
      s.clusterCtas = 2;
    // A producer warpgroup is 128 threads beyond the programs' warps.
    if (auto threads = impl_->threadsOf.find(s.name); threads != impl_->threadsOf.end())
      s.producer = threads->second > s.programsPerCta * k.numWarps * 32;
    if (impl_->module)
      impl_->module->walk([&](mlir::func::FuncOp fn) {
        if (fn.getSymName() == s.name)
          fn.walk([&](mlir::Operation *) { ++s.tileOps; });
      });
    result.push_back(s);
  }
  return result;
}

} // namespace tk
