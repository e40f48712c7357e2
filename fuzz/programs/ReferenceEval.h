// The fuzzer's independent oracle: a deliberately simple evaluator that walks a kernel op by op and computes every
// lane on its own with the fuzzer's own scalar semantics, OracleScalar.h (never ir/eval's scalar code, except the
// transcendental math ReferenceLanes.cpp lists, nor the interpreter's tile loops, fast paths, lane gathers or
// vectorised combine regions). Shape ops, loads, stores, masks, reductions (the tree
// over index bits, lowest bit first) and scans (Kogge-Stone) are written out plainly from docs/semantics.md. Programs run one after another.
//
// It covers the ops the program generator emits (KernelGen.h): elementwise arith/math, casts, constants, ranges,
// splat/broadcast/expand_dims/unsplat, addptr, masked loads and stores, tt.reduce and tt.scan with any combine
// region, scf.for/while/if, tt.call, atomics (lanes in order), tt.dot (sequential fma), tt.histogram, tt.gather,
// tt.assert (must hold), gpu.barrier, get_num_programs, block pointers, tensor descriptors (make_tensor_descriptor,
// descriptor_load/store; not gather/scatter), views (alias_of arguments: a buffer of their own, filled from the
// storage's window and written back to it at the end).
// Anything else is an error, so a generator extension cannot silently go unchecked.
//
// Undefined lanes follow the documented rule: a masked-off load lane without `other` is undefined; any undefined
// operand lane makes the result lane undefined, except that select only looks at the side it picks. An undefined
// lane stored by an active store lane (or an undefined mask or address) is what the interpreter must report.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/launch/Launch.h"
#include "ir/IR.h"

namespace tilesim::fuzz {

struct ReferenceOutcome {
  std::vector<std::vector<uint8_t>> buffers;  // each buffer argument after the launch, in argument order
  // Per buffer element: 1 where an undefined lane was stored. Its bits are unspecified (the interpreter reports
  // the store and may, e.g., skip a load whose address was undefined), so comparisons skip these elements.
  std::vector<std::vector<uint8_t>> undefinedElements;
  bool undefinedReachesMemory = false;        // the interpreter must report UndefinedUse exactly then
  bool undefinedBehaviour = false;            // a defined lane is UB for LLVM: --check=ub must report it
  bool undefinedBehaviourPossible = false;    // an undefined lane reaches a UB-capable op: a report is allowed
  bool outOfBounds = false;                   // never expected from generated kernels
  bool assertFails = false;                   // never expected either: generated asserts are always true
  std::string error;                          // an op the reference cannot evaluate; empty on success
};

// Runs `kernel` over `grid` on copies of `arguments` (bound to its parameters by bindLaunch, ir/launch/Binding.h,
// as both engines bind them: a launch they reject, the reference rejects with the same message; a float scalar
// is rounded to its parameter's type by the oracle's own conversion). `profile` picks the math functions' values:
// the exact profile's own algorithms or the correctly rounded ones (triton).
// `module` holds the functions tt.call names (null: a kernel without calls).
// Whether the reference's result can depend on the float profile: only the math functions with an algorithm of
// their own (exp, exp2, log, log2, sin, cos, rsqrt, erf) and float atomic adds (f32 flush to zero) read the
// profile. Without them both profiles give the same outcome bit for bit, so one run serves both
// (`ProgramFuzz.ProfileIndependentReferencesAgree` holds this to the two runs).
bool referenceDependsOnProfile(const Module& module);

ReferenceOutcome runReference(const Function& kernel, const std::vector<LaunchArgument>& arguments,
                              std::array<int64_t, 3> grid, FloatProfile profile = FloatProfile::Exact,
                              const Module* module = nullptr);

}  // namespace tilesim::fuzz
