#include "JitImpl.h"
#include "ModuleCache.h"
#include "tk/Runtime/Nvtx.h"

#include "tk/Frontend/Parser.h"
#include "tk/Frontend/Sema.h"
#include "tk/Runtime/Aot.h"
#include "tk/Runtime/Interpreter.h"
#include "tk/Runtime/KernelCompile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ScopeExit.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace tk {

CompileOptions Kernel::Impl::compileOptions(const Config &config, const std::vector<Specialization> &spec) const {
  CompileOptions options;
  options.kernel = decl.name;
  options.defines = compilerDefines(config);
  options.definesLabel = "the config's "; // (a launch's constants, or a config of the tuning space)
  options.stdlibDirs = module->options.stdlibDirs;
  options.debug = module->options.debug;
  targetDevice(options, context().device().sm);
  specialize(options, params, spec);
  return options;
}

void specialize(CompileOptions &options, const std::vector<ParamInfo> &params, const std::vector<Specialization> &spec) {
  for (size_t k = 0; k < spec.size(); ++k) {
    // Divisibility by 1 says nothing of an integer; of a pointer it overrides the default of 16.
    std::optional<int64_t> divisibility = spec[k].divisibility();
    if (spec[k].equalsOne)
      options.equalToOne.push_back(params[k].name);
    else if (divisibility && (*divisibility > 1 || params[k].type.isPtr()))
      options.divisibility[params[k].name] = *divisibility;
  }
}

void Kernel::Impl::checkConstants(const Config &config) const {
  std::string known, missing;
  for (const KernelDecl::Param &p : decl.params)
    if (p.isConst) {
      known += (known.empty() ? "" : ", ") + p.name;
      if (!p.hasDefault && !config.values.count(p.name))
        missing += (missing.empty() ? "" : ", ") + p.name;
    }
  for (const auto &[name, value] : config.values)
    if (!isLaunchOption(name) && (", " + known + ", ").find(", " + name + ", ") == std::string::npos)
      throw Error("kernel '" + decl.name + "' has no constant '" + name + "' (" +
                  (known.empty() ? "it has none" : "its constants: " + known) + "; launch options: " + kLaunchOptions + ")");
  for (const KernelDecl::Param &p : decl.params) {
    auto it = config.values.find(p.name);
    if (!p.isConst || it == config.values.end())
      continue;
    bool isDType = p.type.kind == Type::Kind::TypeName;
    if (isDType != (it->second.kind() == Const::Kind::DType))
      throw Error("kernel '" + decl.name + "': constant '" + p.name + "' is " +
                  (isDType ? "a dtype (such as tk::Scalar::F16)" : "a number (" + p.type.str() + ")") + ", got " +
                  (it->second.kind() == Const::Kind::DType ? "the type " : "") + it->second.str());
  }
  if (!missing.empty())
    throw Error("kernel '" + decl.name + "': constant " + missing + " has no value: give it in the launch's constants " +
                "({{\"" + missing.substr(0, missing.find(',')) + "\", ...}}), a default, or an @autotune space");
}

