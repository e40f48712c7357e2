# tt.dot: semantics, operand conversion and error bounds (Dot.cpp), the f32 fma kernels (DotKernel.cpp).
list(APPEND TILESIM_INTERPRETER_SOURCES Dot.cpp DotKernel.cpp)
