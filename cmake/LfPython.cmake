# The shared library and the Python package (DESIGN §18, docs/python.md).
#
# libfusionplan.so (PREFIX/lib/fusionplan/) is the static library's objects linked whole into one
# shared object (the static library, the pkg-config file and the CMake
# package are unchanged). python/fusionplan is copied to build/python on
# every build, with _libpath.py naming the build's libfusionplan.so, so
# PYTHONPATH=build/python works; `cmake --install` puts the package where
# the interpreter of the prefix looks (PREFIX/lib/python3/dist-packages for
# /usr, PREFIX/lib/python3.X/dist-packages otherwise) and prints the one
# PYTHONPATH line when /usr/bin/python3 would not find it there.

option(LF_SHARED "Build libfusionplan.so and the Python package" ON)
if(LF_FUZZ)
  set(LF_SHARED OFF)
endif()
if(NOT LF_SHARED)
  return()
endif()

set_target_properties(fusionplan_lib PROPERTIES POSITION_INDEPENDENT_CODE ON)
file(WRITE ${PROJECT_BINARY_DIR}/generated/shared_unit.c
     "/* libfusionplan.so: the static library linked whole (cmake/LfPython.cmake). */\ntypedef int lf__shared_unit;\n")
add_library(fusionplan_shared SHARED ${PROJECT_BINARY_DIR}/generated/shared_unit.c)
# Its own folder, in the build tree and installed (PREFIX/lib/fusionplan/), so
# that -lfusionplan next to libfusionplan.a keeps linking the static library.
set_target_properties(fusionplan_shared PROPERTIES OUTPUT_NAME fusionplan VERSION ${PROJECT_VERSION}
                      SOVERSION ${PROJECT_VERSION_MAJOR}
                      LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib/fusionplan)
if(CMAKE_VERSION VERSION_LESS 3.24)
  target_link_libraries(fusionplan_shared PRIVATE -Wl,--whole-archive fusionplan_lib -Wl,--no-whole-archive)
else()
  target_link_libraries(fusionplan_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,fusionplan_lib>")
endif()
install(TARGETS fusionplan_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/fusionplan)

set(LF_PYTHON "/usr/bin/python3" CACHE FILEPATH "Python interpreter the package is installed for and tested with")
set(_py_src ${PROJECT_SOURCE_DIR}/python/fusionplan)
set(_py_bin ${PROJECT_BINARY_DIR}/python/fusionplan)
file(GENERATE OUTPUT ${_py_bin}/_libpath.py
     CONTENT "# Written by the build: the library this package calls and the shipped weights.\nLIBRARY = \"$<TARGET_FILE:fusionplan_shared>\"\nWEIGHTS = \"${PROJECT_BINARY_DIR}/share/fusionplan/weights\"\n")
add_custom_target(fusionplan_python ALL
  COMMAND ${CMAKE_COMMAND} -E copy_directory ${_py_src} ${_py_bin}
  COMMENT "Python package in ${PROJECT_BINARY_DIR}/python" VERBATIM)
add_dependencies(fusionplan_python fusionplan_shared)

# The site directory under the prefix, chosen at install time (the prefix
# may be given to cmake --install).
install(CODE "
  set(_prefix \"\${CMAKE_INSTALL_PREFIX}\")
  set(_py \"${LF_PYTHON}\")
  set(_ver 3)
  if(EXISTS \"\${_py}\")
    execute_process(COMMAND \"\${_py}\" -c \"import sys; print('%d.%d' % sys.version_info[:2])\"
                    OUTPUT_VARIABLE _ver OUTPUT_STRIP_TRAILING_WHITESPACE)
  endif()
  if(_prefix STREQUAL \"/usr\")
    set(_site \"\${_prefix}/lib/python3/dist-packages\")
  else()
    set(_site \"\${_prefix}/lib/python\${_ver}/dist-packages\")
  endif()
  file(INSTALL \"${_py_src}\" DESTINATION \"\$ENV{DESTDIR}\${_site}\"
       FILES_MATCHING PATTERN \"*.py\" PATTERN \"__pycache__\" EXCLUDE)
  file(RELATIVE_PATH _rel \"\${_site}/fusionplan\" \"\${_prefix}/${CMAKE_INSTALL_LIBDIR}/fusionplan/$<TARGET_FILE_NAME:fusionplan_shared>\")
  file(RELATIVE_PATH _relw \"\${_site}/fusionplan\" \"\${_prefix}/${CMAKE_INSTALL_DATADIR}/fusionplan/weights\")
  file(WRITE \"\$ENV{DESTDIR}\${_site}/fusionplan/_libpath.py\"
       \"# Written by cmake --install: the library this package calls and the shipped weights, from the package's folder.\\nimport os\\n_here = os.path.dirname(os.path.abspath(__file__))\\nLIBRARY = os.path.join(_here, \\\"\${_rel}\\\")\\nWEIGHTS = os.path.join(_here, \\\"\${_relw}\\\")\\n\")
  set(_found 0)
  if(EXISTS \"\${_py}\")
    execute_process(COMMAND \"\${_py}\" -c \"import sys; sys.exit(0 if '\${_site}' in sys.path else 1)\"
                    RESULT_VARIABLE _notfound)
    if(_notfound EQUAL 0)
      set(_found 1)
    endif()
  endif()
  if(NOT _found)
    message(STATUS \"Python package installed in \${_site}; for \${_py}: export PYTHONPATH=\${_site}\")
  endif()
")