std::shared_ptr<Variant> Kernel::Impl::build(const Config &config, const std::vector<Specialization> &spec,
                                             bool &fromDisk) const {
  NvtxRange range("compile " + decl.name);
  auto variant = std::make_shared<Variant>();
  variant->config = config;
  variant->gridConfig = config;
  for (const KernelDecl::Param &p : decl.params) // the defaults a grid function may ask for
    if (p.isConst && !p.defaultText.empty() && !config.values.count(p.name))
      if (std::optional<Const> value = Const::parse(p.defaultText))
        variant->gridConfig.values.emplace(p.name, *value);
  // (The interpreter runs one program at a time: as many as the grid has "fit"; CUDA's below.)
  variant->gridConfig.values.emplace(kResidentPrograms, Const(int64_t(1) << 30));
  variant->gridConfig.values.emplace(kMultiprocessors, Const(int64_t(std::max(context().device().multiprocessors, 1))));
  CompileOptions options = compileOptions(config, spec);
  const std::string *text = module->text ? &*module->text : nullptr;
  std::string what = "kernel '" + decl.name + "'" + (config.values.empty() ? "" : " {" + config.str() + "}");
  checkConstants(config);
  fromDisk = false;
  if (context().backend() == Backend::Interpreter) {
    variant->interpreted = std::make_unique<Compiler>(options);
    std::ostringstream ir;
    if (!variant->interpreted->load(module->path, text) || !variant->interpreted->emit(EmitKind::Tk, ir))
      throw Error(what + " does not compile:\n" + variant->interpreted->diagnosticsText());
    KernelSignature sig = variant->interpreted->signatures().at(0);
    variant->threads = sig.numWarps * 32;
    for (const auto &[name, type] : sig.args)
      variant->argTypes.push_back(type);
    auto ir_module = mlir::ModuleOp(static_cast<mlir::Operation *>(variant->interpreted->moduleOperation()));
    variant->kernelOp = ir_module.lookupSymbol<mlir::func::FuncOp>(sig.name).getOperation();
    return variant;
  }
  if (context().device().sm < 80)
    throw Error(what + ": tk needs a GPU of sm_80 or newer; " + context().device().name + " is sm_" +
                std::to_string(context().device().sm));
  // The variant's own entry (its PTX, by the module's sources, config and specialization)
  // needs no compiler of ours: a warm process hands it straight to the driver, which compiles
  // it whole (cuModuleLoadDataEx) and keeps the result in its own compute cache. Not through
  // cuLinkCreate/cuLinkComplete: the driver compiles linked PTX as relocatable code (-rdc),
  // which measured 12% slower on attention (bench/results/2026-12-02-h200-session3).
  DiskCache cache(module->cacheDir);
  const DeviceInfo &device = context().device();
  std::string variantKey = cacheKey({"variant", compilerBuildId(), module->sourceHash, decl.name, config.str(),
                                     specializationKey(spec),
                                     options.debug ? "debug" : "", device.name, std::to_string(device.sm)});
  std::optional<CompiledKernel> compiled;
  const char *dumpDir = std::getenv("TK_DUMP_DIR"); // dumping compiles every time (compileToPtx)
  if (!(dumpDir && *dumpDir))
    if (std::optional<std::string> entry = cache.get(variantKey))
      compiled = parseCompiledEntry(*entry);
  fromDisk = bool(compiled);
  if (!compiled) {
    std::string diagnostics;
    compiled = compileToPtx(module->path, text, options, cache, diagnostics);
    if (!compiled)
      throw Error(what + " does not compile:\n" + diagnostics);
    std::string error; // best-effort, as for the PTX
    cache.put(variantKey, compiledEntry(*compiled), error);
  }
  cache.printWarnings();
  variant->function = loadFunction(compiled->ptx.c_str(), decl.name, compiled->sharedBytes);
  variant->threads = compiled->threads;
  variant->sharedBytes = compiled->sharedBytes;
  variant->registers = functionRegisters(variant->function.function);
  variant->gridConfig.values.insert_or_assign(
      kResidentPrograms, Const(int64_t(residentPrograms(variant->function.function, variant->threads, variant->sharedBytes)) *
                               variant->function.programsPerCta));
  return variant;
}

void Kernel::Impl::run(Variant &variant, const Grid &grid, PackedArgs &packed, const Arg *args, size_t count,
                       const Stream &stream) const {
  if (variant.function.function) {
    context().launchFunction(variant.function, decl.name, grid, variant.threads, variant.sharedBytes,
                             packed.pointers.data(), stream);
    return;
  }
  grid.check(decl.name);
  if (grid.empty())
    return;
  // The interpreter reads HostBuffers: the buffers' bytes are moved in and back out, under the
  // context's lock, so no other thread's launch, upload or download sees them moved out.
  auto hostMemory = context().lockHostMemory();
  std::vector<HostBuffer> buffers;
  std::vector<Buffer *> owners;
  buffers.reserve(count);
  owners.reserve(count);
  // The bytes go back however the launch ends: a fault, running out of memory or anything else
  // thrown left the buffers empty, and the next download or upload read past them (SIGSEGV).
  llvm::scope_exit giveBack([&] {
    for (size_t b = 0; b < owners.size(); ++b)
      owners[b]->hostBytes().swap(buffers[b].bytes);
  });
  InterpreterLaunch launch;
  launch.grid = {grid.x, grid.y, grid.z};
  launch.buffers = &buffers;
  launch.printStream = &std::cout;
  for (size_t k = 0; k < count; ++k) {
    ArgValue value;
    const Type &type = k < variant.argTypes.size() ? variant.argTypes[k] : params[k].type;
    if (type.isPtr()) {
      auto *buffer = const_cast<Buffer *>(args[k].buffer());
      auto it = std::find(owners.begin(), owners.end(), buffer);
      value.buffer = int(it - owners.begin());
      if (it == owners.end()) {
        HostBuffer host;
        host.name = params[k].name;
        host.elem = buffer->elem();
        host.shape = {int64_t(buffer->count())};
        buffers.push_back(std::move(host)); // (reserved: neither push throws)
        owners.push_back(buffer);
        buffers.back().bytes.swap(buffer->hostBytes());
      }
    } else if (type.isFloatValue()) {
      value.f = args[k].kind() == Arg::Kind::Float ? args[k].real() : double(args[k].integer());
    } else {
      value.i = args[k].integer();
    }
    launch.args.push_back(value);
  }
  try {
    interpretKernel(mlir::cast<mlir::func::FuncOp>(static_cast<mlir::Operation *>(variant.kernelOp)), launch);
  } catch (const RunFault &fault) {
    throw Error(fault.what());
  } catch (const std::bad_alloc &) {
    throw Error("kernel '" + decl.name + "': the interpreter ran out of memory (its tiles live in host memory)");
  }
}

