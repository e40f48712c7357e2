// The launch contract every engine implements: what to run (module, kernel, arguments, grid, num_warps), how
// (LaunchOptions), and what comes back (LaunchResult, Report.h). Buffers are host byte arrays, so any engine —
// the interpreter, the GPU backend — can fill them, and the runner can compare them without knowing which ran.
//
//   Launch launch;
//   launch.module = &module; launch.kernel = *module.kernel();
//   launch.arguments = {LaunchArgument::buffer("x_ptr", ScalarKind::F32, bytes), LaunchArgument::integer("n", 5000)};
//   launch.grid = {10, 1, 1};
//   LaunchOutcome outcome = engine.run(launch, options);  // buffers in launch.arguments hold the outputs
//
// Arguments are bound to the tt.func parameters by position when they carry one (`parameter`: the Python
// package, which knows Triton's signature) and otherwise by name (the CLI's --arg name=..., case files; Triton
// drops parameters it specialised to constants; arguments with no parameter of their name are ignored and listed
// in result.unusedArguments). A missing or ill-typed argument is a Diagnostic naming it. Every engine binds
// through one function, bindLaunch (Binding.h).
//
// Shared memory. A buffer argument may be an *alias*: a pointer into another buffer argument's storage at a byte
// offset (in-place kernels pass one tensor as two pointers; a view starts mid-buffer). The launch then has one
// buffer and several pointers, exactly as the GPU sees it: out-of-bounds and races are judged against the real
// storage. An alias's `bytes` only give the size of its view before the launch (its contents are the storage's);
// after the launch they hold the view's final contents, like any other buffer.
#pragma once

#include <array>
#include <functional>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/Diagnostic.h"
#include "ir/IR.h"
#include "ir/Type.h"
#include "ir/launch/Profiles.h"
#include "ir/launch/Report.h"

namespace tilesim {

struct LaunchArgument {
  enum class Kind : uint8_t { Buffer, Scalar };
  std::string name;
  Kind kind = Kind::Scalar;
  // Buffer: element type and contents (row-major bytes), updated in place by the launch.
  ScalarKind elementKind = ScalarKind::F32;
  std::vector<uint8_t> bytes;
  // Optional: where the caller keeps a copy of `bytes` as they were before the launch, unchanged while it runs
  // (the Python binding's host memory). The interpreter then re-reads the inputs from there for the
  // single-thread rerun of a launch that raced, instead of copying every buffer up front.
  const uint8_t* pristine = nullptr;
  // Buffer aliases: the name of the buffer argument whose storage this pointer points into, and the byte offset
  // of the view's start there. Empty: the argument owns its storage.
  std::string aliasOf;
  uint64_t aliasOffset = 0;
  // After the launch, per element of the buffer: the error bound of the value last stored there under the
  // triton float profile, or under the exact profile where the GPU's value is not determined (approximate inline
  // PTX, a contended float atomic add; interpreter/LaunchPreparation.cpp) (0 = must match the GPU bit for bit). Empty when
  // every element is exact.
  std::vector<double> errorBound;
  // Buffer passed as a host tensor descriptor (triton.tools.tensor_descriptor.TensorDescriptor over the
  // buffer's start): binds to a !tt.tensordesc parameter and, as Triton 3.6's launcher expands it, to the
  // 2 x rank parameters after it (the shape as i32, then the strides as i64). Empty descShape: a plain buffer.
  std::vector<int64_t> descShape, descStrides, descBlockShape;
  int descPadding = 1;  // 1 = zero, 2 = NaN
  // Scalar: the value; bound to the parameter's type (ints must fit its width, floats round to it).
  bool scalarIsFloat = false;
  int64_t intValue = 0;
  double floatValue = 0.0;
  // The kernel parameter this argument binds to, by position (what a GPU launch does: Triton's launcher passes
  // arguments in the signature's order, and TTIR need not keep their names: Triton may print parameter `M` as
  // `%b_desc`). -1: bound by name. A tensor descriptor's position is its !tt.tensordesc parameter's.
  int parameter = -1;

  bool isBuffer() const { return kind == Kind::Buffer; }
  bool isAlias() const { return kind == Kind::Buffer && !aliasOf.empty(); }
  bool isTensorDesc() const { return kind == Kind::Buffer && !descShape.empty(); }

