# tt.dot unit tests: exactness against independent definitions (int64 sums, sequential std::fma loops).
tilesim_add_test(dot_test unit SOURCES DotTest.cpp LIBS tilesim_interpreter)
