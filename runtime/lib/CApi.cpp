// tk's C API (tk/tk_c.h) over the C++ API: handles own the C++ objects, every entry point turns
// exceptions into a status and a thread's last-error message.
#include "tk/tk_c.h"

#include "tk/Runtime/Jit.h"
#include "tk/Frontend/Parser.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

thread_local std::string lastError;
thread_local std::string configText;      // tk_config_value's answer
thread_local bool inGridFunction = false; // a grid function's launch would reuse this thread's packing

/// A misuse the caller can correct (TK_INVALID_ARGUMENT), as opposed to a failure of the work.
struct InvalidArgument : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename F> tk_status guarded(F &&body) {
  try {
    body();
    lastError.clear();
    return TK_OK;
  } catch (const InvalidArgument &e) {
    lastError = e.what();
    return TK_INVALID_ARGUMENT;
  } catch (const std::exception &e) {
    lastError = e.what();
    return TK_ERROR;
  } catch (...) {
    lastError = "an unknown error";
    return TK_ERROR;
  }
}

template <typename T> T &need(T *handle, const char *what) {
  if (!handle)
    throw InvalidArgument(std::string(what) + " is NULL");
  return *handle;
}

std::string text(const char *chars, const char *what) {
  if (!chars)
    throw InvalidArgument(std::string(what) + " is NULL");
  return chars;
}

} // namespace

struct tk_context {
  std::shared_ptr<tk::Context> context;
  std::string deviceName;
};

struct tk_module {
  std::weak_ptr<tk::Context> context;
  tk::Module module;
};

struct tk_kernel {
  std::weak_ptr<tk::Context> context;
  tk::Kernel kernel;
  std::vector<std::string> typeTexts; // each parameter's type as text (tk_kernel_param)
};

struct tk_config {
  const tk::Config *config;
};

namespace {
std::shared_ptr<tk::Context> liveContext(const std::weak_ptr<tk::Context> &context, const char *what) {
  std::shared_ptr<tk::Context> live = context.lock();
  if (!live)
    throw InvalidArgument(std::string(what) + ": its context was destroyed");
  return live;
}

tk::Consts constsOf(const tk_const *consts, size_t count) {
  if (count && !consts)
    throw InvalidArgument("consts is NULL but const_count is " + std::to_string(count));
  tk::Consts out;
  for (size_t i = 0; i < count; ++i) {
    if (!consts[i].name || !consts[i].value)
      throw InvalidArgument("constant " + std::to_string(i) + " has no name or no value");
    std::optional<tk::Const> value = tk::Const::parse(consts[i].value);
    if (!value)
      throw InvalidArgument(std::string("constant ") + consts[i].name + ": '" + consts[i].value +
                            "' is no integer, float, bool or scalar type");
    out.insert_or_assign(consts[i].name, *value);
  }
  return out;
}
} // namespace

