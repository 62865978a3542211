#include "tk/Runtime/Files.h"

#include "tk/Driver/Compiler.h"
#include "tk/Frontend/FileIO.h"
#include "tk/Runtime/Error.h"

std::string tk::stdlibDir() { return Compiler::defaultStdlibDir(); }

void tk::writeOutput(const std::string &path, const std::string &bytes) {
  std::string error;
  if (!writeAtomically(path, bytes, error))
    throw Error(error);
}

std::string tk::readInput(const std::string &path, uint64_t maxBytes) {
  std::string text, error;
  if (!readRegularFile(path, maxBytes, text, error))
    throw Error(error);
  return text;
}
