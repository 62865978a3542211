// tk-opt: runs tk and upstream passes one at a time over .mlir files (lit tests use it).
#include "tk/Driver/Compiler.h"

int main(int argc, char **argv) { return tk::optMain(argc, argv); }
