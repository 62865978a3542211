// tk-llama: generation from a Hugging Face LLaMA folder on the graph layer
// (tk::llm::LlamaModel::generate does the work; this is its command line).
//   tk-llama MODEL_DIR --prompt 3,17,42 [--max-new-tokens N] [--backend interp|cuda] [--batch B]
//            [--max-context C] [--save-logits OUT.npy] [--temperature T --top-k K --top-p P --seed S]
//            [--tokenizer tokenizer.model --prompt-text "..."] [--profile] [--decode-splits N] [--fp8]
//            [--fp8-kernel auto|tiled|persistent] [--gemv-chains] [--greedy-on-host]
//            [--trace FILE.json] [--tp N] [--nccl]
// Prints `tokens: 11,22,33` (the generated ids), then the prefill's and the decode steps' speed
// (on the GPU after a warm-up generation that compiles and tunes), and with a SentencePiece tokenizer
// `text: ...` (their text; the prompt's text is encoded with BOS first, as LlamaTokenizer
// does). Greedy unless --temperature > 0 (GenerateOptions in Llama.h says how it samples).
// Several --prompt options (or --batch B) generate a static batch together: a `tokens:` line
// per sequence. --save-logits writes float32 [new tokens, vocab] ([sequences, new tokens, vocab]
// for a batch): the logits each generated token was chosen from. The prompt goes into a KV
// cache in one pass, then one token per step attends to it (flash-decoding); --no-cache runs
// the whole prefix for every token instead. --profile prints each kernel's time in the prefill
// and in one decode step, and (decode steps as a CUDA graph, one rank) each kernel's cost
// inside the step's graph. --tp N splits the model over N ranks (Megatron-style tensor
// parallelism, TensorParallel in Llama.h), one thread each with its own Context: GPUs 0 to N-1
// joined by NCCL on the CUDA backend, an in-process group on the interpreter; rank 0 prints.
// --nccl runs even one rank through NCCL (its collectives then copy).
#include "tk/Graph/Llama.h"
#include "tk/Graph/Parallel.h"
#include "tk/Runtime/Files.h"
#include "tk/Runtime/Error.h"
#include "tk/Runtime/Npy.h"
#include "SentencePieceCheck.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <map>
#include <cmath>
#include <optional>
#include <sentencepiece_processor.h>
#include <cstring>
#include <iostream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace {

constexpr const char *kUsage =
    "usage: tk-llama MODEL_DIR --prompt ID,ID,... [--max-new-tokens N] [--backend interp|cuda] [--batch B]\n"
    "                [--max-context C] [--save-logits OUT.npy] [--temperature T] [--top-k K] [--top-p P]\n"
    "                [--seed S] [--tokenizer tokenizer.model --prompt-text TEXT] [--profile] [--no-cache]\n"
    "                [--decode-splits N] [--fp8] [--fp8-kernel auto|tiled|persistent] [--gemv-chains]\n"
    "                [--greedy-on-host] [--trace FILE.json]\n"
    "                [--tp N] [--nccl]\n"
    "  MODEL_DIR         a Hugging Face folder: config.json (LlamaForCausalLM) and model.safetensors\n"
    "                    or its shards with model.safetensors.index.json\n"
    "  --prompt          a prompt's token ids, comma-separated; again for more sequences (a static batch)\n"
    "  --batch           repeat the one prompt this many times\n"
    "  --max-new-tokens  how many tokens to generate (default 16, at most 65536)\n"
    "  --backend         cuda (default when a GPU is present) or interp\n"
    "  --max-context     positions of each sequence's KV cache (default: prompt + new tokens - 1)\n"
    "  --save-logits     write the logits each new token was chosen from: float32 [N, vocab]\n"
    "  --temperature     sample at this temperature (default 0: greedy)\n"
    "  --top-k           sample among the K most likely tokens only (default: all)\n"
    "  --top-p           sample among the most likely tokens whose probabilities reach P (default 1)\n"
    "  --seed            the sampler's seed (default 0)\n"
    "  --tokenizer       a SentencePiece model (the folder's tokenizer.model): prints the text too\n"
    "  --prompt-text     the prompt as text, encoded by --tokenizer (instead of --prompt)\n"
    "  --no-cache        run the whole prefix again for every token instead of a KV cache\n"
    "  --profile         print each kernel's time in the prefill and in one decode step, and (on the GPU, one\n"
    "                    rank) each kernel's cost inside the decode step's CUDA graph\n"
    "  --decode-splits   the ranges flash-decoding cuts each cache into, 1 to 64 (default: chosen)\n"
    "  --trace FILE.json the profile (--profile) as a Chrome trace: the prefill and a decode step, each kernel\n"
    "                    in launch order (chrome://tracing, ui.perfetto.dev)\n"
    "  --fp8             the layers' projections as FP8 (e4m3, a scale per output channel, quantized at load;\n"
    "                    the prefill's activations quantized per row as they run, decode's few rows multiplied\n"
    "                    as they are: weight-only); the embedding and the LM head stay bf16\n"
    "  --fp8-kernel      with FP8 weights, the prefill's matmuls of more than 128 rows (batch x prompt; fewer\n"
    "                    stay on fp8_matmul with split-K): fp8_matmul (tiled), fp8_matmul_persistent (persistent)\n"
    "                    or, by default (auto), the faster of the two at each shape, timed at its first run\n"
    "                    (the interpreter: tiled)\n"
    "  --gemv-chains     with FP8 weights (--fp8 or an FP8 checkpoint) at batch 1: each decode step's GEMVs\n"
    "                    between two attentions (O, gate, up, down and the next layer's QKV) as one persistent\n"
    "                    kernel; otherwise it changes nothing\n"
    "  --greedy-on-host  greedy decoding chooses each step's tokens on the host from the step's logits (as\n"
    "                    sampling does) instead of on the GPU between steps enqueued back to back; the same tokens\n"
    "  --tp N            tensor parallelism over N ranks (default 1), one thread each: GPUs 0 to N-1 over NCCL, or\n"
    "                    N interpreter contexts joined in-process (--backend interp); the same tokens as one\n"
    "  --nccl            the CUDA backend's ranks through NCCL even when --tp is 1\n";

