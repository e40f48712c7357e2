// The random part of the program generator (see KernelGen.h): the RapidCheck generator of KernelPlans and a
// readable description of a plan for failure messages. Random buffer contents are in KernelValues.cpp;
// everything that needs the builder is in KernelGen.cpp.
#include <cmath>
#include <cstring>
#include <sstream>

#include "fuzz/programs/KernelGen.h"
#include "ir/FloatBits.h"

namespace tilesim::fuzz {

using builder::DType;

namespace {

const DType kPlanDTypes[] = {DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::UInt8, DType::UInt32,
                             DType::Fp16, DType::BF16,  DType::Fp32,  DType::Fp64,  DType::Int1};

// Elements cut from a buffer's end (the mask hides them). A multiple of 4, 8 or 16 keeps the mask `offs < n`
// constant over vector-width groups, so the GPU backend may vectorise the access (a tail of any other length
// limits it to scalars): both kinds, and the tails of 1..15 lanes past a vector boundary.
rc::Gen<int64_t> genTrim() {
  return rc::gen::weightedElement<int64_t>({{4, 0}, {1, 4}, {2, 8}, {2, 16}, {1, 24}, {1, 32}, {1, 1}, {1, 2}, {1, 3},
                                            {1, 5}, {1, 7}, {1, 9}, {1, 13}, {1, 15}, {1, 17}, {1, 31}, {1, 37}});
}

// How a buffer is addressed: about half the buffers get the plain frame's pointer, the others a view at an
// offset of 1..7 elements (every alignment below 16 bytes) or further, claims or not, i64 offsets, strides,
// shifted and shared windows, masks with holes or a lower bound (KernelPointers.cpp).
PointerPlan genPointerPlan(bool input) {
  PointerPlan pointer;
  if (*rc::gen::inRange(0, 2) == 0) return pointer;
  pointer.viewOffset = *rc::gen::weightedElement<int64_t>({{3, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6},
                                                           {1, 7}, {1, 8}, {1, 12}, {1, 33}});
  pointer.claimDivisibility = *rc::gen::weightedElement<bool>({{3, true}, {1, false}});
  pointer.offsets64 = *rc::gen::weightedElement<bool>({{1, true}, {2, false}});
  pointer.maskKind = *rc::gen::weightedElement<int>({{3, 0}, {1, 1}, {1, 2}});
  pointer.maskParam = *rc::gen::inRange(0, 64);
  if (input) {
    pointer.stride = *rc::gen::weightedElement<int64_t>({{4, 1}, {1, 2}, {1, 3}});
    pointer.shift = *rc::gen::weightedElement<int64_t>({{3, 0}, {1, 1}, {1, 2}, {1, 3}});
    pointer.shareStorage = *rc::gen::weightedElement<int>({{2, -1}, {1, 0}, {1, 1}});
    // The GPU backend's address and vector-width decisions (issue 20's surviving mutants): i32 offsets below zero
    // (a sign extension taken for a zero extension goes 16 GiB forward), and groups of lanes reading one element
    // under a mask constant over the group (a vector access that trusted alignment alone would read the group's
    // neighbours).
    pointer.rebase = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
    pointer.group = *rc::gen::weightedElement<int64_t>({{8, 1}, {1, 2}, {1, 4}, {1, 8}});
  } else {
    pointer.descriptor = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
  }
  return pointer;
}

}  // namespace

const char* nodeOpName(NodeOp op) {
  static const char* kNames[] = {"add", "sub", "mul", "truediv", "floordiv", "mod", "and", "or", "xor", "shl", "shr",
                                 "lt", "le", "gt", "ge", "eq", "ne", "maximum", "minimum", "where",
                                 "neg", "invert", "abs", "cast", "bitcast", "math", "fma", "clamp", "umulhi",
                                 "sum", "max", "min", "argmax", "argmin", "cumsum", "trans", "reshape", "gather", "reduce_product", "join", "split", "cat",
                                 "for", "while", "if", "call", "atomic_own", "atomic_shared", "dot", "histogram", "tile_gather", "fp8",
                                 "library", "assert", "barrier", "num_programs", "unsplat", "block_load", "pointer_round_trip",
                                 "descriptor_load"};
  static_assert(std::size(kNames) == static_cast<size_t>(NodeOp::kCount));
  return kNames[static_cast<int>(op)];
}

const char* featureName(uint32_t bit) {
  switch (bit) {
    case kFeatureLoops: return "loops";
    case kFeatureIf: return "if";
    case kFeatureCall: return "call";
    case kFeatureAtomics: return "atomics";
    case kFeatureDot: return "dot";
    case kFeatureMemory: return "memory";
    case kFeatureFp8: return "fp8";
    case kFeatureMisc: return "misc";
    case kFeatureUB: return "ub";
    default: return "?";
  }
}

uint32_t featureOf(NodeOp op) {
  switch (op) {
    case NodeOp::ForLoop: case NodeOp::WhileLoop: return kFeatureLoops;
    case NodeOp::IfElse: return kFeatureIf;
    case NodeOp::Call: return kFeatureCall;
    case NodeOp::AtomicOwn: case NodeOp::AtomicShared: return kFeatureAtomics;
    case NodeOp::Dot: return kFeatureDot;
    case NodeOp::Histogram: case NodeOp::TileGather: case NodeOp::BlockLoad: case NodeOp::DescriptorLoad:
      return kFeatureMemory;
    case NodeOp::Fp8: return kFeatureFp8;
    case NodeOp::Library: case NodeOp::Assert: case NodeOp::Barrier: case NodeOp::NumPrograms: case NodeOp::Unsplat:
    case NodeOp::PointerRoundTrip:
      return kFeatureMisc;
    case NodeOp::Add: case NodeOp::Sub: case NodeOp::Mul: case NodeOp::TrueDiv: case NodeOp::FloorDiv: case NodeOp::Mod:
    case NodeOp::And: case NodeOp::Or: case NodeOp::Xor: case NodeOp::Shl: case NodeOp::Shr: case NodeOp::Lt:
    case NodeOp::Le: case NodeOp::Gt: case NodeOp::Ge: case NodeOp::Eq: case NodeOp::Ne: case NodeOp::Maximum:
    case NodeOp::Minimum: case NodeOp::Where: case NodeOp::Neg: case NodeOp::Invert: case NodeOp::Abs:
    case NodeOp::Cast: case NodeOp::Bitcast: case NodeOp::Math: case NodeOp::Fma: case NodeOp::Clamp:
    case NodeOp::Umulhi: case NodeOp::Sum: case NodeOp::Max: case NodeOp::Min: case NodeOp::Argmax:
    case NodeOp::Argmin: case NodeOp::Cumsum: case NodeOp::Trans: case NodeOp::Reshape: case NodeOp::Gather:
    case NodeOp::ReduceProduct: case NodeOp::Join: case NodeOp::Split: case NodeOp::Cat: case NodeOp::kCount:
      return 0;  // the base ops: every program may use them
  }
  return 0;
}


rc::Gen<KernelPlan> genKernelPlan() {
  return rc::gen::exec([] {
    KernelPlan plan;
    // Swarm testing: each feature on with probability 1/2 (the UB lanes with 1/4).
    for (uint32_t bit = 0; bit < kFeatureCount; ++bit)
      if (*rc::gen::inRange(0, bit == 8 ? 4 : 2) == 0) plan.features |= 1u << bit;
    bool twoD = *rc::gen::arbitrary<bool>();
    // Power-of-two extents up to 64, not scaled by RapidCheck's size (small blocks hide few bugs); 1 shrinks best.
    const auto extent = rc::gen::weightedElement<int64_t>({{1, 1}, {1, 2}, {2, 4}, {3, 8}, {3, 16}, {2, 32}, {2, 64}});
    // 1-D blocks also around the thread counts where codegen changes (32 * num_warps = 32 .. 256 threads, one
    // element per thread or several, vector widths).
    const auto extent1d = rc::gen::weightedElement<int64_t>(
        {{1, 1}, {1, 2}, {1, 4}, {2, 8}, {2, 16}, {3, 32}, {2, 64}, {3, 128}, {2, 256}, {1, 512}});
    plan.block.push_back(twoD ? *extent : *extent1d);
    if (twoD) plan.block.push_back(*extent);
    plan.grid = *rc::gen::inRange<int64_t>(1, 5);
    int numInputs = *rc::gen::inRange(1, 4);
    for (int i = 0; i < numInputs; ++i) {
      InputPlan input;
      input.dtype = *rc::gen::elementOf(std::vector<DType>(std::begin(kPlanDTypes), std::end(kPlanDTypes)));
      input.trim = *genTrim();
      input.withOther = *rc::gen::weightedElement<bool>({{3, true}, {1, false}});
      input.sanitize = *rc::gen::arbitrary<bool>();
      input.otherIndex = *rc::gen::inRange(0, 8);
      input.pointer = genPointerPlan(true);
      // A shared window reads another input's storage: same dtype (the views alias one typed buffer).
      const int share = input.pointer.shareStorage;
      if (share >= 0 && share < i) input.dtype = plan.inputs[static_cast<size_t>(share)].dtype;
      input.convert = *rc::gen::weightedElement<int>({{2, 0}, {1, *rc::gen::inRange(1, 10)}});
      plan.inputs.push_back(input);
    }
    int numNodes = *rc::gen::inRange(0, 21);
    std::vector<NodeOp> allOps;
    for (int op = 0; op < static_cast<int>(NodeOp::kCount); ++op) {
      const uint32_t feature = featureOf(static_cast<NodeOp>(op));
      if (feature == 0 || (plan.features & feature)) allOps.push_back(static_cast<NodeOp>(op));
      // Features get more weight than one op of the base table each, so that enabled ones do appear.
      if (feature != 0 && (plan.features & feature)) allOps.push_back(static_cast<NodeOp>(op));
    }
    for (int i = 0; i < numNodes; ++i) {
      Node node;
      node.op = *rc::gen::elementOf(allOps);  // uniform: inRange would favour the first ops at small sizes
      node.a = *rc::gen::inRange<uint32_t>(0, 64);
      node.b = *rc::gen::inRange<uint32_t>(0, 64);
      node.c = *rc::gen::inRange<uint32_t>(0, 64);
      node.literalB = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
      node.literalIndex = *rc::gen::inRange(0, 16);
      node.castTo = *rc::gen::elementOf(std::vector<DType>(std::begin(kPlanDTypes), std::end(kPlanDTypes)));
      node.variant = *rc::gen::inRange(0, 12);
      node.axis = *rc::gen::inRange(0, 2);
      plan.nodes.push_back(node);
    }
    int numOutputs = *rc::gen::inRange(1, 4);
    for (int j = 0; j < numOutputs; ++j) {
      // Prefer the newest values: the end of the DAG is what the nodes built.
      plan.outputs.push_back(static_cast<uint32_t>(numInputs + numNodes - 1 - *rc::gen::inRange(0, 3)));
      plan.outputTrims.push_back(*genTrim());
      plan.outputPointers.push_back(genPointerPlan(false));
    }
    plan.dataSeed = *rc::gen::arbitrary<uint64_t>();
    plan.numWarps = *rc::gen::weightedElement<int>({{1, 1}, {1, 2}, {3, 4}, {1, 8}});
    // The backend vectorises an access only where each thread holds several consecutive elements (16 bytes of
    // f32: 4), and small blocks over many warps give one element a thread: in a third of the programs num_warps
    // drops until each thread holds at least 4 elements of the block, where it can (issue 20: the vector-width
    // and alignment mutants were reached by 0 of 300 programs without it).
    int64_t numel = 1;
    for (int64_t extent : plan.block) numel *= extent;
    if (*rc::gen::weightedElement<bool>({{2, false}, {1, true}}))
      while (plan.numWarps > 1 && numel < int64_t{4} * 32 * plan.numWarps) plan.numWarps /= 2;
    return plan;
  });
}


static std::string describePointer(const PointerPlan& p) {
  if (p.plain()) return "";
  std::ostringstream out;
  if (p.viewOffset) out << " view+" << p.viewOffset;
  if (p.shareStorage >= 0) out << " shares-in" << p.shareStorage;
  if (!p.claimDivisibility) out << " no-divisibility";
  if (p.offsets64) out << " i64";
  if (p.group > 1) out << " groups-of-" << p.group;
  if (p.stride != 1 || p.shift) out << " index*" << p.stride << "+" << p.shift;
  if (p.rebase) out << " from-the-middle";
  if (p.maskKind) out << " mask" << p.maskKind << "/" << p.maskParam;
  if (p.descriptor) out << " descriptor";
  return out.str();
}

std::string describePlan(const KernelPlan& plan) {
  std::ostringstream out;
  out << "block [";
  for (size_t i = 0; i < plan.block.size(); ++i) out << (i ? "x" : "") << plan.block[i];
  out << "] grid " << plan.grid << " num_warps " << plan.numWarps << " seed " << plan.dataSeed << " features";
  for (uint32_t bit = 1; bit < (1u << kFeatureCount); bit <<= 1)
    if (plan.features & bit) out << " " << featureName(bit);
  out << "\n";
  for (size_t i = 0; i < plan.inputs.size(); ++i)
    out << "  in" << i << ": " << builder::dtypeName(plan.inputs[i].dtype) << " trim " << plan.inputs[i].trim
        << (plan.inputs[i].withOther ? " other" : plan.inputs[i].sanitize ? " no-other+where" : " no-other")
        << describePointer(plan.inputs[i].pointer)
        << (plan.inputs[i].convert ? " convert" + std::to_string(plan.inputs[i].convert) : "") << "\n";
  for (const Node& n : plan.nodes)
    out << "  " << nodeOpName(n.op) << " a=" << n.a << " b=" << (n.literalB ? "lit" : std::to_string(n.b)) << " c=" << n.c
        << " to=" << builder::dtypeName(n.castTo) << " variant=" << n.variant << " axis=" << n.axis << "\n";
  for (size_t j = 0; j < plan.outputs.size(); ++j)
    out << "  store v" << plan.outputs[j] << (j < plan.outputPointers.size() ? describePointer(plan.outputPointers[j]) : "") << "\n";
  return out.str();
}

}  // namespace tilesim::fuzz
