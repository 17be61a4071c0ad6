# tt_embed(VAR NAME FILE): a C source defining NAME[] and NAME_len with the
# bytes of FILE (made by cmake/embed.cmake at build time), appended to the
# list VAR.
function(tt_embed var name file)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name}.c)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out} -DNAME=${name} -P ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
    DEPENDS ${file} ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
    COMMENT "Embedding ${file}")
  set(${var} ${${var}} ${out} PARENT_SCOPE)
endfunction()
