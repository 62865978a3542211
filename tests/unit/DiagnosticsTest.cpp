// The diagnostics engine: format, carets under ranges, notes, and the error cap.
#include "tk/Frontend/Diagnostics.h"

#include <gtest/gtest.h>
#include <sstream>

namespace tk {
namespace {

TEST(Diagnostics, FormatsLocationSourceLineAndCaret) {
  SourceManager sources;
  uint32_t id = sources.addFile("dir/file.tk", "kernel k() {\n    let x = foo + 1;\n}\n");
  DiagEngine diags(sources);
  Diagnostic &d = diags.error({{id, 2, 13}, {id, 2, 16}}, "unknown name 'foo'");
  DiagEngine::note(d, {{id, 1, 8}, {id, 1, 9}}, "in kernel 'k'");
  EXPECT_EQ(diags.format(d),
            "dir/file.tk:2:13: error: unknown name 'foo'\n"
            "    let x = foo + 1;\n"
            "            ^~~\n"
            "dir/file.tk:1:8: note: in kernel 'k'\n"
            "kernel k() {\n"
            "       ^\n");
  EXPECT_EQ(diags.errorCount(), 1u);
}

TEST(Diagnostics, TabsKeepTheCaretAligned) {
  SourceManager sources;
  uint32_t id = sources.addFile("t.tk", "\tlet x = y;");
  DiagEngine diags(sources);
  Diagnostic &d = diags.error({{id, 1, 10}, {id, 1, 11}}, "unknown name 'y'");
  EXPECT_EQ(diags.format(d), "t.tk:1:10: error: unknown name 'y'\n\tlet x = y;\n\t        ^\n");
}

TEST(Diagnostics, WarningsDoNotCountAsErrors) {
  SourceManager sources;
  uint32_t id = sources.addFile("t.tk", "x");
  DiagEngine diags(sources);
  diags.warning({{id, 1, 1}, {id, 1, 2}}, "careful");
  EXPECT_FALSE(diags.hasErrors());
  std::ostringstream os;
  diags.print(os);
  EXPECT_EQ(os.str(), "t.tk:1:1: warning: careful\nx\n^\n");
}

TEST(Diagnostics, ErrorsBeyondTheCapAreCountedNotListed) {
  SourceManager sources;
  uint32_t id = sources.addFile("t.tk", "x");
  DiagEngine diags(sources);
  for (int i = 0; i < 60; ++i)
    diags.error({{id, 1, 1}, {id, 1, 1}}, "e" + std::to_string(i));
  EXPECT_EQ(diags.errorCount(), 60u);
  EXPECT_EQ(diags.diagnostics().size(), DiagEngine::kMaxErrors);
  std::ostringstream os;
  diags.print(os);
  EXPECT_NE(os.str().find("error: too many errors (60), stopped listing them after 50"), std::string::npos);
}

TEST(Diagnostics, AReportRepeatedAtTheSamePlaceIsKeptOnce) {
  // (Each @autotune config instantiates a kernel: one bad num_warps was reported once a config.)
  SourceManager sources;
  uint32_t id = sources.addFile("t.tk", "x y");
  DiagEngine diags(sources);
  diags.error({{id, 1, 1}, {id, 1, 2}}, "bad");
  DiagEngine::note(diags.error({{id, 1, 1}, {id, 1, 2}}, "bad"), {}, "a note on the repeat goes nowhere");
  diags.error({{id, 1, 3}, {id, 1, 4}}, "bad");
  diags.warning({{id, 1, 1}, {id, 1, 2}}, "bad");
  diags.warning({{id, 1, 1}, {id, 1, 2}}, "bad");
  EXPECT_EQ(diags.errorCount(), 2u);
  ASSERT_EQ(diags.diagnostics().size(), 3u);
  EXPECT_TRUE(diags.diagnostics()[0].notes.empty());
  // takeSince removes the reports after an index, and their errors from the count.
  std::vector<Diagnostic> taken = diags.takeSince(1);
  EXPECT_EQ(taken.size(), 2u);
  EXPECT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics().size(), 1u);
  // What was taken is no repeat any more: reported again, it is kept.
  diags.error({{id, 1, 3}, {id, 1, 4}}, "bad");
  EXPECT_EQ(diags.errorCount(), 2u);
  EXPECT_EQ(diags.diagnostics().size(), 2u);
}

TEST(Diagnostics, NoLocationPrintsMessageOnly) {
  SourceManager sources;
  DiagEngine diags(sources);
  Diagnostic &d = diags.error({}, "no input");
  EXPECT_EQ(diags.format(d), "error: no input\n");
}

} // namespace
} // namespace tk
