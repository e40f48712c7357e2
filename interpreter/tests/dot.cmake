# tt.dot unit tests of evalDot: exactness against independent definitions (sequential std::fma loops), bounds, undefined lanes.
tilesim_add_test(dot_test unit SOURCES DotTest.cpp LIBS tilesim_interpreter)
