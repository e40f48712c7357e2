// Building random kernels from plans (see KernelGen.h; the plans themselves come from KernelPlan.cpp): the frame
// of every kernel (parameters, offsets, masked loads of the inputs, stores of the outputs), operand choice and
// legalisation, and buildKernel, which drops the nodes the builder rejects. The nodes themselves are built in
// KernelNodes.cpp and KernelFeatureNodes.cpp (KernelWriter.h). The plan only picks numbers; every typing
// decision is the builder's (Triton 3.6's rules), and the few operand fixes keep programs well defined or avoid
// compile errors that would only waste a node.
#include "fuzz/programs/KernelGen.h"

#include <cmath>
#include <random>

#include "fuzz/programs/KernelWriter.h"

namespace tilesim::fuzz {
namespace kernelgen {

Literal literalFor(int index, bool floating) {
  if (floating) return Literal(kFloatLiterals[index % std::size(kFloatLiterals)]);
  return Literal(kIntLiterals[index % std::size(kIntLiterals)]);
}

Literal safeLiteral(int index, bool floating) {
  return floating ? Literal(kFloatLiterals[index % 8]) : Literal(kIntLiterals[index % 8]);
}

bool broadcastable(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    int64_t x = a[a.size() - 1 - i], y = b[b.size() - 1 - i];
    if (x != y && x != 1 && y != 1) return false;
  }
  return true;
}

// Builds the kernel; returns the index of the node the builder rejected, -1 for none, -2 for an error outside
// the nodes (loads, stores: a generator or builder bug).
int KernelWriter::build() {
  planInputViews();
  for (size_t i = 0; i < plan_.inputs.size(); ++i) {
    const InputPlan& input = plan_.inputs[i];
    inputs_.push_back(kb_.pointerArgWithDivisibility("in" + std::to_string(i), input.dtype,
                                                     claimedDivisibility(input.pointer, inputViews_[i].offset, input.dtype)));
  }
  pid_ = kb_.programId(0);
  indices_.push_back(pid_);
  Tensor offs = offsets(plan_.block);
  indices_.push_back(offs);
  for (size_t i = 0; i < plan_.inputs.size(); ++i) {
    values_.push_back(loadInput(i, offs));
    if (Tensor converted = convertInput(i, values_.back()); converted.valid()) values_.push_back(converted);
  }
  if (kb_.failed()) return -2;
  for (size_t n = 0; n < plan_.nodes.size(); ++n) {
    if (skip_[n]) continue;
    const uint32_t feature = featureOf(plan_.nodes[n].op);
    if (feature && !(plan_.features & feature)) continue;  // swarm: this program has the feature off
    currentNode_ = n;
    Tensor result = node(plan_.nodes[n]);
    if (kb_.failed()) return static_cast<int>(n);
    if (result.valid()) values_.push_back(result);
    madeValue_[n] = result.valid() ? 1 : 0;
  }
  // Output pointers are parameters after the inputs: their pointee is the dtype of the value stored.
  for (size_t j = 0; j < plan_.outputs.size(); ++j) {
    const Tensor& value = values_[plan_.outputs[j] % values_.size()];  // never pid/offs
    stored_.push_back(value);
    storeOutput(j, value);
  }
  kb_.ret();
  return kb_.failed() ? -2 : -1;
}

int64_t KernelWriter::blockNumel(const std::vector<int64_t>& shape) const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t KernelWriter::inputLength(size_t i) const {
  const PointerPlan& pointer = plan_.inputs[i].pointer;
  return (inputLanes(i) - 1) * std::max<int64_t>(1, pointer.stride) + std::max<int64_t>(0, pointer.shift) + 1;
}

int64_t KernelWriter::outputLength(size_t j) const {
  const Tensor& value = stored_[j];
  int64_t full = plan_.grid * (value.isBlock() ? blockNumel(value.shape) : 1);
  int64_t trim = j < plan_.outputTrims.size() ? plan_.outputTrims[j] : 0;
  return value.isBlock() ? std::max<int64_t>(1, full - trim % full) : full;
}

// pid * numel(shape) + the row-major index of each lane: sum over dims of arange * stride, each arange
// expanded to the full rank (rows[:, None] * C + cols[None, :] in 2-D).
Tensor KernelWriter::offsets(const std::vector<int64_t>& shape) {
  Tensor index;
  int64_t stride = 1;
  const int rank = static_cast<int>(shape.size());
  for (int d = rank - 1; d >= 0; --d) {
    Tensor term = kb_.arange(0, shape[d]);
    for (int k = 0; k < d; ++k) term = kb_.expandDims(term, 0);
    for (int k = d + 1; k < rank; ++k) term = kb_.expandDims(term, k);
    if (stride != 1) term = kb_.mul(term, Literal(static_cast<long long>(stride)));
    index = index.valid() ? kb_.add(term, index) : term;
    stride *= shape[d];
  }
  return kb_.add(kb_.mul(pid_, Literal(static_cast<long long>(blockNumel(shape)))), index);
}

// One operand in eight is pid or offs (the index values); the rest are loads and node results.
// fp8 values only get stored and converted: Triton has no fp8 arithmetic, so an operand that is fp8 is read
// as fp32 (exact).
Tensor KernelWriter::pick(uint32_t index) {
  if (index % 8 == 7) return indices_[(index / 8) % indices_.size()];
  const Tensor& value = values_[index % values_.size()];
  return builder::isFp8(value.dtype) ? kb_.cast(value, DType::Fp32) : value;
}

// Makes b's shape combine with a's: a 1-D [R] against a 2-D [R, C] becomes [R, 1].
bool KernelWriter::fitShapes(Tensor& a, Tensor& b) {
  if (broadcastable(a.shape, b.shape)) return true;
  if (a.rank() == 1 && b.rank() == 2 && a.shape[0] == b.shape[0]) a = kb_.expandDims(a, 1);
  else if (b.rank() == 1 && a.rank() == 2 && b.shape[0] == a.shape[0]) b = kb_.expandDims(b, 1);
  return broadcastable(a.shape, b.shape);
}

// `/ // %` on two integers of different signedness is a TypeError (bool counts as unsigned): cast b to a's
// dtype (bools become int32 first).
void KernelWriter::matchSignedness(Tensor& a, Tensor& b) {
  if (isFloat(a) || isFloat(b)) return;
  if (a.dtype == DType::Int1) a = kb_.cast(a, DType::Int32);
  if (b.dtype != a.dtype && builder::isSignedInt(a.dtype) != builder::isSignedInt(b.dtype)) b = kb_.cast(b, a.dtype);
  if (b.dtype == DType::Int1) b = kb_.cast(b, DType::Int32);
}

// float -> int: without the UB feature, NaN becomes 0 and the value is clamped into the target's range first
// (fptosi/fptoui of NaN or an out-of-range value is undefined behaviour for LLVM).
Tensor KernelWriter::floatToInt(Tensor x, DType to) {
  if (allowUB() || !isFloat(x)) return kb_.cast(x, to);
  if (x.dtype != DType::Fp64) x = kb_.cast(x, DType::Fp32);
  double lo = 0, hi = 0;
  switch (to) {
    case DType::Int1: lo = 0; hi = 1; break;
    case DType::Int8: lo = -128; hi = 127; break;
    case DType::Int16: lo = -32768; hi = 32767; break;
    case DType::Int32: lo = -2147483520.0; hi = 2147483520.0; break;  // representable in fp32, inside int32
    case DType::Int64: lo = -4611686018427387904.0; hi = 4611686018427387904.0; break;
    case DType::UInt8: lo = 0; hi = 255; break;
    case DType::UInt16: lo = 0; hi = 65535; break;
    case DType::UInt32: lo = 0; hi = 4294967040.0; break;
    case DType::UInt64: lo = 0; hi = 9223372036854775808.0; break;
    default: return kb_.cast(x, to);
  }
  Tensor y = kb_.where(kb_.ne(x, x), Literal(0.0), x);
  y = kb_.clamp(y, Literal(lo), Literal(hi));
  return kb_.cast(y, to);
}

Tensor KernelWriter::toFp32(const Tensor& t) {
  return t.dtype == DType::Fp32 || t.dtype == DType::Fp64 ? t : kb_.cast(t, DType::Fp32);
}

// A value of a's dtype and shape made from b (or a): what loop, branch and helper bodies combine with.
Tensor KernelWriter::sameTypeAs(const Tensor& a, const Tensor& value) {
  Tensor v = value;
  if (v.shape != a.shape) {
    if (!broadcastable(a.shape, v.shape) || v.rank() > a.rank()) return a;
    for (int k = 0; k < v.rank(); ++k)
      if (v.shape[v.rank() - 1 - k] != a.shape[a.rank() - 1 - k] && v.shape[v.rank() - 1 - k] != 1) return a;
    if (v.isBlock() || a.isBlock()) v = kb_.broadcastTo(v.isBlock() ? v : kb_.add(kb_.zeros(a.shape, v.dtype), v), a.shape);
  }
  if (v.dtype != a.dtype) v = isFloat(v) && !isFloat(a) ? floatToInt(v, a.dtype) : kb_.cast(v, a.dtype);
  return v;
}

}  // namespace kernelgen

