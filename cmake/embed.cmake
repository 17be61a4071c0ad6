# embed.cmake - turn the file IN into a C source OUT defining
#   const unsigned char NAME[]; const unsigned long NAME_len;
# (NAME defaults to rec__template).  The array ends with a NUL byte that
# NAME_len does not count, so the data can be used as a C string.
if(NOT NAME)
  set(NAME rec__template)
endif()
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
get_filename_component(base ${IN} NAME)
file(WRITE ${OUT} "/* generated from ${base} by embed.cmake: do not edit */\n"
  "const unsigned char ${NAME}[] = {\n${bytes}0x00};\n"
  "const unsigned long ${NAME}_len = ${len};\n")
