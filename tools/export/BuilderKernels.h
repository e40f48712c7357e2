// The builder-made kernels that tilesim_export_kernels writes out with their launches: each is built with
// ir/builder (Triton 3.6's typing rules), so real Triton can compile the printed TTIR and run it on the same
// inputs, and the GPU's outputs can be compared with the interpreter's under the bounds the triton profile gives.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/Type.h"

namespace tilesim::exporter {

// One kernel parameter and what the launch passes for it.
struct ExportArgument {
  std::string name;
  bool isBuffer = true;
  ScalarKind kind = ScalarKind::F32;  // buffer element type
  std::vector<int64_t> shape;         // buffer shape (row-major)
  std::vector<uint8_t> bytes;         // buffer contents before the launch
  bool output = false;                // compared after the launch
  bool unordered = false;             // compare as a multiset (tl.cat with can_reorder leaves the order open)
  int64_t scalar = 0;                 // integer scalar value
};

struct ExportKernel {
  std::string name;
  std::unique_ptr<Module> module;  // null when the build failed
  std::string error;               // the builder's FrontendError when it did
  std::vector<ExportArgument> arguments;
  std::array<int64_t, 3> grid{1, 1, 1};
};

// The vector add (mask/other), row softmax, tt.dot matmul, argmax, fp16/bf16/fp8 cast chain, and
// clamp/fma/umulhi/permute/cat kernels, with deterministic inputs.
std::vector<ExportKernel> buildExportKernels();

}  // namespace tilesim::exporter
