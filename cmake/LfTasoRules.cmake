# TASO's rule file (DESIGN §11): C code generated at build time by protoc-c
# from search/subst/taso_rules.proto (written from the documented wire
# format), compiled into fusionplan_lib like the ONNX schema (LfOnnx.cmake
# finds protoc-c and libprotobuf-c). Defines LF_TASO_GEN_SOURCE and
# LF_TASO_GEN_INCLUDE_DIR.
set(_lf_taso_proto ${CMAKE_CURRENT_SOURCE_DIR}/search/subst/taso_rules.proto)
set(_lf_taso_gen ${CMAKE_CURRENT_BINARY_DIR}/generated/taso)
file(MAKE_DIRECTORY ${_lf_taso_gen})
add_custom_command(
  OUTPUT ${_lf_taso_gen}/taso_rules.pb-c.c ${_lf_taso_gen}/taso_rules.pb-c.h
  COMMAND ${LF_PROTOC_C} --proto_path=${CMAKE_CURRENT_SOURCE_DIR}/search/subst --c_out=${_lf_taso_gen}
          ${_lf_taso_proto}
  COMMAND ${CMAKE_COMMAND} -DHEADER=${_lf_taso_gen}/taso_rules.pb-c.h -DPACKAGE=taso_rules
          -P ${PROJECT_SOURCE_DIR}/cmake/LfPbPrefix.cmake
  DEPENDS ${_lf_taso_proto} ${PROJECT_SOURCE_DIR}/cmake/LfPbPrefix.cmake
  COMMENT "Generating TASO rule-file protobuf-c code"
  VERBATIM)
set(LF_TASO_GEN_SOURCE ${_lf_taso_gen}/taso_rules.pb-c.c)
set(LF_TASO_GEN_INCLUDE_DIR ${_lf_taso_gen})
set_source_files_properties(${LF_TASO_GEN_SOURCE} PROPERTIES GENERATED ON COMPILE_OPTIONS "-w")
