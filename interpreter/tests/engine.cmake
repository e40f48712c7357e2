# Engine tests that need the C++ API: properties that depend on program order (atomics' old values, a CAS
# lock's one winner), tt.print output, determinism over LaunchOptions, and the exact-profile combine order of
# tt.reduce / tt.scan (float sums whose rounding shows the order need --profile exact, which a case cannot ask
# for). Everything else a launch shows in its buffers or reports is a conformance case under conformance/engine/
# (conformance/engine/make_cases.py), replayed on any engine by `tilesim conformance` and ctest conformance_tree.
tilesim_add_test(engine_test unit
  SOURCES EngineAtomicTest.cpp EngineControlTest.cpp EngineHostileTest.cpp EngineReduceScanOrderTest.cpp
  LIBS tilesim_interpreter tilesim_ir_text tilesim_ir_verify)
