// The libFuzzer entry point every target in fuzz/targets defines. A target is built two ways: with clang's
// -fsanitize=fuzzer (TILESIM_LIBFUZZER=ON: coverage-guided, for long runs) or with StandaloneDriver.cpp (any
// compiler: a seeded mutation loop for a bounded time, what ctest runs). docs/fuzzing.md "Parser fuzz targets".
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// A property the target checks failed: prints the message and aborts, so either driver reports the input.
[[noreturn]] void fuzzPropertyFailed(const char* target, const char* message);
