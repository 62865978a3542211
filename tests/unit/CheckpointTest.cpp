// Hugging Face checkpoints (graph/include/tk/Graph/Checkpoint.h): safetensors files written
// here, good and broken in every way the loader checks, and LLaMA config.json files.
#include "TestUtil.h"
#include "tk/Graph/Checkpoint.h"
#include "tk/Runtime/Error.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

using tk::llm::Checkpoint;
using tk::llm::LlamaConfig;
using tk::test::safetensors;

namespace {

/// A fresh folder under the test temp directory, removed afterwards.
class Folder {
public:
  Folder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tk-checkpoint-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~Folder() { std::filesystem::remove_all(path_); }
  const std::string &path() const { return path_; }
  void write(const std::string &name, const std::string &bytes) const {
    std::ofstream(path_ + "/" + name, std::ios::binary) << bytes;
  }

private:
  std::string path_;
};

/// `piece` `times` times over.
std::string repeated(const std::string &piece, size_t times) {
  std::string out;
  out.reserve(piece.size() * times);
  for (size_t i = 0; i < times; ++i)
    out += piece;
  return out;
}

/// Two tensors: "a" bf16 [2, 3] (bytes 0..11) and "b" f32 [4] (bytes 12..27).
std::string goodFile() {
  std::string data(28, '\0');
  for (int i = 0; i < 28; ++i)
    data[i] = char(i);
  return safetensors(R"({"__metadata__": {"format": "pt"},
                         "a": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 12]},
                         "b": {"dtype": "F32", "shape": [4], "data_offsets": [12, 28]}})",
                     data);
}

/// The message of the tk::Error `f` throws ("" if none).
template <typename F> std::string errorOf(F f) {
  try {
    f();
  } catch (const tk::Error &e) {
    return e.what();
  }
  return "";
}

TEST(Checkpoint, ASafetensorsFileGivesItsTensorsInPlace) {
  Folder folder;
  folder.write("model.safetensors", goodFile());
  Checkpoint ckpt = Checkpoint::open(folder.path());
  EXPECT_EQ(ckpt.names(), (std::vector<std::string>{"a", "b"}));
  const tk::llm::CheckpointTensor &a = ckpt.get("a", {2, 3});
  EXPECT_EQ(a.dtype, tk::Scalar::BF16);
  EXPECT_EQ(a.bytes, 12u);
  EXPECT_EQ(static_cast<const uint8_t *>(a.data)[5], 5);
  const tk::llm::CheckpointTensor &b = ckpt.get("b");
  EXPECT_EQ(b.dtype, tk::Scalar::F32);
  EXPECT_EQ(static_cast<const uint8_t *>(b.data)[0], 12);
  EXPECT_TRUE(ckpt.has("a"));
  EXPECT_FALSE(ckpt.has("c"));
  EXPECT_NE(errorOf([&] { ckpt.get("c"); }).find("the checkpoint has no tensor 'c'"), std::string::npos);
  EXPECT_NE(errorOf([&] { ckpt.get("a", {3, 2}); }).find("tensor 'a' is [2, 3], the config needs [3, 2]"),
            std::string::npos);
}

TEST(Checkpoint, Fp8TensorsTakeOneBytePerElement) {
  Folder folder;
  folder.write("model.safetensors",
               safetensors(R"({"w": {"dtype": "F8_E4M3", "shape": [2, 3], "data_offsets": [0, 6]},
                               "s": {"dtype": "F32", "shape": [2, 1], "data_offsets": [8, 16]}})",
                           std::string(16, '\x38')));
  Checkpoint ckpt = Checkpoint::open(folder.path());
  const tk::llm::CheckpointTensor &w = ckpt.get("w", {2, 3});
  EXPECT_EQ(w.dtype, tk::Scalar::F8E4M3);
  EXPECT_EQ(w.bytes, 6u);
  Folder lying;
  lying.write("model.safetensors",
              safetensors(R"({"w": {"dtype": "F8_E4M3", "shape": [2, 3], "data_offsets": [0, 12]}})", std::string(12, '\0')));
  EXPECT_NE(errorOf([&] { Checkpoint::open(lying.path()); }).find("F8_E4M3[2, 3] does not take the 12 bytes"),
            std::string::npos);
}

