# Installation: `cmake --install build [--prefix P]` puts
#   P/lib/libfusionplan.a, P/bin/fusionplan,
#   P/include/fusionplan/...           the public headers (those fusionplan.h reaches),
#   P/share/fusionplan/weights/        the shipped explainer weights,
#   P/lib/cmake/fusionplan/            find_package(fusionplan) -> fusionplan::fusionplan,
#   P/lib/pkgconfig/fusionplan.pc      pkg-config --cflags --libs --static fusionplan,
#   and (cmake/LfPython.cmake) P/lib/fusionplan/libfusionplan.so with the Python package.
# The library is static, so both carry its dependencies (libxml2, jansson,
# OpenMP, MPI, the CUDA runtime) for the consumer's link.

include(CMakePackageConfigHelpers)

# Public headers: exactly those planner/app/fusionplan.h reaches through its
# #include "..." lines (followed transitively at configure time; editing one
# of them re-runs the configure step), installed under their source paths.
# Everything else (internal declarations, the CLI, the ONNX importer's
# stages, the utilities) stays out of the install. tests/cli/install.sh
# compiles every installed header on its own and checks that none declares
# an lf__ name.
set(_lf_public_headers)
set(_lf_header_queue planner/app/fusionplan.h)
while(_lf_header_queue)
  list(POP_FRONT _lf_header_queue _lf_h)
  if(_lf_h IN_LIST _lf_public_headers)
    continue()
  endif()
  list(APPEND _lf_public_headers ${_lf_h})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${_lf_h})
  file(STRINGS ${PROJECT_SOURCE_DIR}/${_lf_h} _lf_includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
  foreach(_lf_line ${_lf_includes})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*" "\\1" _lf_inc "${_lf_line}")
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/${_lf_inc})
      message(FATAL_ERROR "${_lf_h} includes ${_lf_inc}, which is not a file of the source tree")
    endif()
    list(APPEND _lf_header_queue ${_lf_inc})
  endforeach()
endwhile()
foreach(_lf_h ${_lf_public_headers})
  get_filename_component(_lf_dir ${_lf_h} DIRECTORY)
  if(_lf_h STREQUAL "planner/app/fusionplan.h")
    set(_lf_dir "")
  endif()
  install(FILES ${PROJECT_SOURCE_DIR}/${_lf_h} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fusionplan/${_lf_dir})
endforeach()

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
if(LF_BLAS AND LF_CBLAS_INCLUDE_DIR AND LF_OPENBLAS_LIBRARY)
  get_filename_component(_lf_blas_dir ${LF_OPENBLAS_LIBRARY} DIRECTORY)
  string(APPEND LF_PC_LIBS_PRIVATE " -L${_lf_blas_dir} -lopenblas")
endif()
# The .pc file finds its prefix from its own folder, so an installed tree can be moved.
file(RELATIVE_PATH LF_PC_UP /_root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /_root)
string(REGEX REPLACE "/$" "" LF_PC_UP "${LF_PC_UP}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/fusionplan.pc.in ${PROJECT_BINARY_DIR}/fusionplan.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/fusionplan.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
