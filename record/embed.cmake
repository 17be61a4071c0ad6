# embed.cmake - turn the file IN into a C source OUT defining
#   const unsigned char rec__template[]; const unsigned long rec__template_len;
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "/* generated from replay_template.html by embed.cmake: do not edit */\n"
  "const unsigned char rec__template[] = {\n${bytes}0x00};\n"
  "const unsigned long rec__template_len = ${len};\n")
