// The random part of the program generator (see KernelGen.h): the RapidCheck generator of KernelPlans, random
// buffer contents, and a readable description of a plan for failure messages. Everything that needs the builder
// is in KernelGen.cpp.
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

}  // namespace

std::vector<uint8_t> randomBuffer(DType dtype, int64_t count, std::mt19937_64& rng) {
  ScalarKind kind = builder::scalarKindOf(dtype);
  const int bytes = storageBytes(kind);
  std::vector<uint8_t> data(static_cast<size_t>(count * bytes));
  for (int64_t i = 0; i < count; ++i) {
    uint64_t bits = rng();
    int style = static_cast<int>(rng() % 10);
    if (kind == ScalarKind::I1) {
      bits &= 1;
    } else if (isFloatKind(kind)) {
      static const double kSpecial[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-40, -1e-310, 65504.0, 3.0e38, 1.0};
      if (style < 6) bits = floatBitsFromDouble(static_cast<double>(static_cast<int64_t>(rng() % 33) - 16) / 2.0, kind);
      else if (style < 8) bits = floatBitsFromDouble(kSpecial[rng() % std::size(kSpecial)], kind);
    } else if (style < 5) {
      bits = static_cast<uint64_t>(static_cast<int64_t>(rng() % 21) - 10);
    } else if (style < 7) {
      const uint64_t kEdges[] = {0, ~uint64_t{0}, uint64_t{1} << (bitWidth(kind) - 1), (uint64_t{1} << (bitWidth(kind) - 1)) - 1};
      bits = kEdges[rng() % 4];
    }
    std::memcpy(data.data() + i * bytes, &bits, static_cast<size_t>(bytes));
  }
  return data;
}


const char* nodeOpName(NodeOp op) {
  static const char* kNames[] = {"add", "sub", "mul", "truediv", "floordiv", "mod", "and", "or", "xor", "shl", "shr",
                                 "lt", "le", "gt", "ge", "eq", "ne", "maximum", "minimum", "where",
                                 "neg", "invert", "abs", "cast", "bitcast", "math", "fma", "clamp", "umulhi",
                                 "sum", "max", "min", "argmax", "argmin", "cumsum", "trans", "reshape", "gather", "reduce_product", "join", "split", "cat",
                                 "for", "while", "if", "call", "atomic_own", "atomic_shared", "dot", "histogram", "tile_gather", "fp8",
                                 "library", "assert", "barrier", "num_programs", "unsplat", "block_load", "pointer_round_trip"};
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
    case NodeOp::Histogram: case NodeOp::TileGather: case NodeOp::BlockLoad: return kFeatureMemory;
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
      input.trim = *rc::gen::inRange<int64_t>(0, 40);
      input.withOther = *rc::gen::weightedElement<bool>({{3, true}, {1, false}});
      input.sanitize = *rc::gen::arbitrary<bool>();
      input.otherIndex = *rc::gen::inRange(0, 8);
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
      plan.outputTrims.push_back(*rc::gen::inRange<int64_t>(0, 20));
    }
    plan.dataSeed = *rc::gen::arbitrary<uint64_t>();
    plan.numWarps = *rc::gen::weightedElement<int>({{1, 1}, {1, 2}, {3, 4}, {1, 8}});
    return plan;
  });
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
        << (plan.inputs[i].withOther ? " other" : plan.inputs[i].sanitize ? " no-other+where" : " no-other") << "\n";
  for (const Node& n : plan.nodes)
    out << "  " << nodeOpName(n.op) << " a=" << n.a << " b=" << (n.literalB ? "lit" : std::to_string(n.b)) << " c=" << n.c
        << " to=" << builder::dtypeName(n.castTo) << " variant=" << n.variant << " axis=" << n.axis << "\n";
  for (uint32_t o : plan.outputs) out << "  store v" << o << "\n";
  return out.str();
}

}  // namespace tilesim::fuzz
