# Elementwise numerics tests: edge cases from definitions / SEMANTICS.md, and the replay of every GPU probe
# through parse, verify (when the verifier is built) and runLaunch.
tilesim_add_test(numerics_test unit
  SOURCES NumericsTest.cpp ProbeReplayTest.cpp
  LIBS tilesim_interpreter tilesim_eval tilesim_ir_text nlohmann_json::nlohmann_json)
if(TARGET tilesim_ir_verify)
  target_link_libraries(numerics_test PRIVATE tilesim_ir_verify)
  target_compile_definitions(numerics_test PRIVATE TILESIM_HAS_VERIFIER)
endif()