/// The text of `ids`; ids the tokenizer does not have (a model's vocabulary may be larger than
/// its tokenizer's) read as U+2047, as SentencePiece writes unknown pieces.
std::string detokenize(const sentencepiece::SentencePieceProcessor &sp, const std::vector<int32_t> &ids) {
  std::vector<int> known;
  std::string text;
  auto flush = [&] {
    std::string part;
    if (!known.empty() && sp.Decode(known, &part).ok())
      text += part;
    known.clear();
  };
  for (int32_t id : ids) {
    if (id >= 0 && id < sp.GetPieceSize()) {
      known.push_back(id);
      continue;
    }
    flush();
    text += " \u2047 ";
  }
  flush();
  return text;
}

/// An integer option's value in [lo, hi], or a tk::Error that names the option and its range.
long long integerOption(const std::string &option, const std::string &text, long long lo, long long hi) {
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno || value < lo || value > hi)
    throw tk::Error(option + " takes " + std::to_string(lo) + " to " + std::to_string(hi) + ", not '" + text + "'");
  return value;
}

/// The per-kernel table of one profiled run: kernels of the same name summed, the slowest first.
void printProfile(const std::string &title, const std::vector<tk::graph::KernelProfile> &kernels) {
  struct Row {
    int launches = 0;
    double ms = 0, bytes = 0, flops = 0;
  };
  std::map<std::string, Row> rows;
  double total = 0;
  for (const tk::graph::KernelProfile &k : kernels) {
    Row &r = rows[k.kernel];
    ++r.launches;
    r.ms += k.ms;
    r.bytes += k.bytes;
    r.flops += k.flops;
    total += k.ms;
  }
  std::vector<std::pair<std::string, Row>> sorted(rows.begin(), rows.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.second.ms > b.second.ms; });
  std::printf("%s: %zu kernels, %.3f ms (medians of each kernel's time between events, launch waits included; "
              "bytes count every tensor once)\n",
              title.c_str(), kernels.size(), total);
  std::printf("  %-58s %8s %10s %7s %9s %9s\n", "kernel", "launches", "total ms", "%", "GB/s", "TFLOP/s");
  for (const auto &[name, r] : sorted) {
    double seconds = r.ms / 1e3;
    char flops[32] = "-";
    if (r.flops > 0 && seconds > 0)
      std::snprintf(flops, sizeof flops, "%.2f", r.flops / seconds / 1e12);
    std::printf("  %-58s %8d %10.3f %7.1f %9.1f %9s\n", name.substr(0, 58).c_str(), r.launches, r.ms,
                total > 0 ? 100 * r.ms / total : 0.0, seconds > 0 ? r.bytes / seconds / 1e9 : 0.0, flops);
  }
}

