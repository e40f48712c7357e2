# Elementwise numerics tests: edge cases from definitions / SEMANTICS.md, and the replay of every GPU probe.
tilesim_add_test(numerics_test unit
  SOURCES NumericsTest.cpp ProbeReplayTest.cpp
  LIBS tilesim_interpreter tilesim_eval nlohmann_json::nlohmann_json)