bool Kernel::Impl::tunes(const Consts &consts) const {
  if (configs.empty())
    return false;
  for (const auto &[name, value] : consts)
    if (tunedNames.count(name))
      return false;
  return true;
}

void Kernel::Impl::setConfigs(std::vector<Config> space) {
  // A launch option that some config of the space sets and another does not is the default in
  // the other (Triton's Config: num_warps 4, num_stages 3), not the first config's: the
  // compiler starts every kernel from the first config, so a config without warp_specialize
  // beside a first one with it was compiled with a producer warpgroup too.
  const KernelSignature unset; // (the compiler's defaults)
  const std::pair<const char *, int64_t> launchDefaults[] = {
      {"num_warps", unset.numWarps}, {"num_stages", unset.numStages}, {"warp_specialize", unset.warpSpecialize},
      {"cluster_size", unset.clusterSize}};
  for (const auto &[option, value] : launchDefaults)
    if (llvm::any_of(space, [&, option = option](const Config &c) { return c.values.count(option) > 0; }))
      for (Config &config : space)
        config.values.emplace(option, Const(value));
  configs = std::move(space);
  tunedNames.clear();
  for (const Config &config : configs)
    for (const auto &[name, value] : config.values)
      tunedNames.insert(name);
}

std::string Kernel::Impl::keyValues(const Arg *args) const {
  std::string text;
  for (size_t k = 0; k < key.size(); ++k)
    text += (k ? ", " : "") + key[k] + "=" + std::to_string(args[keyIndex[k]].integer());
  return text;
}

Kernel::Impl &Kernel::impl() const {
  if (!impl_)
    throw Error("tk::Kernel: an empty Kernel (default-constructed or moved from); take one from Module::kernel");
  return *impl_;
}

Module::Impl &Module::impl() const {
  if (!impl_)
    throw Error("tk::Module: an empty Module (default-constructed or moved from); make one with Module::fromFile "
                "or fromString");
  return *impl_;
}

const std::string &Kernel::name() const { return impl().decl.name; }
const std::vector<ParamInfo> &Kernel::params() const { return impl().params; }

Kernel::Stats Kernel::stats() const {
  Impl &k = impl();
  std::lock_guard<std::mutex> lock(k.mutex);
  return k.stats;
}

void Kernel::launch(const GridSpec &grid, std::initializer_list<Arg> args, const Consts &consts, const Stream &stream) {
  impl().launch(grid, args.begin(), args.size(), consts, stream);
}

void Kernel::launch(const GridSpec &grid, const std::vector<Arg> &args, const Consts &consts, const Stream &stream) {
  impl().launch(grid, args.data(), args.size(), consts, stream);
}

// The hot path: no allocation once a thread has launched (its packed arguments are reused, and
// its key is looked up where its parts are), one lock, one lookup, then cuLaunchKernel.
void Kernel::Impl::launch(const GridSpec &grid, const Arg *args, size_t count, const Consts &consts,
                          const Stream &stream) {
  thread_local PackedArgs packed;
  // The tuning space (configs, key, the names it tunes, which packing reads) is read under the
  // lock, and the variant is held while it runs: setTuneSpace and restrictTuneSpace on another
  // thread replace the space and clear the winners (a launch that held a raw pointer ran a freed
  // variant).
  std::shared_ptr<Variant> variant;
  std::optional<LaunchKeyRef> key;
  bool tuning = false;
  auto lookUp = [&] {
    std::lock_guard<std::mutex> lock(mutex);
    pack(args, count, consts, packed);
    tuning = tunes(consts);
    key.emplace(launchKey(consts, packed.spec, args, tuning));
    if (const std::shared_ptr<Variant> *found = (tuning ? winners : variants).find(*key))
      variant = *found;
  };
  lookUp();
  if (!variant) {
    // One thread tunes or compiles at a time, the others that missed waiting for it; the space
    // cannot change while this lock is held (setTuneSpace takes it too), so it is read again.
    std::lock_guard<std::mutex> building(buildMutex);
    lookUp();
    if (!variant && tuning) {
      variant = tuned(grid, args, count, packed, configOf(consts), *key, stream, nullptr, nullptr);
    } else if (!variant) {
      bool fromDisk = false;
      variant = build(configOf(consts), packed.spec, fromDisk);
      std::lock_guard<std::mutex> lock(mutex);
      ++(fromDisk ? stats.diskHits : stats.compiles);
      variants.put(*key, variant); // untuned variants are never removed
    }
  }
  run(*variant, grid(variant->gridConfig), packed, args, count, stream);
}

