// The fused graph as Graphviz DOT: one box per kernel around the graph nodes it computes,
// inputs and weights as ellipses, outputs as double octagons.
#include "GraphImpl.h"

#include <sstream>

namespace tk::graph {

std::string planDot(const Graph::Impl &graph, const Plan &plan) {
  std::ostringstream dot;
  dot << "digraph fused {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n";
  std::map<int, int> stepOf;
  for (size_t s = 0; s < plan.steps.size(); ++s)
    for (int n : plan.steps[s].nodes)
      stepOf.emplace(n, int(s));
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node &node = graph.nodes[n];
    if (node.op == Op::Input || node.op == Op::Weight)
      dot << "  n" << n << " [shape=ellipse, label=\"" << node.name << "\\n" << node.out.str() << "\""
          << (node.op == Op::Weight ? ", style=dashed" : "") << "];\n";
  }
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    if (!stepOf.count(int(n)) && graph.nodes[n].op != Op::Input && graph.nodes[n].op != Op::Weight)
      dot << "  n" << n << " [shape=box, style=dotted, label=\"" << opName(graph.nodes[n].op)
          << (graph.nodes[n].op == Op::RmsNorm ? " (in its matmuls)" : " (a view)") << "\\n"
          << graph.nodes[n].out.str() << "\"];\n";
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const Step &step = plan.steps[s];
    dot << "  subgraph cluster_" << s << " {\n    label=\"kernel " << s + 1 << ": " << step.describe(graph)
        << "\";\n    style=rounded; color=\"#3060a0\";\n";
    for (int n : step.nodes)
      if (stepOf[n] == int(s))
        dot << "    n" << n << " [shape=box, label=\"" << opName(graph.nodes[n].op) << "\\n" << graph.nodes[n].out.str()
            << "\"];\n";
    dot << "  }\n";
  }
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    for (int in : graph.nodes[n].inputs)
      dot << "  n" << in << " -> n" << n << ";\n";
  for (const auto &[id, name] : graph.outputs)
    dot << "  out_" << name << " [shape=doubleoctagon, label=\"" << name << "\"];\n  n" << id << " -> out_" << name
        << ";\n";
  dot << "}\n";
  return dot.str();
}

} // namespace tk::graph
