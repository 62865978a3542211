// The CUDA driver compiler's warnings that loading a kernel reports (runtime/lib/Aot.cpp): the
// log lines that say "warning", trimmed and each once; the rest of the log is not repeated.
#include "DriverLog.h"

#include <gtest/gtest.h>

#include <cstring>

namespace {

TEST(DriverLog, WarningsAreTheLinesThatSayWarningEachOnce) {
  const char *log = "ptxas info    : 0 bytes gmem\n"
                    "  ptxas warning : Potential Performance Loss: wgmma.mma_async instructions are serialized due "
                    "to insufficient register resources for the wgmma pipeline in the function 'attention'  \r\n"
                    "ptxas info    : Used 168 registers\n"
                    "ptxas warning : Potential Performance Loss: wgmma.mma_async instructions are serialized due "
                    "to insufficient register resources for the wgmma pipeline in the function 'attention'\n"
                    "PTXAS WARNING : Stack size for entry function 'f' cannot be statically determined\n"
                    "ptxas info    : Compiling entry function 'no_warning_kernel' for 'sm_90a'\n"
                    "\n";
  std::vector<std::string> warnings = tk::driverCompilerWarnings(log);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "ptxas warning : Potential Performance Loss: wgmma.mma_async instructions are serialized due "
                         "to insufficient register resources for the wgmma pipeline in the function 'attention'");
  EXPECT_EQ(warnings[1], "PTXAS WARNING : Stack size for entry function 'f' cannot be statically determined");
}

TEST(DriverLog, ALogThatFillsItsBufferIsReadWithinIt) {
  // The driver may fill the whole buffer with no NUL after it: the text stops at its end.
  char buffer[16 + 8];
  std::memset(buffer, 'x', sizeof(buffer));
  std::memcpy(buffer, "ptxas warning : ", 16);
  EXPECT_EQ(tk::driverLogText(buffer, 16).size(), 16u);
  EXPECT_EQ(tk::driverLogText(buffer, 16), "ptxas warning : ");
  buffer[5] = '\0';
  EXPECT_EQ(tk::driverLogText(buffer, 16), "ptxas");
}

TEST(DriverLog, AQuietCompileHasNoWarnings) {
  EXPECT_TRUE(tk::driverCompilerWarnings("").empty());
  EXPECT_TRUE(tk::driverCompilerWarnings("ptxas info : Used 40 registers").empty());
  EXPECT_TRUE(tk::driverCompilerWarnings("\n\n   \n").empty());
}

} // namespace