extern "C" {

int tk_c_api_version(void) { return TK_C_API_VERSION; }

const char *tk_last_error(void) { return lastError.c_str(); }

tk_status tk_context_create(tk_backend backend, int device, tk_context **out) {
  return guarded([&] {
    need(out, "out");
    *out = nullptr;
    if (backend != TK_BACKEND_INTERPRETER && backend != TK_BACKEND_CUDA)
      throw InvalidArgument("backend " + std::to_string(int(backend)) +
                            " is neither TK_BACKEND_INTERPRETER nor TK_BACKEND_CUDA");
    auto handle = std::make_unique<tk_context>();
    handle->context = std::make_shared<tk::Context>(
        backend == TK_BACKEND_CUDA ? tk::Backend::Cuda : tk::Backend::Interpreter, device);
    handle->deviceName = handle->context->device().name;
    *out = handle.release();
  });
}

void tk_context_destroy(tk_context *context) { delete context; }

tk_backend tk_context_backend(const tk_context *context) {
  return context && context->context->backend() == tk::Backend::Cuda ? TK_BACKEND_CUDA : TK_BACKEND_INTERPRETER;
}

const char *tk_context_device_name(const tk_context *context) { return context ? context->deviceName.c_str() : ""; }

tk_status tk_context_synchronize(tk_context *context, void *stream) {
  return guarded([&] {
    need(context, "context");
    if (stream)
      tk::Stream::borrowed(static_cast<tk::cuda::CUstream_st *>(stream)).synchronize();
    else
      context->context->synchronize();
  });
}

tk_status tk_module_load_file(tk_context *context, const char *path, tk_module **out) {
  return guarded([&] {
    need(out, "out");
    *out = nullptr;
    need(context, "context");
    auto module = tk::Module::fromFile(*context->context, text(path, "path"));
    *out = new tk_module{context->context, std::move(module)};
  });
}

tk_status tk_module_load_string(tk_context *context, const char *source, const char *name, tk_module **out) {
  return guarded([&] {
    need(out, "out");
    *out = nullptr;
    need(context, "context");
    // Measured only up to the limit, before the copy (Module::fromString says how large).
    if (source && ::strnlen(source, tk::ParseLimits::kMaxFileBytes + 1) > tk::ParseLimits::kMaxFileBytes)
      throw InvalidArgument("source: more than " + std::to_string(tk::ParseLimits::kMaxFileBytes >> 20) +
                            " MiB of text (the most a module holds)");
    auto module = tk::Module::fromString(*context->context, text(source, "source"), name ? name : "module.tk");
    *out = new tk_module{context->context, std::move(module)};
  });
}

void tk_module_destroy(tk_module *module) { delete module; }

tk_status tk_module_kernel(tk_module *module, const char *name, tk_kernel **out) {
  return guarded([&] {
    need(out, "out");
    *out = nullptr;
    need(module, "module");
    liveContext(module->context, "the module");
    std::string wanted = text(name, "name");
    std::vector<std::string> names = module->module.kernelNames();
    if (std::find(names.begin(), names.end(), wanted) == names.end()) {
      std::string list;
      for (const std::string &n : names)
        list += (list.empty() ? "" : ", ") + n;
      throw InvalidArgument("the module has no kernel '" + wanted + "' (kernels: " + list + ")");
    }
    tk::Kernel kernel = module->module.kernel(wanted);
    std::vector<std::string> types;
    for (const tk::ParamInfo &p : kernel.params())
      types.push_back(p.type.str());
    *out = new tk_kernel{module->context, std::move(kernel), std::move(types)};
  });
}

void tk_kernel_destroy(tk_kernel *kernel) { delete kernel; }

const char *tk_kernel_name(const tk_kernel *kernel) { return kernel ? kernel->kernel.name().c_str() : ""; }

size_t tk_kernel_param_count(const tk_kernel *kernel) { return kernel ? kernel->kernel.params().size() : 0; }

tk_status tk_kernel_param(const tk_kernel *kernel, size_t index, const char **name, const char **type) {
  return guarded([&] {
    need(kernel, "kernel");
    const auto &params = kernel->kernel.params();
    if (index >= params.size())
      throw InvalidArgument("kernel '" + kernel->kernel.name() + "' has " + std::to_string(params.size()) +
                            " parameters; there is no parameter " + std::to_string(index));
    if (name)
      *name = params[index].name.c_str();
    if (type)
      *type = kernel->typeTexts[index].c_str();
  });
}

int tk_config_int(const tk_config *config, const char *name, int64_t *value) {
  if (!config || !config->config || !name || !value)
    return 1;
  auto it = config->config->values.find(name);
  if (it == config->config->values.end() ||
      (it->second.kind() != tk::Const::Kind::Int && it->second.kind() != tk::Const::Kind::Bool))
    return 1;
  *value = it->second.integer();
  return 0;
}

const char *tk_config_value(const tk_config *config, const char *name) {
  if (!config || !config->config || !name)
    return nullptr;
  auto it = config->config->values.find(name);
  if (it == config->config->values.end())
    return nullptr;
  configText = it->second.str();
  return configText.c_str();
}

const char *tk_kernel_param_elem_from(const tk_kernel *kernel, size_t index) {
  if (!kernel || index >= kernel->kernel.params().size())
    return "";
  return kernel->kernel.params()[index].elemFrom.c_str();
}

} // extern "C"