TEST(Checkpoint, ShardsComeFromTheIndex) {
  Folder folder;
  folder.write("model-1.safetensors",
               safetensors(R"({"x": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}})", "abcd"));
  folder.write("model-2.safetensors",
               safetensors(R"({"y": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", "efgh"));
  folder.write("model.safetensors.index.json",
               R"({"metadata": {}, "weight_map": {"x": "model-1.safetensors", "y": "model-2.safetensors"}})");
  Checkpoint ckpt = Checkpoint::open(folder.path());
  EXPECT_EQ(ckpt.names(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(std::string(static_cast<const char *>(ckpt.get("y").data), 4), "efgh");
  EXPECT_EQ(ckpt.get("x").file, folder.path() + "/model-1.safetensors");
}

TEST(Checkpoint, AnIndexNamesOnlyFilesOfTheFolderThatHoldItsTensors) {
  Folder folder;
  folder.write("model-1.safetensors",
               safetensors(R"({"x": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}})", "abcd"));
  folder.write("model.safetensors.index.json", R"({"weight_map": {"x": "../model-1.safetensors"}})");
  EXPECT_NE(errorOf([&] { Checkpoint::open(folder.path()); }).find("not a file name in the folder"), std::string::npos);
  folder.write("model.safetensors.index.json", R"({"weight_map": {"x": "model-1.safetensors", "z": "model-1.safetensors"}})");
  EXPECT_NE(errorOf([&] { Checkpoint::open(folder.path()); })
                .find("tensor 'z' is mapped to model-1.safetensors, which does not hold it"),
            std::string::npos);
  folder.write("model.safetensors.index.json", R"({"weights": {}})");
  EXPECT_NE(errorOf([&] { Checkpoint::open(folder.path()); }).find("has no weight_map object"), std::string::npos);
  Folder empty;
  EXPECT_NE(errorOf([&] { Checkpoint::open(empty.path()); })
                .find("has neither model.safetensors nor model.safetensors.index.json"),
            std::string::npos);
}

TEST(Checkpoint, AnIndexNamesNoControlCharactersAndFewShards) {
  Folder folder;
  folder.write("shard.safetensors",
               safetensors(R"({"x": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}})", "abcd"));
  // A NUL ended the name the system opened: every spelling after it opened, mapped and read the
  // shard again (4000 names: 37 s and 1.9 GB).
  for (const char *name : {R"("shard.safetensors\u00001")", R"("shard\n.safetensors")", R"("shard.safetensors\u007f")"})
    EXPECT_NE(errorOf([&] {
                folder.write("model.safetensors.index.json", std::string(R"({"weight_map": {"x": )") + name + "}}");
                Checkpoint::open(folder.path());
              }).find("not a file name in the folder"),
              std::string::npos)
        << name;
  std::string many = R"({"weight_map": {)";
  for (int i = 0; i <= 4096; ++i)
    many += (i ? ", " : "") + std::string("\"t") + std::to_string(i) + "\": \"s" + std::to_string(i) + "\"";
  folder.write("model.safetensors.index.json", many + "}}");
  EXPECT_NE(errorOf([&] { Checkpoint::open(folder.path()); }).find("maps its tensors to 4097 files, more than 4096"),
            std::string::npos);
}

TEST(Checkpoint, AFileReachedByTwoNamesIsReadOnce) {
  Folder folder;
  folder.write("shard.safetensors", safetensors(R"({"x": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]},
                                                   "y": {"dtype": "F16", "shape": [1], "data_offsets": [4, 6]}})",
                                                "abcdef"));
  std::filesystem::create_symlink("shard.safetensors", folder.path() + "/link.safetensors");
  folder.write("model.safetensors.index.json", R"({"weight_map": {"x": "shard.safetensors", "y": "link.safetensors"}})");
  Checkpoint ckpt = Checkpoint::open(folder.path());
  EXPECT_EQ(std::string(static_cast<const char *>(ckpt.get("y").data), 2), "ef");
  EXPECT_EQ(ckpt.get("x").data, static_cast<const char *>(ckpt.get("y").data) - 4); // one mapping
  // Each name still holds only what the index maps to it.
  folder.write("model.safetensors.index.json", R"({"weight_map": {"x": "shard.safetensors", "z": "link.safetensors"}})");
  EXPECT_NE(errorOf([&] { Checkpoint::open(folder.path()); })
                .find("tensor 'z' is mapped to link.safetensors, which does not hold it"),
            std::string::npos);
}

