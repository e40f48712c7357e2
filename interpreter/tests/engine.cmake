# Engine semantics tests: small hand-written TTIR kernels (block pointers, atomics, reduce/scan, control flow,
# shape ops, casts, checks, determinism) run through parseModule, verifyModule and runLaunch, with expected
# values computed from the ops' definitions.
tilesim_add_test(engine_test unit
  SOURCES EngineAtomicTest.cpp EngineCastTest.cpp EngineControlTest.cpp EngineMemoryTest.cpp EngineReduceScanOrderTest.cpp EngineReduceScanTest.cpp
    EngineShapeTest.cpp
  LIBS tilesim_interpreter tilesim_ir_text tilesim_ir_verify)
