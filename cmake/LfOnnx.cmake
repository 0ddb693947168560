# ONNX import (DESIGN §10): C code generated at build time by protoc-c from
# Debian's onnx.proto (package libonnx-dev), linked against libprotobuf-c.
# Nothing is copied into the source tree. ONNX import is a core feature, so
# protoc-c, libprotobuf-c and onnx.proto are required (.ci/setup installs
# protobuf-c-compiler, libprotobuf-c-dev and libonnx-dev).
#
# Defines LF_ONNX_GEN_SOURCE (the generated code), LF_ONNX_GEN_INCLUDE_DIRS,
# LF_PROTOBUF_C_LIBRARY and LF_ONNX_SUMMARY.

find_program(LF_PROTOC_C protoc-c)
find_path(LF_PROTOBUF_C_INCLUDE_DIR protobuf-c/protobuf-c.h)
find_library(LF_PROTOBUF_C_LIBRARY protobuf-c)
# onnx.proto is the plain "package onnx" schema; onnx-ml.proto (python3-onnx)
# adds the ML operator types under the same package but is not what the C
# headers of libonnx-dev were generated from.
find_file(LF_ONNX_PROTO onnx.proto PATHS /usr/include/onnx /usr/local/include/onnx NO_DEFAULT_PATH)
if(NOT LF_PROTOC_C OR NOT LF_PROTOBUF_C_INCLUDE_DIR OR NOT LF_PROTOBUF_C_LIBRARY OR NOT LF_ONNX_PROTO)
  message(FATAL_ERROR "ONNX import needs protoc-c, libprotobuf-c and onnx.proto "
                      "(Debian: apt-get install protobuf-c-compiler libprotobuf-c-dev libonnx-dev; "
                      "or run .ci/setup). Found: protoc-c='${LF_PROTOC_C}' "
                      "protobuf-c.h='${LF_PROTOBUF_C_INCLUDE_DIR}' libprotobuf-c='${LF_PROTOBUF_C_LIBRARY}' "
                      "onnx.proto='${LF_ONNX_PROTO}'")
endif()

get_filename_component(_lf_onnx_proto_dir ${LF_ONNX_PROTO} DIRECTORY)
set(_lf_onnx_gen ${CMAKE_CURRENT_BINARY_DIR}/generated/onnx)
file(MAKE_DIRECTORY ${_lf_onnx_gen})
add_custom_command(
  OUTPUT ${_lf_onnx_gen}/onnx.pb-c.c ${_lf_onnx_gen}/onnx.pb-c.h
  COMMAND ${LF_PROTOC_C} --proto_path=${_lf_onnx_proto_dir} --c_out=${_lf_onnx_gen} ${LF_ONNX_PROTO}
  COMMAND ${CMAKE_COMMAND} -DHEADER=${_lf_onnx_gen}/onnx.pb-c.h -DPACKAGE=onnx
          -P ${PROJECT_SOURCE_DIR}/cmake/LfPbPrefix.cmake
  DEPENDS ${LF_ONNX_PROTO} ${PROJECT_SOURCE_DIR}/cmake/LfPbPrefix.cmake
  COMMENT "Generating ONNX protobuf-c code from ${LF_ONNX_PROTO}"
  VERBATIM)

# The generated source is compiled into fusionplan_lib itself (see
# CMakeLists.txt), so the installed static library needs no second archive;
# it is generated code, so it is compiled without the project's warnings.
set(LF_ONNX_GEN_SOURCE ${_lf_onnx_gen}/onnx.pb-c.c)
set(LF_ONNX_GEN_INCLUDE_DIRS ${_lf_onnx_gen} ${LF_PROTOBUF_C_INCLUDE_DIR})
set_source_files_properties(${LF_ONNX_GEN_SOURCE} PROPERTIES GENERATED ON COMPILE_OPTIONS "-w")
set(LF_ONNX_SUMMARY "${LF_ONNX_PROTO} via ${LF_PROTOC_C}")
