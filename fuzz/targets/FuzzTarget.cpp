// fuzzPropertyFailed (fuzz/targets/FuzzTarget.h), shared by both drivers.
#include "fuzz/targets/FuzzTarget.h"

#include <cstdio>
#include <cstdlib>

void fuzzPropertyFailed(const char* target, const char* message) {
  std::fprintf(stderr, "%s: property failed: %s\n", target, message);
  std::abort();
}
