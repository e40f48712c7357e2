# ctest script: fails when docs/ops.md is not what `tilesim ops --markdown` prints (regenerate it with
# `tilesim ops --markdown > docs/ops.md`). Arguments: -DTILESIM=<binary> -DDOC=<docs/ops.md>.
execute_process(COMMAND ${TILESIM} ops --markdown OUTPUT_VARIABLE generated RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "tilesim ops --markdown failed (${status})")
endif()
file(READ ${DOC} committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR "${DOC} is out of date: run `tilesim ops --markdown > docs/ops.md`")
endif()