namespace {
/// The C arguments of a launch or a tuning as the C++ API's: checks each against its parameter
/// (naming it), stages the interpreter's host memory, and calls `run` with the grid, the
/// arguments, the constants and the stream; then copies host memory back.
template <typename Run>
void withLaunchArgs(tk_kernel *kernel, const int64_t grid[3], tk_grid_fn grid_fn, void *grid_user, const tk_arg *args,
                    size_t arg_count, const tk_const *consts, size_t const_count, void *stream, Run &&run) {
  need(kernel, "kernel");
  if (inGridFunction)
    throw InvalidArgument("a grid function may not launch kernels");
  std::shared_ptr<tk::Context> context = liveContext(kernel->context, "the kernel");
  const std::string &name = kernel->kernel.name();
  const std::vector<tk::ParamInfo> &params = kernel->kernel.params();
  if (arg_count != params.size() || (arg_count && !args))
    throw InvalidArgument("kernel '" + name + "' takes " + std::to_string(params.size()) + " arguments, got " +
                          (args || !arg_count ? std::to_string(arg_count) : "args = NULL"));
  if (!grid && !grid_fn)
    throw InvalidArgument("kernel '" + name + "': give a grid or a grid function");
  tk::Consts constants = constsOf(consts, const_count);
  bool cuda = context->backend() == tk::Backend::Cuda;
  auto what = [&](size_t i) { // (built only for an error)
    return "kernel '" + name + "', parameter '" + params[i].name + "' (" + kernel->typeTexts[i] + ")";
  };
  std::vector<tk::Buffer> staged; // host memory for the interpreter, copied back after
  if (!cuda)
    staged.reserve(arg_count); // (Arg keeps a pointer to its buffer: no reallocation)
  std::vector<std::pair<size_t, size_t>> copyBack;
  std::vector<tk::Arg> launchArgs;
  launchArgs.reserve(arg_count);
  for (size_t i = 0; i < arg_count; ++i) {
    const tk::ParamInfo &p = params[i];
    const tk_arg &a = args[i];
    if (p.type.isPtr()) {
      tk::Scalar elem = p.type.elem.scalar;
      if (auto it = constants.find(p.elemFrom); !p.elemFrom.empty() && it != constants.end()) {
        if (it->second.kind() != tk::Const::Kind::DType) // (its value indexes the type table)
          throw InvalidArgument("constant '" + p.elemFrom + "' is a type (f16, bf16, f32...), got " + it->second.str());
        elem = it->second.dtype(); // ptr<T> with T given at this launch
      }
      if (a.kind == TK_ARG_DEVICE && cuda) {
        launchArgs.emplace_back(tk::DevicePointer{a.address, elem});
      } else if (a.kind == TK_ARG_HOST && !cuda) {
        size_t each = tk::Buffer::elementBytes(elem);
        if ((a.bytes && !a.host) || a.bytes % each)
          throw InvalidArgument(what(i) + ": " + std::to_string(a.bytes) + " bytes of host memory are not whole " +
                                tk::scalarName(elem) + " elements");
        // The same memory twice (in place: out and x one array) is one buffer; memory that
        // partly overlaps another argument's has no order of copies back that is right.
        size_t shared = staged.size();
        auto begin = static_cast<const char *>(a.host), end = begin + a.bytes;
        for (auto [other, buffer] : copyBack) {
          auto otherBegin = static_cast<const char *>(args[other].host), otherEnd = otherBegin + args[other].bytes;
          if (begin == otherBegin && a.bytes == args[other].bytes && staged[buffer].elem() == elem)
            shared = buffer;
          else if (a.bytes && args[other].bytes && begin < otherEnd && otherBegin < end)
            throw InvalidArgument(what(i) + ": its host memory overlaps parameter '" + params[other].name + "''s");
        }
        if (shared == staged.size()) {
          staged.emplace_back(*context, elem, a.bytes / each);
          if (a.bytes)
            staged.back().upload(a.host, a.bytes);
          copyBack.emplace_back(i, shared);
        }
        launchArgs.emplace_back(staged[shared]);
      } else {
        throw InvalidArgument(what(i) + ": needs " +
                              (cuda ? "a device address (TK_ARG_DEVICE) on the CUDA backend"
                                    : "host memory (TK_ARG_HOST) in the interpreter"));
      }
    } else if (p.type.isFloatValue()) {
      if (a.kind == TK_ARG_FLOAT)
        launchArgs.emplace_back(a.real);
      else if (a.kind == TK_ARG_INT)
        launchArgs.emplace_back(double(a.integer));
      else
        throw InvalidArgument(what(i) + ": needs a number");
    } else if (p.type.isBool()) {
      if (a.kind != TK_ARG_INT)
        throw InvalidArgument(what(i) + ": needs an integer (0 or 1)");
      launchArgs.emplace_back(a.integer != 0);
    } else if (a.kind == TK_ARG_UINT) {
      launchArgs.emplace_back(uint64_t(a.integer));
    } else if (a.kind == TK_ARG_INT) {
      launchArgs.emplace_back(a.integer);
    } else {
      throw InvalidArgument(what(i) + ": needs an integer");
    }
  }

  tk::GridSpec spec = grid_fn ? tk::GridSpec([&](const tk::Config &config) {
    tk_config view{&config};
    int64_t g[3] = {1, 1, 1};
    inGridFunction = true;
    int failed = grid_fn(&view, grid_user, g);
    inGridFunction = false;
    if (failed != 0)
      throw tk::Error("kernel '" + name + "': the grid function failed for " + config.str());
    return tk::Grid(g[0], g[1], g[2]);
  })
                              : tk::GridSpec(tk::Grid(grid[0], grid[1], grid[2]));
  tk::Stream borrowed = tk::Stream::borrowed(static_cast<tk::cuda::CUstream_st *>(stream));
  run(spec, launchArgs, constants, borrowed);
  for (auto [arg, buffer] : copyBack)
    if (args[arg].bytes)
      staged[buffer].download(args[arg].host, args[arg].bytes);
}

thread_local std::string tuneReportText; // tk_kernel_tune's answer

/// A tuning report as JSON (tk_c.h documents the fields).
std::string reportJson(const tk::TuneReport &report) {
  std::string out;
  llvm::raw_string_ostream stream(out);
  llvm::json::OStream json(stream);
  json.object([&] {
    json.attribute("best", int64_t(report.best));
    json.attribute("from_database", report.fromDatabase);
    json.attribute("compile_seconds", report.compileSeconds);
    json.attribute("time_seconds", report.timeSeconds);
    json.attributeArray("configs", [&] {
      for (const tk::TuneResult &result : report.results)
        json.object([&] {
          json.attribute("config", result.config.str());
          json.attributeObject("constants", [&] {
            for (const auto &[constName, value] : result.config.values)
              json.attribute(constName, value.str());
          });
          if (result.ms)
            json.attribute("ms", *result.ms);
          else
            json.attribute("ms", nullptr);
          if (result.finalMs)
            json.attribute("final_ms", *result.finalMs);
          json.attribute("status", result.status);
        });
    });
  });
  return out;
}
} // namespace

