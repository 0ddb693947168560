# Gives the functions and descriptors protoc-c generates for PACKAGE (onnx,
# taso_rules) the library's lf_pb_ prefix, so that a program linking its own
# protobuf-c code for the same schema (onnxruntime's users, other ONNX tools)
# does not collide with libfusionplan: a block of #defines is put at the top
# of the generated HEADER, which the generated source and every user of the
# schema include. Type names (Onnx__ModelProto) and enum values are not
# symbols and keep their names. Run with cmake -DHEADER=... -DPACKAGE=... -P.
file(READ ${HEADER} _text)
string(REGEX MATCHALL "[^A-Za-z0-9_]${PACKAGE}__[a-z0-9_]+" _hits "${_text}")
set(_names)
foreach(_hit ${_hits})
  string(SUBSTRING "${_hit}" 1 -1 _name)
  list(APPEND _names ${_name})
endforeach()
list(REMOVE_DUPLICATES _names)
list(SORT _names)
set(_defines "/* fusionplan: the symbols of this schema carry the lf_pb_ prefix (cmake/LfPbPrefix.cmake). */\n")
foreach(_name ${_names})
  string(APPEND _defines "#define ${_name} lf_pb_${_name}\n")
endforeach()
file(WRITE ${HEADER} "${_defines}${_text}")
