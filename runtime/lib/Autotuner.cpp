// The autotuner: prune the configs that cannot run, compile the rest in parallel, time each
// with CUDA events (cold L2; the median of three rounds' medians, the rounds going over all
// configs; then the finalists within 5% of the best run by run against each other), keep the
// winner in memory and in the tuning database.
#include "JitImpl.h"
#include "TuningDatabase.h"
#include "tk/Runtime/Nvtx.h"

#include "tk/Runtime/DiskCache.h"

#include "llvm/ADT/ScopeExit.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace tk {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string firstLines(const std::string &text, int lines) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; lines-- > 0 && std::getline(in, line);)
    out += (out.empty() ? "" : " / ") + line;
  return out;
}

int64_t threadsOf(const Config &config) { return config.integer("num_warps").value_or(4) * 32; }

} // namespace

std::shared_ptr<Variant> Kernel::Impl::tuned(const GridSpec &grid, const Arg *args, size_t count, PackedArgs &packed,
                                             const Config &given, const LaunchKeyRef &memoryKey,
                                             const Stream &stream, const TuneProgress &progress, TuneReport *report) {
  NvtxRange range("tune " + decl.name);
  std::string keys = keyValues(args);
  std::vector<Config> candidates;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (const std::shared_ptr<Variant> *known = winners.find(memoryKey)) {
      if (report) {
        report->results = {TuneResult{(*known)->config, std::nullopt, "known (tuned earlier in this process)"}};
        report->fromDatabase = true;
      }
      return *known;
    }
    for (const Config &config : configs) {
      Config merged = given;
      for (const auto &[name, value] : config.values)
        merged.values.insert_or_assign(name, value);
      candidates.push_back(std::move(merged));
    }
  }
  const DeviceInfo &device = context().device();
  std::string configList;
  for (const Config &c : candidates)
    configList += c.str() + ";";
  std::string dbPath;
  if (!module->cacheDir.empty())
    dbPath = module->cacheDir + "/tuning/" +
             cacheKey({"tune", module->sourceHash, decl.name, configList, keys, device.name,
                       specializationKey(packed.spec)}) + ".json";

  auto remember = [&](std::shared_ptr<Variant> winner, bool timed) {
    std::lock_guard<std::mutex> lock(mutex);
    ++(timed ? stats.tunings : stats.databaseHits);
    winners.put(memoryKey, winner);
    return winner;
  };

  // The tuning database: a second process tunes nothing.
  DiskCache database(module->cacheDir);
  if (context().backend() == Backend::Cuda && !dbPath.empty())
    if (std::optional<std::string> text = database.readPrivate(dbPath, kMaxTuningEntryBytes)) {
      std::string error;
      std::optional<TuningEntry> entry = parseTuningEntry(*text, error);
      auto known = entry ? std::find_if(candidates.begin(), candidates.end(),
                                        [&](const Config &c) { return c.values == entry->config.values; })
                         : candidates.end();
      if (known != candidates.end() && entry->gpu == device.name && entry->kernelHash == module->sourceHash) {
        bool fromDisk = false;
        std::shared_ptr<Variant> winner = build(*known, packed.spec, fromDisk);
        if (report) {
          report->results = {TuneResult{*known, entry->ms, "from the tuning database " + dbPath}};
          report->fromDatabase = true;
        }
        return remember(winner, false);
      }
      std::cerr << "tk: warning: ignoring the tuning entry " << dbPath << ": "
                << (entry ? "it is for another kernel, GPU or space" : error) << "; tuning again\n";
    }
  database.printWarnings();

  std::vector<TuneResult> results(candidates.size());
  std::vector<std::shared_ptr<Variant>> built(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    results[i].config = candidates[i];
    if (threadsOf(candidates[i]) > device.maxThreadsPerBlock)
      results[i].status = "pruned: " + std::to_string(threadsOf(candidates[i])) + " threads, the GPU allows " +
                          std::to_string(device.maxThreadsPerBlock);
  }

  if (context().backend() == Backend::Interpreter) {
    // The interpreter cannot time a kernel: the first config that fits runs.
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (!results[i].status.empty())
        continue;
      bool fromDisk = false;
      std::shared_ptr<Variant> winner = build(candidates[i], packed.spec, fromDisk);
      if (report) {
        results[i].status = "chosen untimed (the interpreter cannot time kernels)";
        for (size_t later = i + 1; later < results.size(); ++later) // ("" would read as timed)
          if (results[later].status.empty())
            results[later].status = "not run (the interpreter runs the first config that fits)";
        report->results = results;
        report->best = i;
      }
      return remember(winner, false);
    }
    throw Error("kernel '" + decl.name + "': no config of its tuning space fits");
  }

  // Compile every candidate on a pool of threads.
  auto compileStart = std::chrono::steady_clock::now();
  size_t total = candidates.size() * 2 + 1, done = 0; // compiled, timed, and the finalists
  std::mutex progressMutex;
  auto step = [&](const std::string &what) {
    std::lock_guard<std::mutex> lock(progressMutex);
    ++done;
    if (progress)
      progress(done, total, what);
  };
  std::atomic<size_t> next{0};
  std::optional<int> threads = module->options.compileThreads;
  unsigned workers = threads && *threads > 0 ? unsigned(*threads) : std::max(1u, std::thread::hardware_concurrency());
  workers = std::min<unsigned>(workers, unsigned(candidates.size()));
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      context().makeCurrent();
      for (size_t i; (i = next++) < candidates.size();) {
        if (results[i].status.empty()) {
          try {
            bool fromDisk = false;
            built[i] = build(candidates[i], packed.spec, fromDisk);
          } catch (const Error &e) {
            results[i].status = "failed to compile: " + firstLines(e.what(), 3);
          }
        }
        step("compiled " + candidates[i].str());
      }
    });
  for (std::thread &t : pool)
    t.join();
  double compileSeconds = secondsSince(compileStart);

  // What compiled but cannot run: shared memory and registers beyond the GPU's.
  for (size_t i = 0; i < candidates.size(); ++i) {
    Variant *v = built[i].get();
    if (!v)
      continue;
    if (v->sharedBytes > device.sharedBytesPerBlock)
      results[i].status = "pruned: " + std::to_string(v->sharedBytes) + " bytes of shared memory, the GPU allows " +
                          std::to_string(device.sharedBytesPerBlock);
    else if (int64_t(v->registers) * v->threads > device.registersPerBlock)
      results[i].status = "pruned: " + std::to_string(v->registers) + " registers x " + std::to_string(v->threads) +
                          " threads, the GPU allows " + std::to_string(device.registersPerBlock);
    if (!results[i].status.empty())
      built[i].reset();
  }
  // One config that can run is not timed, as Triton's autotuner times none of a space of one:
  // there is nothing to choose, and timing runs the kernel many times on the launch's own
  // buffers (a kernel that updates them in place saw every run's update).
  if (std::count_if(built.begin(), built.end(), [](const auto &v) { return bool(v); }) == 1) {
    size_t only = size_t(std::find_if(built.begin(), built.end(), [](const auto &v) { return bool(v); }) - built.begin());
    if (report) {
      results[only].status = "chosen untimed (the only config that can run)";
      report->results = results;
      report->best = only;
      report->compileSeconds = compileSeconds;
    }
    return remember(built[only], true);
  }
  for (auto [indices, list] : {std::pair{&resetIndex, "reset_to_zero"}, std::pair{&restoreIndex, "restore_value"}})
    for (size_t index : *indices)
      if (args[index].kind() != Arg::Kind::Buffer)
        throw Error("kernel '" + decl.name + "': " + list + " needs a tk::Buffer for '" + params[index].name +
                    "' (the tuner must know its size)");

  auto timeStart = std::chrono::steady_clock::now();
  // Timed in rounds over all configs, each config's time the median of its rounds' medians: a
  // GPU at its power limit changes clocks over tens of milliseconds, so one short window per
  // config, in list order, charged later configs with what the earlier ones drew; the median
  // of the rounds (not the least) does not favour a config that caught fast clocks once.
  constexpr int kRounds = 3;
  // restore_value: the buffers' values as given, copied back before each timed run (as
  // reset_to_zero's zeroing, inside the time: the same for every config) and after the last.
  std::vector<Buffer> asGiven;
  for (size_t index : restoreIndex) {
    const Buffer &buffer = *args[index].buffer();
    asGiven.emplace_back(context(), buffer.elem(), buffer.count());
    context().copy(asGiven.back(), buffer, stream);
  }
  auto restore = [&] {
    for (size_t k = 0; k < restoreIndex.size(); ++k)
      context().copy(*args[restoreIndex[k]].buffer(), asGiven[k], stream);
  };
  // However the timing ends (an error a progress callback throws included): the values as
  // given, and the copies done before asGiven is freed.
  llvm::scope_exit restoreAtExit([&] {
    if (restoreIndex.empty())
      return;
    try {
      restore();
      stream.synchronize();
    } catch (...) { // (a guard's destructor does not throw: the error that ended the timing stands)
    }
  });
  std::vector<std::function<void()>> launches(candidates.size());
  std::vector<int> repetitions(candidates.size(), 0);
  std::vector<std::vector<double>> rounds(candidates.size());
  std::optional<size_t> best;
  for (int round = 0; round < kRounds; ++round) {
    bool last = round == kRounds - 1;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (!built[i]) {
        if (last) // (every config counts once in the progress, timed or not)
          step("timed " + candidates[i].str());
        continue;
      }
      Variant &v = *built[i];
      try {
        if (round == 0) {
          Grid g = grid(v.gridConfig);
          g.check(decl.name);
          launches[i] = [&, g, function = v.function, threads = v.threads, shared = v.sharedBytes] {
            for (size_t index : resetIndex)
              context().zero(*args[index].buffer(), stream);
            restore();
            context().launchFunction(function, decl.name, g, threads, shared, packed.pointers.data(), stream);
          };
          double estimate = context().timeMedian(launches[i], 1, 3, stream, true, 0);
          // About 20 ms of timed runs per config and round, at least 5 and at most 100.
          repetitions[i] = int(std::clamp(20.0 / std::max(estimate, 1e-3), 5.0, 100.0));
        }
        // Each run after the rest (Context::kRestMicroseconds), as the final round below and the
        // benchmarks' per call: rounds of runs one after the other at the power cap ranked alike
        // configs that differ by 3-12% rested, and left the GPU in a state in which the final
        // round, though rested, still ranked them so (session 45, run 3: the persistent FP8 GEMM
        // at 8192x8192x4096 with its tiles taken 4 or 8 rows at a time, 0.372 against 0.383 ms
        // a call rested, 0.431 against 0.420 back to back; after unrested rounds over eight
        // configs the final round chose 8, over the two alone 4; rested, the rounds ranked 4 first
        // and the final round chose it, run 4). The rests cost at most 20 ms a config and round
        // (100 runs at most): for a kernel much shorter than the rest, many times its runs.
        rounds[i].push_back(context().timeMedian(launches[i], 1, repetitions[i], stream, true));
        if (last) {
          std::sort(rounds[i].begin(), rounds[i].end());
          results[i].ms = rounds[i][rounds[i].size() / 2];
        }
      } catch (const Error &e) {
        results[i].status = std::string("failed to run: ") + e.what();
        results[i].ms.reset();
        built[i].reset();
      }
      if (last && built[i] && (!best || *results[i].ms < *results[*best].ms))
        best = i;
      if (last)
        step("timed " + candidates[i].str());
    }
  }
  // The finalists, those within kFinalMargin of the best rounds' median (at most kFinalists),
  // timed again against each other run by run: the rounds time each config in a block of its
  // own, and at the power cap two configs within a few percent swap places from one block to
  // the next (session 43's H100: a config's medians 0.1545 and 0.1618 ms in one run). Each
  // run comes after the rest, as in the rounds.
  constexpr double kFinalMargin = 0.05;
  constexpr size_t kFinalists = 4;
  std::vector<size_t> finalists;
  if (best) {
    for (size_t i = 0; i < candidates.size(); ++i)
      if (built[i] && *results[i].ms <= *results[*best].ms * (1 + kFinalMargin))
        finalists.push_back(i);
    std::sort(finalists.begin(), finalists.end(), [&](size_t x, size_t y) { return *results[x].ms < *results[y].ms; });
    finalists.resize(std::min(finalists.size(), kFinalists));
  }
  if (finalists.size() > 1) {
    std::vector<std::function<void()>> finalLaunches;
    double roundMs = 0;
    for (size_t i : finalists) {
      finalLaunches.push_back(launches[i]);
      roundMs += *results[i].ms;
    }
    // About 60 ms of timed runs, at least 15 rounds and at most 200.
    int finalRounds = int(std::clamp(60.0 / std::max(roundMs, 1e-3), 15.0, 200.0));
    try {
      std::vector<double> finalMs = context().timeInterleaved(finalLaunches, finalRounds, stream);
      for (size_t k = 0; k < finalists.size(); ++k)
        results[finalists[k]].finalMs = finalMs[k];
      best = *std::min_element(finalists.begin(), finalists.end(),
                               [&](size_t x, size_t y) { return *results[x].finalMs < *results[y].finalMs; });
    } catch (const Error &e) { // every finalist ran in the rounds: a failure now is the GPU's, not a config's
      throw Error("kernel '" + decl.name + "': timing the tuner's finalists: " + e.what());
    }
  }
  step("timed the finalists");
  if (!best) {
    std::string why;
    for (const TuneResult &r : results)
      why += "\n  {" + r.config.str() + "}: " + r.status;
    throw Error("kernel '" + decl.name + "': no config of its tuning space could run:" + why);
  }
  if (report) {
    report->results = results;
    report->best = *best;
    report->compileSeconds = compileSeconds;
    report->timeSeconds = secondsSince(timeStart);
  }
  if (!dbPath.empty()) {
    TuningEntry entry{decl.name, module->sourceHash, device.name, specializationKey(packed.spec), keys,
                      candidates[*best], results[*best].finalMs.value_or(*results[*best].ms)};
    std::string error; // best-effort, as the disk cache
    if (!database.writePrivate(dbPath, tuningEntryJson(entry), error))
      std::cerr << "tk: warning: the tuning database: " << error << "\n";
  }
  return remember(built[*best], true);
}

} // namespace tk
