// Tensor descriptor loads and stores as tensors of pointers (what Triton's rewrite_tensor_descriptor_to_pointer
// does below sm_90): `tt.descriptor_load %desc[%i, %j]` becomes
//   coord_d = splat(i64 start_d) + i64 make_range(0, B_d), expanded along d     (per dimension d)
//   mask    = AND_d (coord_d >= 0 & coord_d < shape_d)
//   ptrs    = splat(base) + SUM_d coord_d * stride_d      (the last stride is 1: Triton's descriptor contract)
//   tt.load ptrs, mask, splat(padding: 0, or the quiet NaN for a float block with NaN padding)
// and a descriptor store the masked tt.store of the same pointers. Every lane reads or writes the bytes the
// descriptor access does (the same wrapping 64-bit address arithmetic, the same bounds), so the rewrite changes
// no result; what changes is that AxisInfo, coalescing, vector accesses and the cp.async pipeliner
// (lowering/PipelinedLoop.cpp) see ordinary pointer loads. A descriptor load lowered as itself
// (lowering/Descriptors.cpp) is one scalar access per element.
//
// Which descriptors: those made in the kernel (tt.make_tensor_descriptor whose last stride is the constant 1: its
// padding is an attribute), and host descriptors (kernel parameters) for which the launch established
// HostDescriptorFacts: the padding, a last stride of 1, and the divisibility of the base, the strides and the last
// extent, which the rewritten kernel declares as `tt.divisibility` (Triton specialises its launches on the same
// facts). A host descriptor parameter becomes its base pointer followed by an unused i32 (the padding's slot):
// the kernel's PTX parameters stay those of the descriptor. Only descriptors whose every use is a descriptor_load
// or descriptor_store with a signless (or float) block are rewritten; gathers, scatters, descriptors carried by
// loops or passed to calls stay descriptor accesses.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/launch/Binding.h"

namespace tilesim::gpu {

// What a launch knows of one host descriptor parameter of the kernel.
struct HostDescriptorFacts {
  size_t parameter = 0;              // the kernel parameter of type !tt.tensordesc
  int padding = 1;                   // 1 zero, 2 NaN
  bool lastStrideIsOne = false;
  int64_t baseDivisibility = 1;      // bytes: a power of two dividing the base address, at most 16
  int64_t strideDivisibility = 1;    // elements: a power of two dividing every stride but the last, at most 16
  int64_t lastExtentDivisibility = 1;  // elements: a power of two dividing the last extent of the shape, at most 16

  // A line for the compiled kernel's cache key (the facts decide the code).
  std::string key() const;
};

// The facts of every host descriptor parameter of a bound launch; `baseAddress(argument)` is the address (or, for
// alignment purposes, any number congruent to it modulo 16) the descriptor's base will have on the device.
std::vector<HostDescriptorFacts> hostDescriptorFacts(const Launch& launch, const LaunchBinding& binding,
                                                     const std::function<uint64_t(size_t argument)>& baseAddress);

// The largest power of two dividing `value`, at most `cap` (a power of two); `cap` for 0.
int64_t powerOfTwoDividing(uint64_t value, int64_t cap);

// A copy of `module` whose kernel `kernelName` accesses the qualifying descriptors through pointers (above), or
// null when no descriptor of the kernel qualifies. `hostFacts`: one entry per host descriptor parameter the launch
// checked; a host descriptor without an entry, or whose last stride is not 1, is left as it is.
std::unique_ptr<Module> descriptorsAsPointers(const Module& module, const std::string& kernelName,
                                              std::span<const HostDescriptorFacts> hostFacts);

}  // namespace tilesim::gpu
