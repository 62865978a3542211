# Finds LLVM/MLIR 22 and ANTLR4 from Debian's packages and prepares a static link of LLVM/MLIR.
#
# Debian's MLIR targets name the `LLVM` dylib, which needs libz3/libicu/libxml2 at run time: the
# GPU machine has none of those. We swap that entry for the static component libraries, so the
# one shared library we build (libtkc.so) carries LLVM/MLIR inside and depends only on libc,
# libstdc++, libz and libzstd.

find_package(MLIR REQUIRED CONFIG
  HINTS /usr/lib/llvm-22/lib/cmake/mlir)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "tk needs LLVM/MLIR 22, found ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "Using MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")
list(APPEND CMAKE_MODULE_PATH ${MLIR_CMAKE_DIR} ${LLVM_CMAKE_DIR})
include(TableGen)
include(AddLLVM)
include(AddMLIR)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
add_definitions(${LLVM_DEFINITIONS})

llvm_map_components_to_libnames(TK_LLVM_STATIC_LIBS
  Core Support Passes TransformUtils Analysis IPO InstCombine ScalarOpts
  TargetParser BitWriter BitReader IRReader AsmParser Linker MC
  NVPTXCodeGen NVPTXDesc NVPTXInfo)

foreach(tgt IN LISTS MLIR_EXPORTED_TARGETS)
  if(TARGET ${tgt})
    get_target_property(type ${tgt} TYPE)
    if(type STREQUAL "STATIC_LIBRARY" OR type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(deps ${tgt} INTERFACE_LINK_LIBRARIES)
      if(deps)
        list(FIND deps LLVM at)
        if(NOT at EQUAL -1)
          list(REMOVE_AT deps ${at})
          list(INSERT deps ${at} ${TK_LLVM_STATIC_LIBS})
          set_target_properties(${tgt} PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
        endif()
      endif()
    endif()
  endif()
endforeach()

# ANTLR4: the 4.7.2 tool (Java) generates the C++ parser at build time; the 4.9 runtime links.
find_program(TK_ANTLR4 antlr4 REQUIRED)
find_path(TK_ANTLR4_INCLUDE antlr4-runtime.h PATHS /usr/include/antlr4-runtime REQUIRED)
# The static runtime archive is not position-independent, so libtkc.so links the shared one
# (the GPU pack copies it next to libtkc.so).
find_library(TK_ANTLR4_RUNTIME NAMES antlr4-runtime REQUIRED)

find_package(GTest)
find_program(TK_LIT NAMES lit HINTS ${LLVM_TOOLS_BINARY_DIR})
find_program(TK_FILECHECK NAMES FileCheck HINTS ${LLVM_TOOLS_BINARY_DIR})
