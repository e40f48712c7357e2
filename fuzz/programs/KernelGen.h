// Random well-defined Triton-like kernels for the differential property (ProgramFuzzTest.cpp). A KernelPlan is
// plain data that RapidCheck generates and shrinks (fewer nodes, smaller shapes, simpler dtypes); buildKernel turns
// it into a verified module with the builder (ir/builder/KernelBuilder.h), the way a kernel author would write it
// in triton.language:
//
//   pid = tl.program_id(0); offs = pid * BLOCK + arange (1-D) or row/column aranges (2-D)
//   x_i = tl.load(in_i + offs, mask=offs < n_i[, other=lit])     [optionally tl.where(mask, x_i, 0)]
//   v_k = op(v_a, v_b | literal)                                   (the node DAG)
//   tl.store(out_j + offs_j, v_j, mask=offs_j < m_j)
//
// Nodes refer to earlier values by index modulo the values built so far, so any subset of nodes is a valid plan
// (that is what makes shrinking work). Operands are legalised before each call (divisors `x | 1`, shift amounts
// masked to the width, floats cast before bitwise ops, math on fp32, ...); a node the builder still rejects
// (a FrontendError, e.g. an out-of-range literal) is dropped and the kernel rebuilt without it.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "ir/launch/Launch.h"
#include "ir/IR.h"
#include "ir/builder/DType.h"