// Each kernel's cost inside the decode step's CUDA graph: the step's graph timed whole and
// without it (Executable::profileInGraph), largest first.
void printInGraph(const tk::graph::InGraphProfile &profile) {
  std::vector<tk::graph::KernelCostInGraph> sorted = profile.kernels;
  std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.ms > b.ms; });
  std::printf("decode step in its CUDA graph: %.3f ms (the median replay); each kernel's cost: the median of each "
              "round's replay less the step's graph captured without its launches (their outputs wrong)\n",
              profile.ms);
  std::printf("  %-58s %8s %10s %7s\n", "kernel", "launches", "cost ms", "%");
  for (const tk::graph::KernelCostInGraph &k : sorted)
    std::printf("  %-58s %8d %10.3f %7.1f\n", k.kernel.substr(0, 58).c_str(), k.launches, k.ms,
                profile.ms > 0 ? 100 * k.ms / profile.ms : 0.0);
}

std::vector<int32_t> parseIds(const std::string &text) {
  std::vector<int32_t> ids;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char *end = nullptr;
    long value = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || value < 0 || value > INT32_MAX)
      throw tk::Error("--prompt: '" + item + "' is not a token id");
    ids.push_back(int32_t(value));
  }
  if (ids.empty())
    throw tk::Error("--prompt needs at least one token id");
  if (text.back() == ',') // (getline makes no empty last item of it)
    throw tk::Error("--prompt: '" + text + "' ends with a comma");
  return ids;
}

} // namespace