using builder::DType;

namespace {

LaunchArgument viewOf(const std::string& name, DType dtype, const LaunchArgument& storage, int64_t offset, int64_t length) {
  const int bytes = storageBytes(builder::scalarKindOf(dtype));
  LaunchArgument view = LaunchArgument::alias(name, builder::scalarKindOf(dtype), storage.name,
                                              static_cast<uint64_t>(offset * bytes), static_cast<uint64_t>(length * bytes));
  std::copy_n(storage.bytes.begin() + offset * bytes, length * bytes, view.bytes.begin());
  return view;
}

// The launch's buffers, random contents from `rng`: the views' storage first (a case file names an alias's
// target before it), then in0.., atom0.., out0.. (each a view of its window of the storage when it is one).
void addArguments(const kernelgen::KernelWriter& writer, BuiltKernel& built, std::mt19937_64& rng) {
  const size_t firstStorage = built.arguments.size();
  for (const kernelgen::KernelWriter::Storage& storage : writer.storages()) {
    built.arguments.push_back(LaunchArgument::buffer(storage.name, builder::scalarKindOf(storage.dtype),
                                                     randomBuffer(storage.dtype, storage.length, rng, storage.convertsTo)));
    built.argumentDTypes.push_back(storage.dtype);
  }
  auto add = [&](const std::string& name, DType dtype, int64_t length, const kernelgen::KernelWriter::View& view,
                 DType convertsTo) {
    if (view.storage < 0) {
      built.arguments.push_back(
          LaunchArgument::buffer(name, builder::scalarKindOf(dtype), randomBuffer(dtype, length, rng, convertsTo)));
    } else {
      const LaunchArgument storage = built.arguments[firstStorage + static_cast<size_t>(view.storage)];
      built.arguments.push_back(viewOf(name, dtype, storage, view.offset, length));
    }
    built.argumentDTypes.push_back(dtype);
  };
  const std::vector<InputPlan>& inputs = writer.plan().inputs;
  for (size_t i = 0; i < inputs.size(); ++i)
    add("in" + std::to_string(i), inputs[i].dtype, writer.inputLength(i), writer.inputView(i), writer.inputConvertsTo(i));
  for (size_t k = 0; k < writer.atomics().size(); ++k)
    add("atom" + std::to_string(k), writer.atomics()[k].dtype, writer.atomics()[k].length, kernelgen::KernelWriter::View{}, DType::Int1);
  for (size_t j = 0; j < writer.stored().size(); ++j)
    add("out" + std::to_string(j), writer.stored()[j].dtype, writer.outputLength(j), writer.outputView(j), DType::Int1);
}

}  // namespace

BuiltKernel buildKernel(const KernelPlan& plan) {
  BuiltKernel built;
  std::vector<bool> skip(plan.nodes.size(), false);
  for (;;) {
    kernelgen::KernelWriter writer(plan, skip);
    int failed = writer.build();
    if (failed >= 0) {
      skip[static_cast<size_t>(failed)] = true;
      built.droppedNodes.push_back(std::string(nodeOpName(plan.nodes[failed].op)) + ": " + writer.builder().error()->str());
      continue;
    }
    if (failed == -2) {
      built.error = "builder failed outside a node: " + writer.builder().error()->str();
      return built;
    }
    builder::BuildResult result = writer.builder().finish();
    if (result.error) {
      built.error = "builder finish failed: " + result.error->str();
      return built;
    }
    built.module = std::move(result.module);
    std::mt19937_64 rng(plan.dataSeed);
    addArguments(writer, built, rng);
    built.grid = {plan.grid, 1, 1};
    built.numWarps = plan.numWarps;
    built.nodeMadeValue = writer.madeValue();
    built.summary = describePlan(plan);
    return built;
  }
}

}  // namespace tilesim::fuzz