namespace tilesim::fuzz {

enum class NodeOp : uint8_t {
  Add, Sub, Mul, TrueDiv, FloorDiv, Mod, And, Or, Xor, Shl, Shr,
  Lt, Le, Gt, Ge, Eq, Ne, Maximum, Minimum, Where,
  Neg, Invert, Abs, Cast, Bitcast, Math, Fma, Clamp, Umulhi,
  Sum, Max, Min, Argmax, Argmin, Cumsum, Trans, Reshape, Gather, ReduceProduct, Join, Split, Cat,
  // Swarm features (Feature bits below); each needs its bit in KernelPlan::features.
  ForLoop, WhileLoop, IfElse, Call, AtomicOwn, AtomicShared, Dot, Histogram, TileGather, Fp8, Library, Assert,
  Barrier, NumPrograms, Unsplat, BlockLoad, PointerRoundTrip, DescriptorLoad,
  kCount,
};

// Swarm testing: a program may use the node ops of the features its plan enables (the base ops always).
enum Feature : uint32_t {
  kFeatureLoops = 1u << 0,      // scf.for with a runtime trip count, scf.while
  kFeatureIf = 1u << 1,         // scf.if with results
  kFeatureCall = 1u << 2,       // tt.call of a private helper
  kFeatureAtomics = 1u << 3,    // tt.atomic_rmw / tt.atomic_cas: one lane per address, or commutative int ops
  kFeatureDot = 1u << 4,        // tt.dot at tensor-core shapes, every input dtype
  kFeatureMemory = 1u << 5,     // tt.histogram, tt.gather, block pointers, tensor descriptor loads
  kFeatureFp8 = 1u << 6,        // fp8e4nv / fp8e5 casts (tt.fp_to_fp)
  kFeatureMisc = 1u << 7,       // precise div/sqrt, erf, negf, arith.bitcast, unsplat, assert, barrier, num_programs
  kFeatureUB = 1u << 8,         // allow lanes with undefined behaviour (literal 0 divisors, float->int out of range)
  kFeatureCount = 9,
};
const char* featureName(uint32_t bit);
uint32_t featureOf(NodeOp op);  // 0 for the base ops
const char* nodeOpName(NodeOp op);

struct Node {
  NodeOp op = NodeOp::Add;
  uint32_t a = 0, b = 0, c = 0;   // operand value indices (modulo the number of values so far)
  bool literalB = false;          // second operand is a literal (weak or strong, by the op)
  int literalIndex = 0;           // which literal from the dtype-appropriate table
  builder::DType castTo = builder::DType::Int32;
  int variant = 0;                // math function, NaN propagation, keep_dims, reverse
  int axis = 0;                   // reductions and scans (modulo the rank)
};

// How the kernel addresses one of its buffers (pointer and offset diversity, docs/fuzzing.md). The default is the
// plain frame: the buffer owns its storage, `tt.divisibility = 16`, i32 offsets `offs`, mask `offs < n`.
struct PointerPlan {
  int64_t viewOffset = 0;          // elements between its storage's start and the view (an alias_of argument)
  bool claimDivisibility = true;   // tt.divisibility: the largest honest power of two <= 16 bytes, or no claim
  bool offsets64 = false;          // i64 offsets (offs extended before the multiply-add)
  int64_t stride = 1;              // inputs: element index = offs * stride + shift
  int64_t shift = 0;
  int maskKind = 0;                // 0 `idx < n`; 1 and `offs % k != r`; 2 and `offs >= lo`
  int maskParam = 0;               // k, r or lo, from this number
  int shareStorage = -1;           // inputs: an earlier input of the same dtype whose storage this view shares
  bool descriptor = false;         // outputs: stored through a tensor descriptor (tt.descriptor_store)
  // inputs: the pointer first advanced to the middle of the view (a scalar tt.addptr by half its length), then
  // indexed by `index - half`: offsets below zero in the lanes before it, the same elements read.
  bool rebase = false;
  // inputs: lanes read in groups (2, 4, 8; 1: no groups), before the stride: in a 2-D block every lane of a row
  // reads the row's first element (rows[:, None] * C broadcast: AxisInfo constancy C, contiguity 1, aligned), in
  // a 1-D block groups of this many lanes read one element ((offs / group) * group).
  int64_t group = 1;
  bool plain() const {
    return viewOffset == 0 && claimDivisibility && !offsets64 && stride == 1 && shift == 0 && maskKind == 0 &&
           shareStorage < 0 && !descriptor && !rebase && group == 1;
  }
};

struct InputPlan {
  builder::DType dtype = builder::DType::Fp32;
  int64_t trim = 0;               // elements missing from the end of the buffer (the mask hides them)
  bool withOther = true;          // masked load with `other`, or without (lanes past the end are undefined)
  bool sanitize = false;          // without `other`: tl.where(mask, x, 0) right after the load
  int otherIndex = 0;
  PointerPlan pointer;
  // Value diversity: 1.. converts the loaded value right away (kLoadConversions in KernelPointers.cpp: narrower
  // floats with either rounding, fp8, integers; integer inputs to floats), and its buffer's rounding-tie values
  // aim at that conversion. 0: none.
  int convert = 0;
};

struct KernelPlan {
  std::vector<int64_t> block;     // {N} or {R, C}, powers of two
  int64_t grid = 1;
  std::vector<InputPlan> inputs;
  std::vector<Node> nodes;
  std::vector<uint32_t> outputs;  // value indices to store (modulo the number of values)
  std::vector<int64_t> outputTrims;
  std::vector<PointerPlan> outputPointers;  // per output (missing: plain); stride, shift, shareStorage unused
  uint64_t dataSeed = 0;
  int numWarps = 4;               // Triton's num_warps (1, 2, 4, 8): the GPU engine's block size
  uint32_t features = 0;          // swarm testing: the Feature bits this program may use (KernelGen.cpp)
};

rc::Gen<KernelPlan> genKernelPlan();

// A built kernel: the module (verified), the launch arguments with random inputs, and a readable summary.
struct BuiltKernel {
  std::unique_ptr<Module> module;
  // [storage buffers of views: in_storage0.., out_storage0..], in0.., atom0.., out0..; buffers filled from
  // plan.dataSeed. A view (alias_of a storage) holds a copy of its window of the storage.
  std::vector<LaunchArgument> arguments;
  std::vector<builder::DType> argumentDTypes;
  std::array<int64_t, 3> grid{1, 1, 1};
  int numWarps = 4;
  std::vector<std::string> droppedNodes;  // nodes the builder rejected, with its message
  std::vector<uint8_t> nodeMadeValue;     // per plan node: 1 when it added a value (operands index those)
  std::string summary;                    // one line per node, for failure messages
  std::string error;                      // the builder failed outside a node (a builder or generator bug)
};
BuiltKernel buildKernel(const KernelPlan& plan);

std::string describePlan(const KernelPlan& plan);

// Random buffer contents with the values that find bugs: small values, zeros, signs, extremes, NaN, inf, subnormals.
// `convertsTo`: the dtype the program converts these values to first (Int1: none); the tie values aim at it.
std::vector<uint8_t> randomBuffer(builder::DType dtype, int64_t count, std::mt19937_64& rng,
                                  builder::DType convertsTo = builder::DType::Int1);

}  // namespace tilesim::fuzz
