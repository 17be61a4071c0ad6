# inline.cmake - write IN to OUT with the text MARK replaced by the contents
# of the file WITH (e.g. the shared drawing code into the replay page).
file(READ ${IN} text)
file(READ ${WITH} insert)
string(FIND "${text}" "${MARK}" at)
if(at LESS 0)
  message(FATAL_ERROR "${IN} has no ${MARK}")
endif()
string(REPLACE "${MARK}" "${insert}" text "${text}")
file(WRITE ${OUT} "${text}")
