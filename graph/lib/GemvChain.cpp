// The persistent kernel of a GemvChain step (GraphOptions::gemvChains): fp8_gemv_row's blocks of
// every GEMV of the chain, taken in order from a work queue (std/work_queue.tk), each GEMV's
// epilogue as its own fp8_gemv_row launch would have it. Generated because a chain has as many
// GEMVs, each with its own operands and epilogue, as the plan puts in it.
#include "GraphImpl.h"

#include <cstdio>
#include <functional>

namespace tk::graph {

namespace {

std::string literal(bool b) { return b ? "true" : "false"; }

std::string literal(double v) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.9e", v); // (a float literal, exponent and all)
  return text;
}

/// The chain's tuning space: fp8_gemv_row's fastest blocks (BN 8 or 16 rows of K, k-steps of
/// 1024) with at most PER_SM programs a multiprocessor (64: as many as fit; the launch never
/// starts more than fit at once), and PREFETCH_STEPS k-steps of each block's weights sent to L2
/// one item ahead.
const char *kConfigs = R"(    { BN: 8,  BK: 1024, PER_SM: 64, PREFETCH_STEPS: 1, num_warps: 4 },
    { BN: 8,  BK: 1024, PER_SM: 64, PREFETCH_STEPS: 4, num_warps: 4 },
    { BN: 8,  BK: 1024, PER_SM: 64, PREFETCH_STEPS: 0, num_warps: 4 },
    { BN: 8,  BK: 1024, PER_SM: 4,  PREFETCH_STEPS: 1, num_warps: 4 },
    { BN: 16, BK: 1024, PER_SM: 64, PREFETCH_STEPS: 1, num_warps: 8 },
    { BN: 16, BK: 1024, PER_SM: 64, PREFETCH_STEPS: 1, num_warps: 4 },
    { BN: 4,  BK: 1024, PER_SM: 64, PREFETCH_STEPS: 1, num_warps: 4 },
    { BN: 8,  BK: 512,  PER_SM: 64, PREFETCH_STEPS: 2, num_warps: 4 },
)";

} // namespace

