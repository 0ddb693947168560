# Installation: `cmake --install build [--prefix P]` puts
#   P/lib/libfusionplan.a, P/bin/fusionplan,
#   P/include/fusionplan/...           the public headers (no *_internal.h),
#   P/share/fusionplan/weights/        the shipped explainer weights,
#   P/lib/cmake/fusionplan/            find_package(fusionplan) -> fusionplan::fusionplan,
#   P/lib/pkgconfig/fusionplan.pc      pkg-config --cflags --libs --static fusionplan,
#   and (cmake/LfPython.cmake) P/lib/fusionplan/libfusionplan.so with the Python package.
# The library is static, so both carry its dependencies (libxml2, jansson,
# OpenMP, MPI, the CUDA runtime) for the consumer's link.

include(CMakePackageConfigHelpers)

# Public headers: every header of the library folders except the internal ones
# (*_internal.h, the binary-I/O and RG-Explainer layout helpers, the ONNX
# importer's stages behind planner/io/onnx.h) and the CLI's own.
# tests/cli/install.sh compiles every installed header on its own.
set(_lf_header_dirs planner hwdesc models search splitter explain)
foreach(dir ${_lf_header_dirs})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fusionplan/${dir}
          FILES_MATCHING PATTERN "*.h"
          PATTERN "*_internal.h" EXCLUDE
          PATTERN "binio.h" EXCLUDE
          PATTERN "explainer_rg.h" EXCLUDE
          PATTERN "onnx_*.h" EXCLUDE
          PATTERN "cli" EXCLUDE
          PATTERN "weights" EXCLUDE)
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/planner/fusionplan.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fusionplan)

install(TARGETS fusionplan_lib EXPORT fusionplanTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fusionplan)
install(TARGETS fusionplan RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/explain/weights/ DESTINATION ${CMAKE_INSTALL_DATADIR}/fusionplan/weights
        FILES_MATCHING PATTERN "*.bin")

install(EXPORT fusionplanTargets NAMESPACE fusionplan:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fusionplan)
set(LF_CONFIG_HAVE_OPENMP ${LF_HAVE_OPENMP})
set(LF_CONFIG_HAVE_MPI ${LF_HAVE_MPI})
set(LF_CONFIG_HAVE_CUDA ${LF_HAVE_CUDA})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/fusionplanConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/fusionplanConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fusionplan)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/fusionplanConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/fusionplanConfig.cmake ${PROJECT_BINARY_DIR}/fusionplanConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fusionplan)

# pkg-config: Requires.private names the dependencies that have .pc files;
# OpenMP and MPI go into Libs.private as flags.
set(LF_PC_REQUIRES_PRIVATE "libxml-2.0 jansson libprotobuf-c")
set(LF_PC_LIBS_PRIVATE "-lm -pthread")
if(LF_HAVE_OPENMP)
  string(APPEND LF_PC_LIBS_PRIVATE " ${OpenMP_C_FLAGS}")
endif()
if(LF_HAVE_MPI)
  string(APPEND LF_PC_REQUIRES_PRIVATE " ompi-c")
endif()
if(LF_HAVE_CUDA)
  string(APPEND LF_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcudart ${LF_CUDNN_LIBRARY}")
  if(CMAKE_DL_LIBS)
    string(APPEND LF_PC_LIBS_PRIVATE " -l${CMAKE_DL_LIBS}") # cuBLAS is opened with dlopen
  endif()
endif()
# The .pc file finds its prefix from its own folder, so an installed tree can be moved.
file(RELATIVE_PATH LF_PC_UP /_root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /_root)
string(REGEX REPLACE "/$" "" LF_PC_UP "${LF_PC_UP}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/fusionplan.pc.in ${PROJECT_BINARY_DIR}/fusionplan.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/fusionplan.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
