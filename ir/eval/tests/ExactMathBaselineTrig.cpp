// ir/eval/ExactMathTrig.cpp compiled again as tilesim::exactmath_baseline, without the FMA clones (fma and rint
// are libm calls): the reference ExactMathClonesTest.cpp compares the library's functions with, bit for bit.
#define TILESIM_EXACT_MATH_ENTRY
#define exactmath exactmath_baseline
#include "ir/eval/ExactMathTrig.cpp"  // NOLINT(bugprone-suspicious-include)