std::string gemvChainSource(const Graph::Impl &graph, const Plan &plan, const Step &step, Scalar dtype,
                            const std::string &name) {
  const std::string T = scalarName(dtype);
  size_t ops = step.chain.size();
  auto n = [](size_t j) { return std::to_string(j); };
  auto first = [&](size_t j) { return j ? "end" + n(j - 1) : std::string("0"); }; // op j's first item
  std::string last = "end" + n(ops - 1);
  /// `if ITEM < end0 { body(0) } else if ...` over ops from..ops-1 (ITEM at least op from's
  /// first item), the last one `else` when `bounded` (ITEM is below the last end) and
  /// `else if ITEM < endN` when not.
  auto branches = [&](const std::string &item, size_t from, bool bounded, const std::string &indent,
                      const std::function<std::string(size_t)> &body) {
    std::string text;
    for (size_t j = from; j < ops; ++j) {
      bool otherwise = bounded && j + 1 == ops && j > from;
      text += (j == from ? indent + "if " : otherwise ? " else " : " else if ") +
              (otherwise ? "" : item + " < end" + n(j) + " ") + "{\n" + body(j) + indent + "}";
    }
    return text + "\n";
  };
  auto prefetch = [&](const std::string &block, const std::string &indent) {
    return [&, block, indent](size_t j) {
      return indent + "    fp8_gemv_row_prefetch(b" + n(j) + ", " + block + (j ? " - " + first(j) : "") + ", N" + n(j) +
             ", K" + n(j) + ", ldb" + n(j) + ", PREFETCH_STEPS * BK, BN);\n";
    };
  };
  std::string params;
  for (size_t j = 0; j < ops; ++j) {
    const Step &part = step.chain[j];
    std::string i = n(j), B = scalarName(plan.info(graph, part.in[1].tensor).dtype);
    // fp8_gemv_row's parameters a to norm_out, suffixed with the GEMV's index (Executor.cpp
    // passes them in this order).
    params += "            a" + i + ": ptr<" + T + ">, b" + i + ": ptr<" + B + ">, c" + i + ": ptr<" + T +
              ">, scale_b" + i + ": ptr<f32>, bias" + i + ": ptr<" + T + ">, residual" + i + ": ptr<" + T +
              ">, mul" + i + ": ptr<" + T + ">,\n            M" + i + ": i32, N" + i + ": i32, K" + i + ": i32, lda" +
              i + ": i32, ldb" + i + ": i32, ldc" + i + ": i32, ldr" + i + ": i32, ldm" + i + ": i32, norm_x" + i +
              ": ptr<" + T + ">, norm_w" + i + ": ptr<" + T + ">, norm_out" + i + ": ptr<" + T + ">,\n";
  }
  auto compute = [&](size_t j) {
    const Step &part = step.chain[j];
    std::string i = n(j), text = "            let block = item - " + first(j) + ";\n";
    if (j)
      text += "            wait_for_op(queue, " + n(j - 1) + ", " + first(j) + (j > 1 ? " - end" + n(j - 2) : "") + ");\n";
    return text + "            let out = fp8_gemv_row_sums(a" + i + ", b" + i + ", scale_b" + i + ", bias" + i +
           ", residual" + i + ", mul" + i + ", norm_x" + i + ", block, 0, M" + i + ", N" + i + ", K" + i + ", lda" + i +
           ", ldb" + i + ", ldr" + i + ", ldm" + i + ", BN, BK, 1, " + literal(part.bias) + ", " + n(size_t(part.act)) +
           ", " + literal(part.gate) + ", " + literal(part.residual) + ", " + literal(part.eps > 0 ? part.eps : 0.0) +
           ");\n            fp8_gemv_row_store(c" + i + ", norm_w" + i + ", norm_out" + i + ", out as " + T +
           ", block, 0, M" + i + ", N" + i + ", ldc" + i + ", BN, " + literal(part.normOutWeight >= 0) +
           ");\n            finish_item(queue, " + i + ");\n";
  };
  std::string ends;
  for (size_t j = 0; j < ops; ++j)
    ends += "    let end" + n(j) + " = " + (j ? "end" + n(j - 1) + " + " : "") + "cdiv(N" + n(j) + ", BN);\n";
  int64_t slots = 1;
  while (slots < int64_t(ops) + 1)
    slots *= 2;
  return "// " + step.describe(graph) +
         "\n// (generated by the graph layer: graph/lib/GemvChain.cpp)\nimport \"std/fp8_matmul.tk\";\n"
         "import \"std/work_queue.tk\";\n\n@autotune(key = [N0, K0], configs = [\n" +
         kConfigs + "])\nkernel " + name + "(queue: ptr<i32>,\n" + params +
         "            const BN: i32, const BK: i32, const PER_SM: i32, const PREFETCH_STEPS: i32) {\n" + ends +
         "    // The first GEMV's blocks start coming into L2 while the kernel ahead still runs (a\n"
         "    // program's first item is most likely the block of its own index).\n"
         "    if program_id(0) < end0 {\n        fp8_gemv_row_prefetch(b0, program_id(0), N0, K0, ldb0, PREFETCH_STEPS * BK, BN);\n"
         "    }\n"
         "    gdc_wait(); // everything below may read what earlier kernels wrote\n"
         "    gdc_launch_dependents();\n"
         "    // Each program holds its next item too, whose weights come into L2 while it works on this one.\n"
         "    var item = take_item(queue);\n    var next = take_item(queue);\n" +
         (ops > 1 ? "    if item >= end0 {\n" + branches("item", 1, false, "        ", prefetch("item", "        ")) + "    }\n"
                  : "") +
         "    while item < " + last + " {\n" +
         branches("next", 0, false, "        ", prefetch("next", "        ")) +
         branches("item", 0, true, "        ", compute) + "        item = next;\n        next = take_item(queue);\n"
         "    }\n    reset_queue(queue, next, " + last + ", " + n(ops - 1) + ", " + last +
         (ops > 1 ? " - end" + n(ops - 2) : "") + ", 2, " + std::to_string(slots) + ");\n}\n";
}

} // namespace tk::graph
