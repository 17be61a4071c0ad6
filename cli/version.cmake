# Writes tt_version.h with the project version and `git describe` of the
# source tree, at every build (the file is rewritten only when it changes,
# so nothing recompiles needlessly).  -DSRC= -DOUT= -DVERSION=
execute_process(COMMAND git describe --always --dirty --tags
                WORKING_DIRECTORY "${SRC}" OUTPUT_VARIABLE d ERROR_QUIET
                OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR d STREQUAL "")
  set(d "unknown (not built from a git checkout)")
endif()
set(text "#define TT_VERSION \"${VERSION}\"\n#define TT_GIT_DESCRIBE \"${d}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
