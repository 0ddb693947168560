# lf_embed_file(<input> <symbol> <output.c>): turns a text file into a C source
# defining `const char <symbol>[]` (NUL-terminated) and `const long <symbol>_len`,
# regenerated whenever the input changes. Used to compile the hardware schema
# into the library so that validation needs no file lookup or network access.
function(lf_embed_file input symbol output)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${input})
  file(READ ${input} _hex HEX)
  file(SIZE ${input} _len)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _bytes "${_hex}")
  string(REGEX REPLACE "(0x[0-9a-f][0-9a-f],){16}" "\\0\n  " _bytes "${_bytes}")
  file(WRITE ${output}.tmp
    "/* Generated from ${input} by cmake/LfEmbed.cmake; do not edit. */\n"
    "const char ${symbol}[] = {\n  ${_bytes}0x00\n};\n"
    "const long ${symbol}_len = ${_len};\n")
  file(COPY_FILE ${output}.tmp ${output} ONLY_IF_DIFFERENT)
  file(REMOVE ${output}.tmp)
endfunction()