  static LaunchArgument buffer(std::string name, ScalarKind kind, std::vector<uint8_t> bytes);
  // A view of `sizeBytes` bytes into buffer argument `target`, starting `offsetBytes` into its storage.
  static LaunchArgument alias(std::string name, ScalarKind kind, std::string target, uint64_t offsetBytes,
                              uint64_t sizeBytes);
  static LaunchArgument integer(std::string name, int64_t value);
  static LaunchArgument floating(std::string name, double value);
};

enum class ProgramOrder : uint8_t { Forward, Reverse, Shuffled };

// How Triton spreads one tt.reduce's operand along the reduced axis over a GPU's threads (from the kernel's
// TTGIR #ttg.blocked layout, conformance/runner/TtgirLayouts.h): elements per thread, lanes and warps along the
// axis, each already limited to the axis extent (no broadcast). With it the interpreter combines in Triton's
// order (docs/semantics.md "Reductions and scans"): a sequential fold over each thread's registers in register
// order, then a shuffle butterfly over the lanes (xor 16, 8, ..., 1), then the same over the warps.
struct ReduceAxisLayout {
  int64_t sizePerThread = 1, threadsPerWarp = 1, warpsPerCTA = 1;
  // The operand is an f32 arith.mulf used only by this addf reduce: LLVM (fp-contract=fast) fuses each product
  // into the per-thread fold, acc = fma(a_j, b_j, acc), the first two as fma(a_0, b_0, round(a_1 b_1)).
  bool fusedMultiply = false;
};

struct LaunchOptions {
  FloatProfile profile = FloatProfile::Exact;
  bool checks = true;          // out-of-bounds, undefined lanes, races, asserts
  bool checkUB = false;        // also report integer division by zero, oversized shifts, ... (--check=ub)
  int threads = 0;             // host threads (interpreter); 0 = all
  ProgramOrder order = ProgramOrder::Forward;  // the order programs are started in (the interpreter's; a GPU has none)
  uint64_t shuffleSeed = 1;
  // ttg.warp_specialize's partitions run one at a time; 0: each runs until it blocks (an mbarrier wait not yet
  // satisfied) or ends, then the next in order (round robin). Any other value seeds a random choice of the next
  // partition at every mbarrier op and every 64 ops, exploring other interleavings (docs/ttgir.md, "Gluon").
  uint64_t scheduleSeed = 0;
  int maxReportsPerKind = 10;  // further reports of a kind are counted, not stored
  bool echoPrints = true;      // tt.print output to stdout (in program order)
  // Hostile-input budgets. A program that executes more than maxSteps ops (loop iterations count as ops too)
  // ends with a StepLimit report naming the innermost loop; 0 = no limit. At most maxPrintLines tt.print lines
  // are kept (those of the lowest program ids); the rest are counted in LaunchResult::droppedPrintLines.
  uint64_t maxSteps = uint64_t{1} << 24;  // about a second of one program; conformance cases stay below 10^5
  int64_t maxPrintLines = 100000;
  // Asked on the thread that started the launch, about every 50 ms while programs run (the Python binding
  // checks for Ctrl-C there). true stops the launch: programs not yet started are skipped, running ones stop
  // within 1024 steps, and the engine returns a diagnostic instead of a result. Empty: never asked.
  std::function<bool()> interrupted;
  // Triton's combine order for these tt.reduce ops (the runner fills it when a case has kernel.ttgir); every
  // other reduce keeps the contract order, a tree over the index bits, lowest first.
  std::map<const Operation*, ReduceAxisLayout> reduceLayouts;

  // The options of a run whose results a harness compares with other runs (the conformance runner, the fuzzer's
  // program check): one profile, program order and host thread count, and tt.print lines kept in the result
  // rather than echoed, so that several runs do not interleave their prints on stdout.
  static LaunchOptions comparedRun(FloatProfile profile, ProgramOrder order, int threads);
};

struct Launch {
  const Module* module = nullptr;
  std::optional<Function> kernel;
  std::vector<LaunchArgument> arguments;
  std::array<int64_t, 3> grid{1, 1, 1};
  int numWarps = 4;  // Triton's num_warps: the GPU engine's block size is 32 * numWarps threads
  // Triton's num_stages: how many k-loop iterations the GPU engine's pipelined loops stage ahead, plus one
  // (gpu_backend/lowering/PipelinedLoop.cpp; 1: none). Triton's default is 3.
  int numStages = 3;
};

// What an engine returns: diagnostics instead of a result when the launch gives none. Most say why it could not
// start (bad arguments, unsupported IR, a kernel that does not compile); `kernelFailed` marks those that say the
// kernel started and then failed on the device (a fault, a trap, a dead or stopped worker): the program's
// failure, which `tilesim run` reports as a failed run rather than as bad input.
struct LaunchOutcome {
  Diagnostics diagnostics;
  LaunchResult result;
  bool kernelFailed = false;
  bool started() const { return diagnostics.empty(); }
};

// Where each buffer argument's bytes live: the argument that owns the storage and the byte offset into it.
// For an owner, {itself, 0}; for an alias, its target's storage (aliases of aliases are followed). Scalars: {i, 0}.
struct BufferPlacement {
  size_t storage = 0;
  uint64_t offset = 0;
};

// The index in launch.arguments of the argument bound to kernel parameter `p` (by position first, then by name:
// the first argument of the parameter's binding name that carries no position), or launch.arguments.size().
size_t argumentForParameter(const Launch& launch, size_t p);

// Checks the buffer arguments every engine needs to agree on (sizes are whole elements, alias targets exist and
// are buffers, no alias cycle, every view lies inside its storage, argument names are unique) and places them.
// Returns diagnostics naming the argument at fault; on success `placements` has one entry per argument.
Diagnostics placeBuffers(const Launch& launch, std::vector<BufferPlacement>& placements);

// Triton specialises a kernel on `tt.divisibility = N` of its parameters (a pointer's address, an integer's
// value, a multiple of N); a launch that breaks it runs code compiled for another launch, which on a GPU means
// vectorised accesses that skip or corrupt elements. Every engine's storage starts at an address aligned far
// beyond any N Triton claims, so a pointer's divisibility is its byte offset's. Returns one diagnostic per broken
// precondition, naming the argument.
Diagnostics checkSpecialisation(const Launch& launch, const std::vector<BufferPlacement>& placements);

// After a launch: copies each alias's view (bytes and error bounds) out of its storage, so every argument holds
// its final contents. `placements` is what placeBuffers gave.
void refreshAliasViews(Launch& launch, const std::vector<BufferPlacement>& placements);

}  // namespace tilesim