int main(int argc, char **argv) {
  std::string folder, savePath;
  std::vector<std::vector<int32_t>> prompts;
  long batch = 1;
  long maxNew = 16;
  long long maxContext = 0, decodeSplits = 0;
  bool gemvChains = false, greedyOnHost = false;
  tk::graph::GraphOptions::Fp8Kernel fp8Kernel = tk::graph::GraphOptions::Fp8Kernel::Auto;
  tk::llm::LoadOptions loadOptions;
  bool profile = false;
  std::string tracePath;
  std::optional<tk::Backend> backend;
  tk::llm::GenerateOptions sampling;
  std::string tokenizerPath, promptText;
  bool hasPromptText = false;
  int ranks = 1;
  bool nccl = false;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      // --name=value, as tkc takes it, is --name value.
      std::optional<std::string> attached;
      if (size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
        attached = a.substr(eq + 1);
        a.resize(eq);
      }
      bool taken = false;
      auto value = [&]() -> std::string {
        taken = true;
        if (attached)
          return *attached;
        if (i + 1 >= argc)
          throw tk::Error(a + " needs a value");
        return argv[++i];
      };
      if (a == "--help" || a == "-h") {
        std::cout << kUsage;
        return 0;
      } else if (a == "--prompt") {
        prompts.push_back(parseIds(value()));
      } else if (a == "--max-new-tokens") {
        maxNew = long(integerOption(a, value(), 1, 65536));
      } else if (a == "--backend") {
        std::string b = value();
        if (b != "interp" && b != "cuda")
          throw tk::Error("--backend is interp or cuda, not '" + b + "'");
        backend = b == "interp" ? tk::Backend::Interpreter : tk::Backend::Cuda;
      } else if (a == "--save-logits") {
        if ((savePath = value()).empty())
          throw tk::Error("--save-logits needs a file name");
      } else if (a == "--batch") {
        batch = long(integerOption(a, value(), 1, 4096));
      } else if (a == "--gemv-chains") {
        gemvChains = true;
      } else if (a == "--fp8-kernel") {
        std::string k = value();
        if (k != "auto" && k != "tiled" && k != "persistent")
          throw tk::Error("--fp8-kernel is auto, tiled or persistent, not '" + k + "'");
        fp8Kernel = k == "tiled"        ? tk::graph::GraphOptions::Fp8Kernel::Tiled
                    : k == "persistent" ? tk::graph::GraphOptions::Fp8Kernel::Persistent
                                        : tk::graph::GraphOptions::Fp8Kernel::Auto;
      } else if (a == "--greedy-on-host") {
        greedyOnHost = true;
      } else if (a == "--decode-splits") {
        decodeSplits = integerOption(a, value(), 1, 64);
      } else if (a == "--max-context") {
        maxContext = integerOption(a, value(), 1, 1 << 20);
      } else if (a == "--profile") {
        profile = true;
      } else if (a == "--trace") {
        if ((tracePath = value()).empty())
          throw tk::Error("--trace needs a file name");
        profile = true;
      } else if (a == "--fp8") {
        loadOptions.fp8Weights = true;
      } else if (a == "--tp") {
        ranks = int(integerOption(a, value(), 1, 64));
      } else if (a == "--nccl") {
        nccl = true;
      } else if (a == "--no-cache") {
        sampling.kvCache = false;
      } else if (a == "--tokenizer") {
        tokenizerPath = value();
      } else if (a == "--prompt-text") {
        promptText = value();
        hasPromptText = true;
      } else if (a == "--temperature" || a == "--top-p") {
        std::string v = value();
        char *end = nullptr;
        double x = std::strtod(v.c_str(), &end);
        bool temperature = a == "--temperature";
        if (v.empty() || *end != '\0' || !std::isfinite(x) || x < 0 || (!temperature && (x <= 0 || x > 1)))
          throw tk::Error(a + (temperature ? " takes a number >= 0" : " takes a number in (0, 1]") + ", not '" + v + "'");
        (temperature ? sampling.temperature : sampling.topP) = x;
      } else if (a == "--top-k") {
        sampling.topK = integerOption(a, value(), 1, 1ll << 30);
      } else if (a == "--seed") {
        sampling.seed = uint64_t(integerOption(a, value(), 0, INT64_MAX));
      } else if (!a.empty() && a[0] == '-') {
        throw tk::Error("unknown option '" + a + "'");
      } else if (folder.empty()) {
        folder = a;
      } else {
        throw tk::Error("one model folder, not '" + folder + "' and '" + a + "'");
      }
      if (attached && !taken)
        throw tk::Error(a + " takes no value");
    }
    if (batch > 1 && prompts.size() + hasPromptText != 1)
      throw tk::Error("--batch repeats one prompt; several --prompt options are a batch by themselves");
    if (hasPromptText && tokenizerPath.empty())
      throw tk::Error("--prompt-text needs --tokenizer");
    // Files written after the generation: their folders must exist, and be writable, before
    // it starts (not found out after minutes of generation).
    for (const std::string *path : {&savePath, &tracePath}) {
      std::filesystem::path folder = std::filesystem::path(*path).parent_path();
      if (path->empty())
        continue;
      if (std::error_code ignored; std::filesystem::is_directory(*path, ignored)) // (found only after the generation)
        throw tk::Error("cannot write '" + *path + "': it is a folder; name a file");
      if (!folder.empty() && !std::filesystem::is_directory(folder))
        throw tk::Error("cannot write '" + *path + "': the folder '" + folder.string() + "' does not exist");
      // (A temporary file made and removed: what writing it will take, root or not.)
      std::string probe = (folder.empty() ? std::string(".") : folder.string()) + "/.tk-llama-XXXXXX";
      int fd = ::mkstemp(probe.data());
      if (fd < 0)
        throw tk::Error("cannot write '" + *path + "': the folder '" + (folder.empty() ? "." : folder.string()) +
                        "' takes no new file (" + std::strerror(errno) + ")");
      ::close(fd);
      ::unlink(probe.c_str());
    }
    if (!sampling.kvCache && (profile || maxContext))
      throw tk::Error("--profile and --max-context need the KV cache (no --no-cache)");
    if (folder.empty() || (prompts.empty() && !hasPromptText))
      throw tk::Error(folder.empty() ? "no model folder" : "no --prompt");
  } catch (const tk::Error &e) {
    // The message alone, as compilers and git answer a bad option: the usage's 30 lines after it
    // pushed the one line that says what was wrong off a small terminal.
    std::cerr << "tk-llama: " << e.what() << "\n(tk-llama --help lists the options)\n";
    return 2;
  }
  // Said as a tk-llama user's remedy (the Context's error names the C++ API's), as tkc tune does.
  if (backend == tk::Backend::Cuda && tk::Context::defaultBackend() != tk::Backend::Cuda) {
    std::cerr << "tk-llama: error: no GPU here (no CUDA driver, or it found no device); --backend interp runs the "
                 "model on the CPU\n";
    return 1;
  }
  try {
    tk::Backend chosen = backend ? *backend : tk::Context::defaultBackend();
    sentencepiece::SentencePieceProcessor tokenizer;
    if (!tokenizerPath.empty()) {
      // Read here, a regular file of a bounded size (SentencePiece's own Load read /dev/zero
      // until memory ran out, and waited forever on a pipe); LLaMA's is 0.5 MB.
      std::string model = tk::readInput(tokenizerPath, uint64_t(256) << 20);
      tk::llm::checkSentencePieceCharsMaps(model, tokenizerPath);
      auto status = tokenizer.LoadFromSerializedProto(model);
      if (!status.ok())
        throw tk::Error(tokenizerPath + ": not a SentencePiece model (" + status.ToString() + ")");
    }
    if (hasPromptText) {
      std::vector<int> encoded;
      auto status = tokenizer.Encode(promptText, &encoded);
      if (!status.ok())
        throw tk::Error("--prompt-text: " + status.ToString());
      std::vector<int32_t> prompt;
      if (tokenizer.bos_id() >= 0)
        prompt.push_back(tokenizer.bos_id());
      prompt.insert(prompt.end(), encoded.begin(), encoded.end());
      prompts.push_back(prompt);
    }
    sampling.maxNewTokens = maxNew;
    while (int64_t(prompts.size()) < batch)
      prompts.push_back(prompts.front());
    size_t longest = 0;
    for (const std::vector<int32_t> &p : prompts)
      longest = std::max(longest, p.size());
    sampling.maxContext = maxContext;
    sampling.decodeSplits = int(decodeSplits);
    sampling.gemvChains = gemvChains;
    sampling.fp8Kernel = fp8Kernel;
    sampling.greedyOnDevice = !greedyOnHost;
    // One rank's generation (all of it without tensor parallelism): what rank 0 reports.
    struct Outcome {
      std::vector<tk::llm::Generation> results;
      tk::llm::GenerateStats stats;
      int64_t vocab = 0;
    };
    auto generateOn = [&](tk::Context &context, const tk::llm::LoadOptions &options) {
      tk::llm::LlamaModel model(context, folder, options);
      tk::llm::GenerateOptions settings = sampling;
      // A stream of its own: the decode steps replay one CUDA graph on it.
      tk::Stream stream = context.createStream();
      bool gpu = context.backend() == tk::Backend::Cuda;
      // The warm-up compiles and tunes every kernel the timed generation runs: the same cache size
      // (compiled graphs are kept per size). A request too long for the model is left to the timed
      // run, whose error names what the user asked for.
      int64_t needed = int64_t(longest) + maxNew - 1, positions = maxContext ? maxContext : needed;
      if (gpu && settings.kvCache && positions <= model.config().maxPositions && positions >= needed) {
        tk::llm::GenerateOptions warmup = settings;
        warmup.maxNewTokens = std::min<int64_t>(maxNew, 3);
        warmup.keepLogits = false;
        warmup.maxContext = positions;
        model.generate(prompts, warmup, stream);
      }
      settings.profile = profile;
      settings.keepLogits = !savePath.empty(); // (batch x new tokens x vocab floats otherwise kept for nothing)
      Outcome outcome;
      outcome.results = model.generate(prompts, settings, stream);
      outcome.stats = model.stats();
      outcome.vocab = model.config().vocabSize;
      return outcome;
    };
    Outcome outcome;
    auto onRank = [&](tk::Context &context, tk::graph::Communicator &communicator) {
      tk::llm::LoadOptions options = loadOptions;
      options.parallel = {communicator.rank(), communicator.size(), &communicator};
      Outcome mine = generateOn(context, options);
      if (communicator.rank() == 0)
        outcome = std::move(mine);
    };
    if (ranks == 1 && !nccl) {
      tk::Context context(chosen);
      outcome = generateOn(context, loadOptions);
    } else if (chosen == tk::Backend::Interpreter) {
      if (nccl)
        throw tk::Error("--nccl needs the CUDA backend (the interpreter's ranks join in-process)");
      tk::graph::InProcessGroup group(ranks);
      group.run([&](tk::graph::Communicator &communicator) {
        tk::Context context(tk::Backend::Interpreter);
        onRank(context, communicator);
      });
    } else {
      // One thread per GPU, each with its context and its NCCL communicator (which all ranks
      // create at once: ncclCommInitRank waits for the others). A rank that fails inside NCCL
      // leaves the others waiting there (the process then has to be stopped), so what can be
      // checked is checked here first: that GPU ranks-1 exists and that the world size divides
      // the model's heads and sizes.
      tk::Context lastGpu(tk::Backend::Cuda, ranks - 1);
      tk::llm::checkTensorParallel(tk::llm::LlamaConfig::load(folder + "/config.json"), {0, ranks, nullptr}, false);
      tk::graph::NcclCommunicator::UniqueId id = tk::graph::NcclCommunicator::uniqueId();
      std::vector<std::thread> threads;
      std::vector<std::exception_ptr> errors(static_cast<size_t>(ranks));
      for (int rank = 0; rank < ranks; ++rank)
        threads.emplace_back([&, rank] {
          try {
            tk::Context context(tk::Backend::Cuda, rank);
            tk::graph::NcclCommunicator communicator(context, rank, ranks, id);
            onRank(context, communicator);
          } catch (...) {
            errors[size_t(rank)] = std::current_exception();
          }
        });
      for (std::thread &t : threads)
        t.join();
      for (const std::exception_ptr &error : errors)
        if (error)
          std::rethrow_exception(error);
    }
    const std::vector<tk::llm::Generation> &results = outcome.results;
    int64_t vocab = outcome.vocab;
    // One line per sequence, in the order of the prompts.
    std::vector<float> chosenFrom;
    for (const tk::llm::Generation &result : results) {
      std::cout << "tokens: ";
      for (size_t i = 0; i < result.tokens.size(); ++i)
        std::cout << (i ? "," : "") << result.tokens[i];
      std::cout << "\n";
      if (!tokenizerPath.empty())
        std::cout << "text: " << detokenize(tokenizer, result.tokens) << "\n";
      chosenFrom.insert(chosenFrom.end(), result.logits.begin(), result.logits.end());
    }
    if (sampling.kvCache) {
      const tk::llm::GenerateStats &stats = outcome.stats;
      std::printf("prefill: %lld tokens in %.2f ms: %.0f tokens/s\n", (long long)stats.prefillTokens, stats.prefillMs,
                  stats.prefillTokens / (stats.prefillMs / 1e3));
      if (stats.decodeSteps && stats.decodeMs > 0)
        std::printf("decode: %lld steps of %lld sequences in %.2f ms: %.1f tokens/s (%.3f ms a step)\n",
                    (long long)stats.decodeSteps, (long long)stats.sequences, stats.decodeMs,
                    stats.decodeSteps * stats.sequences / (stats.decodeMs / 1e3), stats.decodeMs / stats.decodeSteps);
      if (profile) {
        printProfile("prefill profile", stats.prefillProfile);
        if (!stats.decodeProfile.empty())
          printProfile("decode step profile", stats.decodeProfile);
        if (!stats.decodeInGraph.kernels.empty())
          printInGraph(stats.decodeInGraph);
      }
      if (!tracePath.empty()) {
        std::vector<std::pair<std::string, std::vector<tk::graph::KernelProfile>>> runs{{"prefill", stats.prefillProfile}};
        if (!stats.decodeProfile.empty())
          runs.emplace_back("decode step", stats.decodeProfile);
        tk::writeOutput(tracePath, tk::graph::chromeTrace(runs));
      }
    }
    if (!savePath.empty()) {
      tk::HostBuffer host;
      host.name = "logits";
      host.elem = tk::Scalar::F32;
      host.shape = results.size() == 1 ? std::vector<int64_t>{maxNew, vocab}
                                       : std::vector<int64_t>{int64_t(results.size()), maxNew, vocab};
      host.bytes.resize(chosenFrom.size() * sizeof(float));
      std::memcpy(host.bytes.data(), chosenFrom.data(), host.bytes.size());
      tk::writeNpy(savePath, host);
    }
    return 0;
  } catch (const std::exception &e) {
    std::cerr << "tk-llama: " << e.what() << "\n";
    return 1;
  }
}