namespace {
/// The positions of `names` among the parameters, each of the kind `wanted` accepts.
std::vector<size_t> positionsOf(const Kernel::Impl &k, const std::vector<std::string> &names, const char *what,
                                bool (*wanted)(const Type &)) {
  std::vector<size_t> positions;
  for (const std::string &name : names) {
    size_t index = 0;
    while (index < k.params.size() && k.params[index].name != name)
      ++index;
    if (index == k.params.size() || !wanted(k.params[index].type))
      throw Error("kernel '" + k.decl.name + "': " + what + " '" + name + "' is not " +
                  (wanted(Type::value(ElemType{Scalar::F32, true})) ? "a pointer" : "an integer") + " parameter (" +
                  paramList(k.params) + ")");
    positions.push_back(index);
  }
  return positions;
}
bool isIntegerType(const Type &t) { return t.isIntValue(); }
bool isPointerType(const Type &t) { return t.isPtr(); }
} // namespace

void Kernel::setTuneSpace(std::vector<Consts> configs, std::vector<std::string> key,
                          std::vector<std::string> resetToZero, std::vector<std::string> restoreValue) {
  Impl &k = impl();
  std::vector<size_t> keyIndex = positionsOf(k, key, "tuning key", isIntegerType);
  std::vector<size_t> resetIndex = positionsOf(k, resetToZero, "reset_to_zero entry", isPointerType);
  std::vector<size_t> restoreIndex = positionsOf(k, restoreValue, "restore_value entry", isPointerType);
  for (const std::string &name : restoreValue)
    if (std::find(resetToZero.begin(), resetToZero.end(), name) != resetToZero.end())
      throw Error("kernel '" + k.decl.name + "': '" + name +
                  "' is in both reset_to_zero and restore_value (each timed run starts from zeros or from the values "
                  "given: name it in one)");
  std::lock_guard<std::mutex> building(k.buildMutex); // not in the middle of a tuning
  std::lock_guard<std::mutex> lock(k.mutex);
  std::vector<Config> space;
  for (const Consts &consts : configs)
    space.push_back(configOf(consts));
  k.setConfigs(std::move(space));
  k.key = std::move(key);
  k.keyIndex = std::move(keyIndex);
  k.resetIndex = std::move(resetIndex);
  k.restoreIndex = std::move(restoreIndex);
  k.winners.clear();
}

void Kernel::restrictTuneSpace(const std::function<bool(const Config &)> &keep) {
  Impl &k = impl();
  if (!keep)
    throw Error("kernel '" + k.decl.name + "': restrictTuneSpace needs a function that says which configs to keep");
  std::lock_guard<std::mutex> building(k.buildMutex); // not in the middle of a tuning
  std::lock_guard<std::mutex> lock(k.mutex);
  std::vector<Config> kept;
  for (const Config &config : k.configs)
    if (keep(config))
      kept.push_back(config);
  if (kept.empty())
    throw Error("kernel '" + k.decl.name + "': restricting its tuning space of " + std::to_string(k.configs.size()) +
                " configs kept none");
  k.setConfigs(std::move(kept));
  k.winners.clear();
}

TuneReport Kernel::tune(const GridSpec &grid, const std::vector<Arg> &args, const Consts &consts, const Stream &stream,
                        const TuneProgress &progress) {
  Impl &k = impl();
  PackedArgs packed;
  std::lock_guard<std::mutex> building(k.buildMutex); // the space cannot change meanwhile
  {
    std::lock_guard<std::mutex> lock(k.mutex); // (the launches' lookups read what packing reads)
    if (k.configs.empty())
      throw Error("kernel '" + k.decl.name + "' has no tuning space (no @autotune, no setTuneSpace)");
    k.pack(args.data(), args.size(), consts, packed);
  }
  LaunchKeyRef key = k.launchKey(consts, packed.spec, args.data(), true);
  TuneReport report;
  k.tuned(grid, args.data(), args.size(), packed, configOf(consts), key, stream, progress, &report);
  return report;
}

