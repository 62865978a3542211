# `cmake --install build --prefix P`: libtk.so (tk::compiler: the JIT, LLVM/MLIR inside),
# libtkrt.so (tk::runtime: what AOT headers need), libtkgraph.so (tk::graph: the graph layer),
# tkc, the public headers, the stdlib and a package config, so that an outside project does
# find_package(tk) and tk_add_kernels(...).
include(CMakePackageConfigHelpers)

set_target_properties(tk PROPERTIES EXPORT_NAME compiler INSTALL_RPATH "$ORIGIN" BUILD_RPATH "$ORIGIN")
set_target_properties(tkrt PROPERTIES EXPORT_NAME runtime)
set_target_properties(tkgraph PROPERTIES EXPORT_NAME graph)
target_include_directories(tk PUBLIC $<INSTALL_INTERFACE:include>)

install(TARGETS tk tkrt tkgraph tkc tk-llama EXPORT tkTargets
  LIBRARY DESTINATION lib
  RUNTIME DESTINATION bin)
# The public headers, each from its layer: what other layers and users include.
install(FILES runtime/include/tk/tk.h DESTINATION include/tk)
install(FILES
  support/include/tk/Support/FloatFormats.h
  support/include/tk/Support/JsonText.h
  support/include/tk/Support/Types.h
  DESTINATION include/tk/Support)
install(FILES
  runtime/include/tk/Runtime/Aot.h
  runtime/include/tk/Runtime/Context.h
  runtime/include/tk/Runtime/Error.h
  runtime/include/tk/Runtime/Jit.h
  runtime/include/tk/Runtime/Files.h
  DESTINATION include/tk/Runtime)
install(FILES graph/include/tk/Graph/Graph.h graph/include/tk/Graph/Checkpoint.h graph/include/tk/Graph/Llama.h
        DESTINATION include/tk/Graph)
install(FILES driver/include/tk/Driver/Compiler.h DESTINATION include/tk/Driver)
install(FILES
  frontend/include/tk/Frontend/Diagnostics.h
  frontend/include/tk/Frontend/IntExpression.h
  DESTINATION include/tk/Frontend)
install(DIRECTORY stdlib/ DESTINATION share/tk/stdlib FILES_MATCHING PATTERN "*.tk")
install(EXPORT tkTargets NAMESPACE tk:: DESTINATION lib/cmake/tk)
configure_package_config_file(tools/cmake/tkConfig.cmake.in ${PROJECT_BINARY_DIR}/tkConfig.cmake
  INSTALL_DESTINATION lib/cmake/tk)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tkConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tkConfig.cmake ${PROJECT_BINARY_DIR}/tkConfigVersion.cmake
  DESTINATION lib/cmake/tk)
