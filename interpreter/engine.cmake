# The engine: dispatch and control flow, shape ops, memory ops, reductions, launch and address space.
list(APPEND TILESIM_INTERPRETER_SOURCES Atomics.cpp Executor.cpp Launch.cpp Memory.cpp MemoryOps.cpp Movement.cpp ReduceScan.cpp)