TEST(Checkpoint, BrokenFilesAreErrorsThatNameTheFileAndTensor) {
  std::string good = goodFile();
  std::string hugeLength(8, '\xff');
  struct Case {
    const char *what;
    std::string bytes, message;
  } cases[] = {
      {"shorter than a header length", "abcd", "truncated: 4 bytes"},
      {"a header longer than the file", good.substr(0, 40), "truncated: the header says"},
      {"a header length past the cap", hugeLength + "{}", "more than safetensors allows"},
      {"a header that is not JSON", safetensors("{\"a\": ", ""), "header: not valid JSON"},
      {"a header that is not an object", safetensors("[1, 2]", ""), "header: not a JSON object"},
      {"a tensor without offsets", safetensors(R"({"a": {"dtype": "F32", "shape": [1]}})", "abcd"),
       "tensor 'a': needs dtype, shape and data_offsets"},
      {"offsets past the data", safetensors(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", "abcd"),
       "tensor 'a': data_offsets [0, 8] lie outside the 4 bytes of data"},
      {"offsets backwards", safetensors(R"({"a": {"dtype": "F32", "shape": [0], "data_offsets": [4, 0]}})", "abcd"),
       "tensor 'a': data_offsets [4, 0] end before they begin"},
      {"a size that lies", safetensors(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}})", "abcd"),
       "tensor 'a': F32[2] does not take the 4 bytes its data_offsets give"},
      {"a size that overflows", safetensors(R"({"a": {"dtype": "F32", "shape": [1099511627776, 1099511627776], "data_offsets": [0, 4]}})", "abcd"),
       "does not take the 4 bytes"},
      // 2^160 elements: a product that wraps to 0 in 64 bits would match empty offsets.
      {"a size that wraps", safetensors(R"({"a": {"dtype": "F32", "shape": [1099511627776, 1099511627776, 1099511627776, 1099511627776], "data_offsets": [0, 0]}})", ""),
       "does not take the 0 bytes"},
      // Nested 200000 deep: refused before the parser builds it (the parser's memory grew by
      // about 78 bytes a byte of '['), and an error message that printed it would overflow the stack.
      {"a dtype nested deeply", safetensors(R"({"a": {"dtype": )" + std::string(200000, '[') + std::string(200000, ']') +
                                                R"(, "shape": [1], "data_offsets": [0, 4]}})", "abcd"),
       "header: not valid JSON: nested more than 64 levels deep at byte 78"},
      // 5 Mi empty objects (15 MiB): refused before the parser builds them (nlohmann's document
      // took 3.9 GB for 100 MiB of them).
      {"a header of many values", safetensors("{\"__metadata__\": [" + repeated("{},", 5 << 20) + "{}]}", ""),
       "header: more than 4194304 JSON values (at byte"},
      {"a dtype nested a little", safetensors(R"({"a": {"dtype": [[["F32"]]], "shape": [1], "data_offsets": [0, 4]}})", "abcd"),
       "tensor 'a': dtype [an array] is not supported"},
      {"a negative size", safetensors(R"({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", "abcd"),
       "tensor 'a': each size must be an integer from 0 to"},
      {"an unsupported dtype", safetensors(R"({"a": {"dtype": "I8", "shape": [4], "data_offsets": [0, 4]}})", "abcd"),
       "tensor 'a': dtype I8 is not supported (BF16, F16, F32, F8_E4M3)"},
      // (A megabyte of dtype made a megabyte of message.)
      {"a long dtype", safetensors(R"({"a": {"dtype": ")" + std::string(100000, 'Q') + R"(", "shape": [4], "data_offsets": [0, 4]}})", "abcd"),
       "tensor 'a': dtype \"" + std::string(64, 'Q') + "...\" is not supported"},
      // (Cut inside a character, the message was JSON's "invalid UTF-8 byte" alone.)
      {"a long dtype cut inside a character",
       safetensors(R"({"a": {"dtype": ")" + std::string(63, 'Q') + "\xc3\xa9" + std::string(100, 'Q') +
                       R"(", "shape": [4], "data_offsets": [0, 4]}})", "abcd"),
       "tensor 'a': dtype \"" + std::string(63, 'Q') + "...\" is not supported"},
      {"overlapping tensors",
       safetensors(R"({"a": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]},
                       "b": {"dtype": "F16", "shape": [2], "data_offsets": [2, 6]}})", "abcdef"),
       "tensors 'a' and 'b' overlap"},
  };
  for (const Case &c : cases) {
    Folder folder;
    folder.write("model.safetensors", c.bytes);
    std::string message = errorOf([&] { Checkpoint::open(folder.path()); });
    EXPECT_NE(message.find(c.message), std::string::npos) << c.what << ": " << message;
    EXPECT_NE(message.find(folder.path() + "/model.safetensors"), std::string::npos) << c.what << ": " << message;
  }
}

