# `cmake --install <build> --prefix P` makes P a CMake package:
# find_package(Trellis CONFIG) with -DTrellis_DIR=P/lib/cmake/trellis
# (cmake/TrellisConfig.cmake.in lists the targets; docs/embedding.md).

include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(TRELLIS_PACKAGE_VERSION ${PROJECT_VERSION})
set(TRELLIS_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/trellis)

install(TARGETS TrellisAPI TrellisCAPI TrellisAotRuntime
                TrellisCollectivesRuntime
  EXPORT TrellisTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set_target_properties(TrellisCollectivesRuntime PROPERTIES
  INSTALL_RPATH "\$ORIGIN")
install(TARGETS trellis-aot RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set_target_properties(trellis-aot PROPERTIES
  INSTALL_RPATH "\$ORIGIN/../${CMAKE_INSTALL_LIBDIR};${LLVM_LIBRARY_DIR}")

# Public headers, and the TableGen-generated ones they include.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/trellis
                  ${PROJECT_SOURCE_DIR}/include/trellis-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/trellis
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

install(EXPORT TrellisTargets
  NAMESPACE Trellis::
  DESTINATION ${TRELLIS_CMAKE_INSTALL_DIR})
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/TrellisConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lib/cmake/trellis/TrellisConfig.cmake
  INSTALL_DESTINATION ${TRELLIS_CMAKE_INSTALL_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/lib/cmake/trellis/TrellisConfigVersion.cmake
  VERSION ${TRELLIS_PACKAGE_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/lib/cmake/trellis/TrellisConfig.cmake
  ${PROJECT_BINARY_DIR}/lib/cmake/trellis/TrellisConfigVersion.cmake
  DESTINATION ${TRELLIS_CMAKE_INSTALL_DIR})
