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