TEST(Checkpoint, AnEmptyTensorSharesNoBytes) {
  // Safetensors lets an empty tensor's offsets [x, x] point anywhere, a tensor's first byte
  // included: no overlap (before, it was one when the sort put it after that tensor).
  for (const char *name : {"a_empty", "zz_empty"}) {
    Folder folder;
    folder.write("model.safetensors",
                 safetensors(std::string(R"({"b": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}, ")") + name +
                                 R"(": {"dtype": "F16", "shape": [0], "data_offsets": [0, 0]}})",
                             "abcd"));
    EXPECT_EQ(errorOf([&] { Checkpoint::open(folder.path()); }), "") << name;
  }
}

TEST(LlamaConfig, ReadsTheSizesAndTheirDefaults) {
  LlamaConfig c = LlamaConfig::parse(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
      "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32, "vocab_size": 32000,
      "rms_norm_eps": 1e-05, "torch_dtype": "bfloat16"})",
                                     "config.json");
  EXPECT_EQ(c.hiddenSize, 4096);
  EXPECT_EQ(c.numKvHeads, 32); // as many as the query heads
  EXPECT_EQ(c.headDim(), 128);
  EXPECT_DOUBLE_EQ(c.rmsNormEps, 1e-5);
  EXPECT_DOUBLE_EQ(c.ropeTheta, 10000.0);
  EXPECT_EQ(c.maxPositions, 2048);
  EXPECT_FALSE(c.tieWordEmbeddings);
  LlamaConfig gqa = LlamaConfig::parse(R"({"hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
      "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 300, "rope_theta": 500000.0,
      "tie_word_embeddings": true, "max_position_embeddings": 8192})",
                                       "config.json");
  EXPECT_EQ(gqa.numKvHeads, 2);
  EXPECT_TRUE(gqa.tieWordEmbeddings);
  EXPECT_DOUBLE_EQ(gqa.ropeTheta, 500000.0);
  // transformers 5 writes rope_parameters (the default type) and says the rest explicitly.
  LlamaConfig v5 = LlamaConfig::parse(R"({"hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
      "num_hidden_layers": 2, "vocab_size": 300, "head_dim": 16.0, "hidden_act": "silu", "attention_bias": false,
      "mlp_bias": false, "rope_scaling": null, "rope_parameters": {"rope_theta": 250000.0, "rope_type": "default"}})",
                                      "config.json");
  EXPECT_DOUBLE_EQ(v5.ropeTheta, 250000.0);
}

TEST(LlamaConfig, HostileFilesAreErrorsNotCrashesOrHangs) {
  std::string base = R"("hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4, "num_hidden_layers": 2, )"
                     R"("vocab_size": 300)";
  std::string deep = std::string(200000, '[') + std::string(200000, ']');
  for (const char *key : {"hidden_act", "architectures", "attention_bias"}) {
    std::string message = errorOf([&] { LlamaConfig::parse("{" + base + ", \"" + key + "\": " + deep + "}", "config.json"); });
    EXPECT_NE(message.find("nested more than 64 levels deep"), std::string::npos) << key << ": " << message.substr(0, 200);
    message = errorOf([&] { LlamaConfig::parse("{" + base + ", \"" + key + "\": [[[1]]]}", "config.json"); });
    EXPECT_NE(message.find("an array"), std::string::npos) << key << ": " << message.substr(0, 200);
  }
  // A FIFO (open() would wait for a writer) and a file past the size cap (/dev/zero-like).
  Folder folder;
  std::string fifo = folder.path() + "/config.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(errorOf([&] { LlamaConfig::load(fifo); }).find("config.json: not a regular file"), std::string::npos);
  Folder big;
  big.write("config.json", "{" + base + std::string(65u << 20, ' ') + "}");
  EXPECT_NE(errorOf([&] { LlamaConfig::load(big.path() + "/config.json"); })
                .find("more than the 64 MiB a config or index file may have"),
            std::string::npos);
  Folder shard;
  std::string pipe = shard.path() + "/model.safetensors";
  ASSERT_EQ(mkfifo(pipe.c_str(), 0600), 0);
  EXPECT_NE(errorOf([&] { Checkpoint::open(shard.path()); }).find("model.safetensors: not a regular file"),
            std::string::npos);
}

