// LaunchBinding: which value every kernel parameter takes in a launch, worked out once for every engine. The
// interpreter turns it into tiles, the GPU engine into kernel parameters; the fuzz reference can read it too.
//
//   LaunchBinding binding = bindLaunch(launch);
//   if (!binding.ok()) return binding.diagnostics();   // the first problem, naming the argument at fault
//   for (size_t p = 0; p < binding.numParameters(); ++p) {
//     const BoundParameter& bound = binding.parameter(p);   // Pointer: placement(); Scalar: bits; ...
//   }
//   result.unusedArguments = binding.unusedArguments();
//
// What binding does, in order (each step stops at its first problem):
//   1. places the buffers (placeBuffers: sizes, aliases, unique names);
//   2. checks Triton's specialisation (checkSpecialisation: tt.divisibility of pointers and integers);
//   3. binds arguments to parameters by position, as Triton's launcher does: an argument that carries its
//      parameter's index (LaunchArgument::parameter, the Python package's) takes it; otherwise the one whose
//      name is the parameter's binding name (ParameterName.h: the CLI's --arg and case files). Names are used
//      only for that and for messages;
//   4. checks each argument's kind against its parameter's type (a buffer for a pointer, a scalar for a scalar,
//      a host tensor descriptor for a !tt.tensordesc; element sizes agree; integers fit the parameter's width);
//   5. expands a host tensor descriptor as Triton 3.6's launcher does: the 2 x rank parameters after its
//      !tt.tensordesc parameter take its shape (i32 each), then its strides (i64 each), whatever their names;
//   6. lists the arguments no parameter took (Triton drops parameters it specialised to constants).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/Diagnostic.h"
#include "ir/launch/Launch.h"

namespace tilesim {

struct BoundParameter {
  enum class Kind : uint8_t {
    Pointer,           // a buffer argument: the pointer is its placement (storage + byte offset)
    Scalar,            // a scalar argument: `bits`
    TensorDescriptor,  // a host tensor descriptor: base at its placement, shape, strides, padding from the argument
    DescriptorField,   // a shape or stride entry of the descriptor before it: `bits`
  };
  Kind kind = Kind::Scalar;
  // The index in launch.arguments of the argument the parameter takes (a DescriptorField's: its descriptor's).
  size_t argument = 0;
  // Scalar and DescriptorField: the value as the parameter's type: float bits rounded to the type, or the
  // integer as a 64-bit two's complement number (it fits the type's width; its low bytes are the value).
  uint64_t bits = 0;
};

class LaunchBinding {
 public:
  bool ok() const { return diagnostics_.empty(); }
  const Diagnostics& diagnostics() const { return diagnostics_; }
  // One entry per kernel parameter, in order (empty unless ok()).
  size_t numParameters() const { return parameters_.size(); }
  const BoundParameter& parameter(size_t index) const { return parameters_[index]; }
  // Where each argument's bytes live (placeBuffers); one entry per argument when ok().
  const std::vector<BufferPlacement>& placements() const { return placements_; }
  const BufferPlacement& placement(size_t argument) const { return placements_[argument]; }
  // The names of the arguments no parameter took, in argument order.
  const std::vector<std::string>& unusedArguments() const { return unused_; }

 private:
  friend LaunchBinding bindLaunch(const Launch& launch);
  Diagnostics diagnostics_;
  std::vector<BoundParameter> parameters_;
  std::vector<BufferPlacement> placements_;
  std::vector<std::string> unused_;
};

// Binds launch.arguments to launch.kernel's parameters (the steps above). Not ok() when there is no kernel.
LaunchBinding bindLaunch(const Launch& launch);

}  // namespace tilesim