namespace {
void loadModule(Context &context, const std::string &path, const std::string *text, JitOptions options,
                std::shared_ptr<Module::Impl> &impl) {
  // Before any copy or hash of it (a 1 GiB string took 6 GB on its way to the parser's limit).
  if (text && text->size() > ParseLimits::kMaxFileBytes)
    throw Error("tk::Module: " + path + ": the source is " + std::to_string(text->size()) + " bytes, more than " +
                std::to_string(ParseLimits::kMaxFileBytes >> 20) + " MiB");
  impl = std::make_shared<Module::Impl>();
  impl->context = &context;
  impl->contextAlive = context.lifetime();
  impl->path = path;
  if (text)
    impl->text = *text;
  impl->options = options;
  impl->cacheDir = options.cacheDir ? *options.cacheDir : DiskCache::defaultDir();
  // A module seen before (same compiler, same text, unchanged imports) needs no parse.
  DiskCache cache(impl->cacheDir);
  std::string key;
  std::optional<std::string> mainText;
  if (text) {
    mainText = *text;
  } else if (std::string read, error; readRegularFile(path, ParseLimits::kMaxFileBytes, read, error)) {
    mainText = std::move(read);
  }
  if (mainText) {
    key = moduleKey(path, *mainText, options.stdlibDirs);
    if (std::optional<ModuleEntry> entry = loadModuleEntry(cache, key)) {
      impl->decls = std::move(entry->decls);
      impl->sourceHash = entry->sourceHash;
      return;
    }
    cache.printWarnings(); // a corrupt entry: reported, then rebuilt
  }
  CompileOptions compileOptions;
  compileOptions.stdlibDirs = options.stdlibDirs;
  Compiler compiler(compileOptions);
  if (!compiler.load(path, text) || !compiler.declarations(impl->decls))
    throw Error("tk::Module: " + path + " does not compile:\n" + compiler.diagnosticsText());
  impl->sourceHash = sourcesHash(compiler.sources());
  if (mainText)
    storeModuleEntry(cache, key, ModuleEntry{impl->decls, impl->sourceHash}, compiler.sources());
}
} // namespace

Module Module::fromFile(Context &context, const std::string &path, JitOptions options) {
  Module module;
  loadModule(context, path, nullptr, std::move(options), module.impl_);
  return module;
}

Module Module::fromString(Context &context, const std::string &source, const std::string &path, JitOptions options) {
  Module module;
  loadModule(context, path, &source, std::move(options), module.impl_);
  return module;
}

std::vector<std::string> Module::kernelNames() const {
  std::vector<std::string> names;
  for (const KernelDecl &decl : impl().decls)
    names.push_back(decl.name);
  return names;
}

Kernel Module::kernel(const std::string &name) const {
  std::lock_guard<std::mutex> lock(impl().mutex);
  Kernel kernel;
  kernel.module_ = impl_;
  if (auto it = impl_->kernels.find(name); it != impl_->kernels.end()) {
    kernel.impl_ = it->second;
    return kernel;
  }
  const KernelDecl *decl = nullptr;
  std::string names;
  for (const KernelDecl &d : impl_->decls) {
    names += (names.empty() ? "" : ", ") + d.name;
    if (d.name == name)
      decl = &d;
  }
  if (!decl)
    throw Error("tk::Module: " + impl_->path + " has no kernel '" + name + "'" +
                (names.empty() ? " (it has no kernels)" : " (kernels: " + names + ")"));
  auto impl = std::make_shared<Kernel::Impl>();
  impl->module = impl_.get();
  impl->decl = *decl;
  for (const KernelDecl::Param &p : decl->params)
    if (!p.isConst)
      impl->params.push_back({p.name, p.type, p.nospec, p.elemFrom});
  std::vector<Config> space;
  for (const auto &values : decl->configs) {
    Config config;
    for (const auto &[name, text] : values) {
      std::optional<Const> value = Const::parse(text); // the compiler wrote it: always a number
      if (!value)
        throw Error("kernel '" + decl->name + "': its @autotune config sets " + name + " to '" + text +
                    "', which is not a constant");
      config.values.emplace(name, *value);
    }
    space.push_back(std::move(config));
  }
  impl->setConfigs(std::move(space));
  impl->key = decl->tuneKey;
  impl->keyIndex = positionsOf(*impl, decl->tuneKey, "tuning key", isIntegerType);
  impl->resetIndex = positionsOf(*impl, decl->resetToZero, "reset_to_zero entry", isPointerType);
  impl->restoreIndex = positionsOf(*impl, decl->restoreValue, "restore_value entry", isPointerType);
  impl_->kernels[name] = impl;
  kernel.impl_ = impl;
  return kernel;
}

} // namespace tk
