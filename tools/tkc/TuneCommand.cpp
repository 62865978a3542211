// `tkc tune`: the arguments of `tkc run`, every config of the kernel's @autotune space timed
// on the GPU through the JIT's tuner, a progress bar, and the table of configs and times; then,
// with --save or --time, the winner run as `tkc run` runs a kernel.
#include "RunCommand.h"

#include "RunArgs.h"
#include "tk/Driver/Compiler.h"
#include "tk/Runtime/Jit.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>

#include <cstdio>
#include <iomanip>
#include <sstream>
#include <unistd.h>

namespace tk {

namespace {

using namespace runargs;

void drawProgress(std::ostream &err, size_t done, size_t total, const std::string &what, bool terminal) {
  constexpr int kWidth = 30;
  int filled = int(kWidth * done / std::max<size_t>(total, 1));
  std::string bar = "[" + std::string(filled, '#') + std::string(kWidth - filled, '.') + "] ";
  std::string line = bar + std::to_string(done) + "/" + std::to_string(total) + " " + what;
  if (terminal)
    err << "\r\033[K" << line.substr(0, 120) << (done == total ? "\n" : "") << std::flush;
  else
    err << line << "\n";
}

void printTable(std::ostream &out, const TuneReport &report) {
  size_t width = 6;
  for (const TuneResult &r : report.results)
    width = std::max(width, r.config.str().size());
  // "final (ms)": the finalists' medians when they ran in turn (tk::TuneResult::finalMs).
  out << std::left << std::setw(int(width) + 2) << "config" << std::right << std::setw(12) << "time (ms)"
      << std::setw(12) << "final (ms)" << "  status\n";
  auto text = [](const std::optional<double> &ms) {
    std::ostringstream s;
    if (ms)
      s << std::fixed << std::setprecision(4) << *ms;
    else
      s << "-";
    return s.str();
  };
  for (size_t i = 0; i < report.results.size(); ++i) {
    const TuneResult &r = report.results[i];
    std::string status = r.status.empty() ? (i == report.best ? "best" : "") : r.status;
    out << std::left << std::setw(int(width) + 2) << r.config.str() << std::right << std::setw(12) << text(r.ms)
        << std::setw(12) << text(r.finalMs) << "  " << status << "\n";
  }
}

/// As `tkc run` after tuning: the winner runs once on the original inputs (tuning ran every
/// config on them, and a kernel need not be idempotent), `--save` writes its outputs, and
/// `--time N` times it by both methods (tk::Timing).
int runWinner(Context &context, Kernel &kernel, const GridSpec &grid, const Config &winner, const std::vector<Arg> &args,
               const Consts &consts, std::vector<Buffer> &buffers, std::vector<HostBuffer> &hosts,
               const RunOptions &options, std::ostream &err) {
  for (size_t b = 0; b < buffers.size(); ++b)
    buffers[b].upload(hosts[b].bytes.data(), hosts[b].bytes.size());
  // The winner's grid, evaluated once: evaluating the --grid expressions in every timed launch
  // would put host work that is not the kernel's into its time.
  GridSpec fixed(grid(winner));
  Stream stream;
  kernel.launch(fixed, args, consts, stream);
  context.synchronize();
  for (size_t b = 0; b < buffers.size(); ++b)
    buffers[b].download(hosts[b].bytes.data(), hosts[b].bytes.size());
  if (int status = saveBuffers(options, hosts, err, "tkc tune"); status != 0)
    return status;
  if (options.timedRuns > 0) {
    Timing timing = context.time([&] { kernel.launch(fixed, args, consts, stream); }, 1, options.timedRuns, stream);
    err << "kernel '" << kernel.name() << "': " << timing.str() << "\n";
  }
  return 0;
}

} // namespace

int tuneDryRun(const CompileOptions &base, const std::string &file, std::ostream &out, std::ostream &err) {
  CompileOptions named = base;
  named.tool = "tkc tune";
  Compiler declarations(named);
  std::vector<KernelDecl> decls;
  if (!declarations.load(file) || !declarations.declarations(decls)) {
    err << declarations.diagnosticsText();
    return 1;
  }
  const KernelDecl &decl = decls.at(0);
  std::vector<std::map<std::string, std::string>> configs = decl.configs;
  if (configs.empty())
    configs.push_back({});
  std::string arch = "sm_" + std::to_string(base.sm) + (base.archSpecific ? "a" : "");
  // The integer arguments no --divisibility names (i1 and nospec ones the JIT leaves alone too).
  std::string unknown;
  for (const KernelDecl::Param &p : decl.params)
    if (!p.isConst && !p.nospec && p.type.isIntValue() && p.type.isScalarValue() && p.type.elem.scalar != Scalar::I1 &&
        !base.divisibility.count(p.name))
      unknown += (unknown.empty() ? "" : ", ") + p.name;
  std::vector<std::array<std::string, 6>> rows{{"config", "registers", "spill bytes", "shared bytes", "threads", ""}};
  size_t failed = 0;
  for (size_t index = 0; index < configs.size(); ++index) {
    // Each config as the tuner compiles it: its own values (over a -D of the same name), the
    // defaults for what it leaves out (launch options too), not the first config's.
    CompileOptions options = base;
    for (const auto &entry : configs[index])
      options.defines.erase(entry.first);
    std::string text = configText(configs[index]);
    if (!decl.configs.empty())
      options.autotuneConfig = index;
    Compiler compiler(options);
    std::ostringstream cubin;
    if (!compiler.load(file) || !compiler.emit(EmitKind::Cubin, cubin)) {
      std::string why = compiler.diagnosticsText();
      size_t at = why.find("error: ");
      why = at == std::string::npos ? why : why.substr(at + 7);
      rows.push_back({text.empty() ? "(the -D constants)" : text, "-", "-", "-", "-", why.substr(0, why.find('\n'))});
      ++failed;
      continue;
    }
    // ptxas -v: "Used N registers, ..." and "N bytes spill stores, M bytes spill loads".
    const std::string &report = compiler.ptxasReport();
    auto number = [&](const std::string &after, const std::string &before) -> std::string {
      size_t end = report.find(before);
      if (end == std::string::npos)
        return "?";
      size_t start = report.rfind(after, end);
      start = start == std::string::npos ? 0 : start + after.size();
      return report.substr(start, end - start);
    };
    rows.push_back({text.empty() ? "(the -D constants)" : text, number("Used ", " registers"),
                    number("frame, ", " bytes spill stores"), std::to_string(compiler.sharedBytes()),
                    std::to_string(compiler.launchThreads()), ""});
  }
  out << "kernel '" << decl.name << "' for " << arch << ": " << configs.size()
      << (configs.size() == 1 ? " config, " : " configs, ") << configs.size() - failed << " compiled"
      << (failed ? " (" + std::to_string(failed) + " not: below)" : "") << ", none run (--dry-run)"
      << (unknown.empty() ? "" : "; integer arguments of unknown divisibility: " + unknown +
                                     " (the JIT specializes them: --divisibility NAME=16 does the same)")
      << "\n";
  std::array<size_t, 6> width{};
  for (const auto &row : rows)
    for (size_t c = 0; c < row.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  for (const auto &row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c)
      line += (c == 0 ? row[c] + std::string(width[c] - row[c].size(), ' ') : "  " + std::string(width[c] - row[c].size(), ' ') + row[c]);
    out << line.substr(0, line.find_last_not_of(' ') + 1) << "\n";
  }
  return 0;
}

int tuneCommand(const RunOptions &options, std::ostream &out, std::ostream &err) {
  if (options.backend == "interp") {
    err << "tkc tune: error: tuning times kernels on the GPU; the interpreter cannot (--dry-run compiles every "
           "config without a GPU)\n";
    return 1;
  }
  if (Context::defaultBackend() != Backend::Cuda) {
    err << "tkc tune: error: no GPU here (no CUDA driver, or it found no device): tuning times kernels on one "
           "(--dry-run compiles every config without it)\n";
    return 1;
  }
  if (!options.saves.empty()) { // (before the GPU's work: nothing is written over the sources)
    std::vector<std::pair<std::string, std::string>> outputs;
    for (auto &[name, path] : options.saves)
      outputs.emplace_back("--save " + name, path);
    Compiler files{CompileOptions{}};
    std::vector<std::string> inputs = files.load(options.file) ? loadedFiles(files) : std::vector<std::string>{options.file};
    if (std::string conflict = outputConflict(outputs, inputs); !conflict.empty()) {
      err << "tkc tune: error: " << conflict << "\n";
      return 1;
    }
  }
  try {
    Context context(Backend::Cuda);
    Module module = Module::fromFile(context, options.file);
    Kernel kernel = module.kernel(options.kernel);
    std::vector<std::pair<std::string, Type>> params;
    for (const ParamInfo &param : kernel.params()) {
      Type type = param.type; // `ptr<T>`: T's default, unless -D T=... gives it
      if (auto it = options.defines.find(param.elemFrom); !param.elemFrom.empty() && it != options.defines.end())
        if (std::optional<Scalar> elem = parseScalar(it->second))
          type = type.withElem(ElemType{*elem, type.elem.isPtr});
      params.emplace_back(param.name, type);
    }
    std::vector<HostBuffer> hosts;
    std::map<std::string, int64_t> names; // for the grid's expressions
    std::vector<ArgValue> values = bindArguments(kernel.name(), params, options, hosts, names);
    std::vector<Buffer> buffers;
    buffers.reserve(hosts.size());
    for (const HostBuffer &host : hosts) {
      buffers.emplace_back(context, host.elem, host.elementCount());
      buffers.back().upload(host.bytes.data(), host.bytes.size());
    }
    std::vector<Arg> args;
    for (size_t k = 0; k < params.size(); ++k) {
      const Type &type = params[k].second;
      if (type.isPtr())
        args.emplace_back(buffers[values[k].buffer]);
      else if (type.isFloatValue())
        args.emplace_back(values[k].f);
      else if (type.isBool())
        args.emplace_back(values[k].i != 0);
      else
        args.emplace_back(values[k].i);
    }
    Consts consts;
    for (const auto &[name, value] : options.defines) {
      std::optional<Const> constant = Const::parse(value);
      if (!constant)
        throw UsageError("-D " + name + "=" + value + ": not an integer, a float, a bool or a type");
      consts.emplace(name, *constant);
    }
    std::vector<std::string> dims = splitGrid(options.grid);
    GridSpec grid([&](const Config &config) {
      std::map<std::string, int64_t> scope = names;
      for (const auto &[name, value] : config.values)
        if (auto number = config.integer(name))
          scope[name] = *number;
      int64_t sizes[3] = {1, 1, 1};
      for (size_t d = 0; d < dims.size() && d < 3; ++d) {
        std::string error;
        if (!evaluateIntExpression(dims[d], scope, sizes[d], error))
          throw Error("--grid '" + dims[d] + "': " + error);
      }
      return Grid(sizes[0], sizes[1], sizes[2]);
    });
    bool terminal = ::isatty(STDERR_FILENO);
    TuneReport report = kernel.tune(grid, args, consts, Stream(), [&](size_t done, size_t total, const std::string &what) {
      drawProgress(err, done, total, what, terminal);
    });
    out << "kernel '" << kernel.name() << "' on " << context.device().name << ": "
        << (report.fromDatabase ? "from the tuning database, nothing timed\n" : "");
    if (!report.fromDatabase) {
      std::ostringstream line;
      line << std::fixed << std::setprecision(2) << report.results.size()
           << (report.results.size() == 1 ? " config" : " configs") << " compiled in "
           << report.compileSeconds << " s, timed in " << report.timeSeconds << " s\n";
      out << line.str();
    }
    printTable(out, report);
    if (options.timedRuns > 0 || !options.saves.empty())
      return runWinner(context, kernel, grid, report.results.at(report.best).config, args, consts, buffers, hosts,
                       options, err);
    return 0;
  } catch (const UsageError &e) {
    err << "tkc tune: error: " << e.what() << "\n";
    return 1;
  } catch (const Error &e) {
    err << "tkc tune: error: " << e.what() << "\n";
    return 1;
  }
}

} // namespace tk