extern "C" {

tk_status tk_kernel_launch(tk_kernel *kernel, const int64_t grid[3], tk_grid_fn grid_fn, void *grid_user,
                           const tk_arg *args, size_t arg_count, const tk_const *consts, size_t const_count,
                           void *stream) {
  return guarded([&] {
    withLaunchArgs(kernel, grid, grid_fn, grid_user, args, arg_count, consts, const_count, stream,
                   [&](const tk::GridSpec &spec, const std::vector<tk::Arg> &launchArgs, const tk::Consts &constants,
                       const tk::Stream &on) { kernel->kernel.launch(spec, launchArgs, constants, on); });
  });
}

tk_status tk_kernel_tune(tk_kernel *kernel, const int64_t grid[3], tk_grid_fn grid_fn, void *grid_user,
                         const tk_arg *args, size_t arg_count, const tk_const *consts, size_t const_count, void *stream,
                         const char **report) {
  return guarded([&] {
    need(report, "report");
    *report = nullptr;
    withLaunchArgs(kernel, grid, grid_fn, grid_user, args, arg_count, consts, const_count, stream,
                   [&](const tk::GridSpec &spec, const std::vector<tk::Arg> &launchArgs, const tk::Consts &constants,
                       const tk::Stream &on) {
                     tuneReportText = reportJson(kernel->kernel.tune(spec, launchArgs, constants, on));
                   });
    *report = tuneReportText.c_str();
  });
}

} // extern "C"