TEST(LlamaConfig, BadConfigsAreErrorsThatNameTheKey) {
  std::string base = R"("hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4, "num_hidden_layers": 2)";
  struct Case {
    std::string text, message;
  } cases[] = {
      {"{", "config.json: not valid JSON"},
      {"{" + base + "}", "config.json: has no vocab_size"},
      {"{" + base + R"(, "vocab_size": "300"})", "vocab_size must be an integer from 0 to"},
      {"{" + base + R"(, "vocab_size": 0})", "vocab_size must be positive"},
      {"{" + base + R"(, "vocab_size": 300, "num_key_value_heads": 3})",
       "num_key_value_heads (3) does not divide num_attention_heads (4)"},
      {"{" + base + R"(, "vocab_size": 300, "rms_norm_eps": -1})", "rms_norm_eps must be a positive number"},
      {"{" + base + R"(, "vocab_size": 300, "architectures": ["GPT2LMHeadModel"]})",
       R"(architectures ["GPT2LMHeadModel"] does not name LlamaForCausalLM)"},
      // (a name alone was taken for a LLaMA; the list was shown as "an array")
      {"{" + base + R"(, "vocab_size": 300, "architectures": "GPT2LMHeadModel"})",
       R"(architectures "GPT2LMHeadModel" must be a list of model names)"},
      {"{" + base + R"(, "vocab_size": 300, "architectures": [1, [2], "a", "b", "c"]})",
       R"(architectures [1, an array, "a", "b", ...] does not name LlamaForCausalLM)"},
      {"{" + base + R"(, "vocab_size": 300, "tie_word_embeddings": 1})", "tie_word_embeddings must be true or false"},
      {R"({"hidden_size": 65, "intermediate_size": 128, "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 3})",
       "num_attention_heads (4) does not divide hidden_size (65)"},
      // Models tk's LLaMA would compute differently: errors, not silently other logits.
      {"{" + base + R"(, "vocab_size": 300, "rope_scaling": {"factor": 8.0, "rope_type": "llama3"}})",
       R"(rope_scaling.rope_type "llama3" is not supported (tk's LLaMA implements the default RoPE only))"},
      {"{" + base + R"(, "vocab_size": 300, "rope_parameters": {"rope_theta": 1e4, "rope_type": "yarn"}})",
       R"(rope_parameters.rope_type "yarn" is not supported)"},
      {"{" + base + R"(, "vocab_size": 300, "rope_scaling": {"type": "linear", "factor": 2.0}})",
       R"(rope_scaling.type "linear" is not supported)"},
      {"{" + base + R"(, "vocab_size": 300, "rope_scaling": 2})", "rope_scaling must be an object or null"},
      {"{" + base + R"(, "vocab_size": 300, "rope_scaling": {"factor": 8.0}})",
       "rope_scaling names no rope_type"},
      {"{" + base + R"(, "vocab_size": 300, "rope_parameters": {"rope_theta": -1}})",
       "rope_parameters.rope_theta must be a positive number"},
      {"{" + base + R"(, "vocab_size": 300, "attention_bias": true})", "attention_bias true is not supported"},
      {"{" + base + R"(, "vocab_size": 300, "mlp_bias": true})", "mlp_bias true is not supported"},
      {"{" + base + R"(, "vocab_size": 300, "hidden_act": "gelu"})", R"(hidden_act "gelu" is not supported)"},
      {"{" + base + R"(, "vocab_size": 300, "head_dim": 32})", "head_dim 32 is not hidden_size / num_attention_heads (16)"},
  };
  for (const Case &c : cases) {
    std::string message = errorOf([&] { LlamaConfig::parse(c.text, "config.json"); });
    EXPECT_NE(message.find(c.message), std::string::npos) << c.text << ": " << message;
  }
  EXPECT_NE(errorOf([] { LlamaConfig::load("/nonexistent/config.json"); }).find("cannot open it"), std::string::npos);
}

} // namespace
