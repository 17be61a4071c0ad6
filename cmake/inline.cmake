# inline.cmake - write IN to OUT with the text MARK replaced by the contents
# of the files WITH, "a.js|b.js|..." (the shared drawing's ES modules into
# the replay page, which must work opened from a file, with no server to
# fetch a module from).  MARK stands in one inline <script type="module">:
# the modules become one script, so their imports of each other (the lines
# "import ... from './x.js';" and "export ... from './x.js';") are dropped,
# every name they import being then in the same script.  List each module
# before those that use it.  Any other import is an error here.
file(READ ${IN} text)
string(REPLACE "|" ";" files "${WITH}")
set(insert "")
foreach(f ${files})
  file(READ ${f} js)
  string(REGEX REPLACE "(^|\n)(import|export) [^\n]* from '\\./[A-Za-z0-9_]+\\.js';" "\\1" js "${js}")
  string(REGEX MATCH "(^|\n)import[ {*]" left "${js}")
  if(left)
    message(FATAL_ERROR "${f} imports something other than a module beside it in one line: it cannot be inlined")
  endif()
  string(APPEND insert "${js}")
endforeach()
string(FIND "${text}" "${MARK}" at)
if(at LESS 0)
  message(FATAL_ERROR "${IN} has no ${MARK}")
endif()
string(REPLACE "${MARK}" "${insert}" text "${text}")
file(WRITE ${OUT} "${text}")
