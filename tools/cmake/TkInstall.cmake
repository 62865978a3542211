# `cmake --install build --prefix P`: libtkc.so (tkc::compiler: the JIT, LLVM/MLIR inside),
# libtkc-runtime.so (tkc::runtime: what AOT headers need), libtkc-graph.so (tkc::graph: the
# graph layer), each with a versioned SONAME; tkc; the public headers under include/tkc/ (a
# program includes <tk/tk.h> with -I P/include/tkc, which the CMake targets and pkg-config give:
# Tcl/Tk owns include/tk/); the stdlib in share/tkc/stdlib; the CMake package `tkc`
# (find_package(tkc), tk_add_kernels(...)) and pkg-config files tkc, tkc-runtime, tkc-graph.
# Directories as GNUInstallDirs says (lib/x86_64-linux-gnu under /usr on Debian).
include(CMakePackageConfigHelpers)

set(TK_INSTALL_INCLUDE_DIR ${CMAKE_INSTALL_INCLUDEDIR}/tkc)
set(TK_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tkc)
set_target_properties(tk PROPERTIES EXPORT_NAME compiler INSTALL_RPATH "$ORIGIN" BUILD_RPATH "$ORIGIN")
set_target_properties(tkrt PROPERTIES EXPORT_NAME runtime)
set_target_properties(tkgraph PROPERTIES EXPORT_NAME graph)
# Only include/tkc (never the bare include/, where Tcl/Tk's or an older install's tk/ may lie).
target_include_directories(tk PUBLIC $<INSTALL_INTERFACE:${TK_INSTALL_INCLUDE_DIR}>)
target_include_directories(tkrt PUBLIC $<INSTALL_INTERFACE:${TK_INSTALL_INCLUDE_DIR}>)
target_include_directories(tkgraph PUBLIC $<INSTALL_INTERFACE:${TK_INSTALL_INCLUDE_DIR}>)

install(TARGETS tk tkrt tkgraph tkc tk-llama EXPORT tkcTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The public headers, each from its layer: what other layers and users include.
install(FILES runtime/include/tk/tk.h runtime/include/tk/tk_c.h DESTINATION ${TK_INSTALL_INCLUDE_DIR}/tk)
install(FILES
  support/include/tk/Support/FloatFormats.h
  support/include/tk/Support/JsonText.h
  support/include/tk/Support/Types.h
  DESTINATION ${TK_INSTALL_INCLUDE_DIR}/tk/Support)
install(FILES
  runtime/include/tk/Runtime/Aot.h
  runtime/include/tk/Runtime/Context.h
  runtime/include/tk/Runtime/Error.h
  runtime/include/tk/Runtime/Jit.h
  runtime/include/tk/Runtime/Files.h
  runtime/include/tk/Runtime/Nvtx.h
  DESTINATION ${TK_INSTALL_INCLUDE_DIR}/tk/Runtime)
install(FILES graph/include/tk/Graph/Graph.h graph/include/tk/Graph/Checkpoint.h graph/include/tk/Graph/Llama.h
        graph/include/tk/Graph/Parallel.h
        DESTINATION ${TK_INSTALL_INCLUDE_DIR}/tk/Graph)
install(FILES driver/include/tk/Driver/Compiler.h DESTINATION ${TK_INSTALL_INCLUDE_DIR}/tk/Driver)
install(FILES
  frontend/include/tk/Frontend/Diagnostics.h
  frontend/include/tk/Frontend/IntExpression.h
  DESTINATION ${TK_INSTALL_INCLUDE_DIR}/tk/Frontend)
install(DIRECTORY stdlib/ DESTINATION ${TK_INSTALL_STDLIB_DIR} FILES_MATCHING PATTERN "*.tk")
install(EXPORT tkcTargets NAMESPACE tkc:: DESTINATION ${TK_INSTALL_CMAKE_DIR})
configure_package_config_file(tools/cmake/tkcConfig.cmake.in ${PROJECT_BINARY_DIR}/tkcConfig.cmake
  INSTALL_DESTINATION ${TK_INSTALL_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tkcConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tkcConfig.cmake ${PROJECT_BINARY_DIR}/tkcConfigVersion.cmake
  DESTINATION ${TK_INSTALL_CMAKE_DIR})
# pkg-config: the compiler (the JIT), the runtime alone (AOT headers), the graph layer; the
# prefix found from the file's own place, so that `cmake --install --prefix P` anywhere works.
file(RELATIVE_PATH TK_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" TK_PC_TO_PREFIX "${TK_PC_TO_PREFIX}")
# (From the full paths: GNUInstallDirs' folders may be given absolute.)
file(RELATIVE_PATH TK_PC_LIBDIR ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_LIBDIR})
file(RELATIVE_PATH TK_PC_INCLUDEDIR ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_INCLUDEDIR}/tkc)
file(RELATIVE_PATH TK_PC_STDLIBDIR ${CMAKE_INSTALL_PREFIX} ${CMAKE_INSTALL_FULL_DATADIR}/tkc/stdlib)
foreach(pc IN ITEMS tkc tkc-runtime tkc-graph)
  configure_file(tools/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
# The Python package (runtime/python): `pip install --no-build-isolation P/share/tkc/python`.
install(FILES runtime/python/pyproject.toml DESTINATION ${CMAKE_INSTALL_DATADIR}/tkc/python)
install(FILES runtime/python/tkc/__init__.py runtime/python/tkc/torch_ops.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/tkc/python/tkc)
file(RELATIVE_PATH TK_PYTHON_TO_LIB ${CMAKE_INSTALL_FULL_DATADIR}/tkc/python/tkc ${CMAKE_INSTALL_FULL_LIBDIR})
# Its _library.py, written at install time: the prefix is --prefix's, known only then. It looks
# beside the installed tree first (the package used in place), then where the library was
# installed (a copy pip made elsewhere), then on the system's library path.
install(CODE "
  set(tk_python_dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/tkc/python/tkc\")
  set(tk_installed_lib \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_SONAME_FILE_NAME:tk>\")
  file(WRITE \"\${tk_python_dir}/_library.py\" \"\\\"\\\"\\\"Where libtkc is (written by cmake --install).\\\"\\\"\\\"
import ctypes.util
import os


def library_path():
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, '${TK_PYTHON_TO_LIB}', '$<TARGET_SONAME_FILE_NAME:tk>'), '\${tk_installed_lib}'):
        if os.path.exists(candidate):
            return candidate
    return ctypes.util.find_library('tkc') or '$<TARGET_SONAME_FILE_NAME:tk>'
\")
")
