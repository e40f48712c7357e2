# How tilesim declares its targets: one-line helpers so every library and executable gets the same include
# path and warnings (TILESIM_WARNINGS), and every GoogleTest test a ctest label (unit, conformance, fuzz, gpu).

function(tilesim_add_library name)
  add_library(${name} STATIC ${ARGN})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  # Position-independent, so the Python extension (tools/python, a shared module) can link the same libraries.
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_compile_options(${name} PRIVATE ${TILESIM_WARNINGS})
endfunction()

function(tilesim_add_executable name)
  add_executable(${name} ${ARGN})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${TILESIM_WARNINGS})
endfunction()

# tilesim_add_test(NAME LABEL SOURCES... LIBS ...): a GoogleTest executable registered with ctest.
function(tilesim_add_test name label)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  tilesim_add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE TILESIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS ${label})
endfunction()
