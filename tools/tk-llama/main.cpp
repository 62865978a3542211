// tk-llama: greedy generation from a Hugging Face LLaMA folder on the graph layer.
//   tk-llama MODEL_DIR --prompt 3,17,42 [--max-new-tokens N] [--backend interp|cuda]
//            [--save-logits OUT.npy]
// Prints `tokens: 11,22,33` (the generated ids). --save-logits writes float32
// [new tokens, vocab]: the logits each generated token was chosen from. This version runs the
// whole prefix again for every token (no KV cache yet).
#include "tk/Graph/Llama.h"
#include "tk/Runtime/Error.h"
#include "tk/Runtime/Npy.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <cstring>
#include <iostream>
#include <sstream>

namespace {

constexpr const char *kUsage =
    "usage: tk-llama MODEL_DIR --prompt ID,ID,... [--max-new-tokens N] [--backend interp|cuda]\n"
    "                [--save-logits OUT.npy]\n"
    "  MODEL_DIR         a Hugging Face folder: config.json (LlamaForCausalLM) and model.safetensors\n"
    "                    or its shards with model.safetensors.index.json\n"
    "  --prompt          the prompt's token ids, comma-separated\n"
    "  --max-new-tokens  how many tokens to generate, greedily (default 16, at most 65536)\n"
    "  --backend         cuda (default when a GPU is present) or interp\n"
    "  --save-logits     write the logits each new token was chosen from: float32 [N, vocab]\n";

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
  return ids;
}

} // namespace

int main(int argc, char **argv) {
  std::string folder, savePath;
  std::vector<int32_t> prompt;
  long maxNew = 16;
  std::optional<tk::Backend> backend;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc)
          throw tk::Error(a + " needs a value");
        return argv[++i];
      };
      if (a == "--help" || a == "-h") {
        std::cout << kUsage;
        return 0;
      } else if (a == "--prompt") {
        prompt = parseIds(value());
      } else if (a == "--max-new-tokens") {
        std::string v = value();
        char *end = nullptr;
        maxNew = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || maxNew < 1 || maxNew > 65536)
          throw tk::Error("--max-new-tokens takes 1 to 65536, not '" + v + "'");
      } else if (a == "--backend") {
        std::string b = value();
        if (b != "interp" && b != "cuda")
          throw tk::Error("--backend is interp or cuda, not '" + b + "'");
        backend = b == "interp" ? tk::Backend::Interpreter : tk::Backend::Cuda;
      } else if (a == "--save-logits") {
        savePath = value();
      } else if (!a.empty() && a[0] == '-') {
        throw tk::Error("unknown option '" + a + "'");
      } else if (folder.empty()) {
        folder = a;
      } else {
        throw tk::Error("one model folder, not '" + folder + "' and '" + a + "'");
      }
    }
    if (folder.empty() || prompt.empty())
      throw tk::Error(folder.empty() ? "no model folder" : "no --prompt");
  } catch (const tk::Error &e) {
    std::cerr << "tk-llama: " << e.what() << "\n" << kUsage;
    return 2;
  }
  try {
    tk::Context context(backend ? *backend : tk::Context::defaultBackend());
    tk::llm::LlamaModel model(context, folder);
    int64_t vocab = model.config().vocabSize;
    std::vector<int32_t> ids = prompt, generated;
    std::vector<float> chosenFrom;
    for (long step = 0; step < maxNew; ++step) {
      std::vector<float> logits = model.forward(ids, 1);
      const float *last = logits.data() + (ids.size() - 1) * size_t(vocab);
      int32_t next = int32_t(std::max_element(last, last + vocab) - last);
      chosenFrom.insert(chosenFrom.end(), last, last + vocab);
      generated.push_back(next);
      ids.push_back(next);
    }
    std::cout << "tokens: ";
    for (size_t i = 0; i < generated.size(); ++i)
      std::cout << (i ? "," : "") << generated[i];
    std::cout << "\n";
    if (!savePath.empty()) {
      tk::HostBuffer host;
      host.name = "logits";
      host.elem = tk::Scalar::F32;
      host.shape = {int64_t(generated.size()), vocab};
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
