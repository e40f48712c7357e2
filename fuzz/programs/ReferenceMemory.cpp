// The reference's memory ops (see ReferenceState.h): pointers as (buffer, element index) pairs, tt.addptr,
// masked loads and stores lane by lane, ptr_to_int / int_to_ptr through a made-up address space, block pointers
// with boundary checks and padding, and atomics as read-modify-writes in lane order.
#include <cmath>
#include <cstring>

#include "fuzz/programs/OracleScalar.h"
#include "fuzz/programs/ReferenceLanes.h"
#include "fuzz/programs/ReferenceState.h"
#include "ir/FloatBits.h"
#include "ir/OpAttributes.h"

namespace tilesim::fuzz::reference {
namespace {

// The value an atomic read-modify-write leaves in memory. Triton's atom.add.f32 flushes subnormal inputs and
// results (PTX ISA; docs/findings.md G1): `tritonFloat` (the triton profile) does too, the exact profile keeps them.
uint64_t atomicCombine(AtomicRmwKind rmw, uint64_t old, uint64_t v, ScalarKind kind, bool tritonFloat) {
  const int64_t so = signExtendLane(old, kind), sv = signExtendLane(v, kind);
  switch (rmw) {
    case AtomicRmwKind::Add: return maskToWidth(old + v, kind);
    case AtomicRmwKind::FAdd: {
      const bool ftz = tritonFloat && kind == ScalarKind::F32;
      auto flush = [&](double x) { return ftz && x != 0 && std::fabs(x) < 0x1p-126 ? std::copysign(0.0, x) : x; };
      return oracle::encodeFloat(flush(flush(oracle::decodeFloat(old, kind)) + flush(oracle::decodeFloat(v, kind))), kind);
    }
    case AtomicRmwKind::Max: return so >= sv ? old : v;
    case AtomicRmwKind::Min: return so <= sv ? old : v;
    case AtomicRmwKind::UMax: return old >= v ? old : v;
    case AtomicRmwKind::UMin: return old <= v ? old : v;
    case AtomicRmwKind::And: return old & v;
    case AtomicRmwKind::Or: return old | v;
    case AtomicRmwKind::Xor: return old ^ v;
    case AtomicRmwKind::Exch: return v;
  }
  return old;
}

}  // namespace

void Reference::addPointer(const Operation& op) {
  const Lanes& pointer = get(op.operand(0));
  const Lanes& offset = get(op.operand(1));
  Lanes& result = fresh(op.result(), op.result()->type);
  result.buffer = pointer.buffer;
  ScalarKind offsetKind = op.operand(1)->type.scalarKind();
  for (int64_t i = 0; i < result.size(); ++i) {
    result.bits[i] = static_cast<uint64_t>(static_cast<int64_t>(pointer.bits[i]) + signExtendLane(offset.bits[i], offsetKind));
    result.undefined[i] = pointer.undefined[i] | offset.undefined[i];
  }
}

// Whether lane i is active; an undefined mask lane that decides an access must be reported.
bool Reference::active(const Operation& op, int64_t lane) {
  if (op.numOperands() < (op.kind == OpKind::TTLoad ? 2u : 3u)) return true;
  const Lanes& mask = get(op.operand(op.kind == OpKind::TTLoad ? 1 : 2));
  if (mask.undefined[lane]) outcome_.undefinedReachesMemory = true;
  return mask.bits[lane] & 1;
}

// A lane whose mask is undefined has an unspecified outcome (the access may or may not happen).
bool Reference::maskUndefined(const Operation& op, int64_t lane) {
  if (op.numOperands() < (op.kind == OpKind::TTLoad ? 2u : 3u)) return false;
  return get(op.operand(op.kind == OpKind::TTLoad ? 1 : 2)).undefined[lane];
}

// The buffer element a pointer lane names, or nullptr (and a noted out-of-bounds access) outside the buffer.
uint8_t* Reference::element(const Lanes& pointer, int64_t lane) {
  if (pointer.undefined[lane]) outcome_.undefinedReachesMemory = true;
  Buffer& buffer = buffers_.at(static_cast<size_t>(pointer.buffer));
  int64_t index = static_cast<int64_t>(pointer.bits[lane]);
  if (index < 0 || index >= buffer.count()) {
    outcome_.outOfBounds = true;
    return nullptr;
  }
  return buffer.bytes.data() + index * storageBytes(buffer.kind);
}

void Reference::load(const Operation& op) {
  const Lanes& pointer = get(op.operand(0));
  Lanes& result = fresh(op.result(), op.result()->type);
  ScalarKind kind = result.type.scalarKind();
  for (int64_t i = 0; i < result.size(); ++i) {
    if (active(op, i)) {
      uint64_t bits = 0;
      if (const uint8_t* at = element(pointer, i)) std::memcpy(&bits, at, static_cast<size_t>(storageBytes(kind)));
      result.bits[i] = maskToWidth(bits, kind);
      result.undefined[i] = pointer.undefined[i];
    } else if (op.numOperands() > 2) {
      const Lanes& other = get(op.operand(2));
      result.bits[i] = other.bits[i];
      result.undefined[i] = other.undefined[i];
    } else {
      result.undefined[i] = 1;  // masked off without `other`: 0, undefined
    }
    result.undefined[i] |= maskUndefined(op, i);
  }
}

void Reference::store(const Operation& op) {
  const Lanes& pointer = get(op.operand(0));
  const Lanes& value = get(op.operand(1));
  ScalarKind kind = op.operand(1)->type.scalarKind();
  for (int64_t i = 0; i < value.size(); ++i) {
    if (maskUndefined(op, i) && !pointer.undefined[i]) {
      if (uint8_t* at = element(pointer, i)) {
        Buffer& buffer = buffers_[static_cast<size_t>(pointer.buffer)];
        buffer.undefined[(at - buffer.bytes.data()) / storageBytes(kind)] = 1;
      }
    }
    if (!active(op, i)) continue;
    if (value.undefined[i]) outcome_.undefinedReachesMemory = true;
    if (uint8_t* at = element(pointer, i)) {
      std::memcpy(at, &value.bits[i], static_cast<size_t>(storageBytes(kind)));
      Buffer& buffer = buffers_[static_cast<size_t>(pointer.buffer)];
      buffer.undefined[(at - buffer.bytes.data()) / storageBytes(kind)] = value.undefined[i] | pointer.undefined[i];
    }
  }
}

void Reference::pointerToInt(const Operation& op) {
  const Lanes& pointer = get(op.operand(0));
  const int bytes = storageBytes(op.operand(0)->type.element().pointee().scalarKind());
  Lanes result = makeLanes(op.result()->type);
  for (int64_t i = 0; i < result.size(); ++i) {
    result.bits[i] = (static_cast<uint64_t>(pointer.buffer + 1) << kAddressShift) + pointer.bits[i] * static_cast<uint64_t>(bytes);
    result.undefined[i] = pointer.undefined[i];
  }
  env_[op.result()] = std::move(result);
}

void Reference::intToPointer(const Operation& op) {
  const Lanes& address = get(op.operand(0));
  const int bytes = storageBytes(op.result()->type.element().pointee().scalarKind());
  Lanes result = makeLanes(op.result()->type);
  for (int64_t i = 0; i < result.size(); ++i) {
    const int buffer = static_cast<int>(address.bits[i] >> kAddressShift) - 1;
    if (result.buffer >= 0 && buffer != result.buffer) return fail("reference: tt.int_to_ptr lanes in different buffers");
    result.buffer = buffer;
    result.bits[i] = (address.bits[i] & ((uint64_t{1} << kAddressShift) - 1)) / static_cast<uint64_t>(bytes);
    result.undefined[i] = address.undefined[i];
  }
  if (result.buffer < 0 || result.buffer >= static_cast<int>(buffers_.size())) return fail("reference: tt.int_to_ptr of a non-address");
  env_[op.result()] = std::move(result);
}

// ---- block pointers: the element of block lane idx is base + sum((offsets + idx) * strides) ----
void Reference::makeBlockPointer(const Operation& op) {
  const Lanes& base = get(op.operand(0));
  const size_t rank = (op.numOperands() - 1) / 3;
  Lanes result = makeLanes(op.result()->type);
  result.buffer = base.buffer;
  result.bits = {base.bits[0]};
  result.undefined = {base.undefined[0]};
  for (size_t d = 0; d < rank; ++d) {
    auto scalar = [&](size_t i) {
      const Lanes& v = get(op.operand(i));
      if (v.undefined[0]) outcome_.undefinedReachesMemory = true;
      return signExtendLane(v.bits[0], op.operand(i)->type.scalarKind());
    };
    result.blockShape.push_back(scalar(1 + d));
    result.blockStrides.push_back(scalar(1 + rank + d));
    result.blockOffsets.push_back(scalar(1 + 2 * rank + d));
  }
  env_[op.result()] = std::move(result);
}

void Reference::advanceBlockPointer(const Operation& op) {
  Lanes result = get(op.operand(0));
  for (size_t d = 0; d + 1 < op.numOperands(); ++d) {
    const Lanes& v = get(op.operand(1 + d));
    if (v.undefined[0]) outcome_.undefinedReachesMemory = true;
    result.blockOffsets[d] = static_cast<int32_t>(result.blockOffsets[d] + signExtendLane(v.bits[0], op.operand(1 + d)->type.scalarKind()));
  }
  env_[op.result()] = std::move(result);
}

void Reference::blockLoad(const Operation& op) {
  const Lanes& pointer = get(op.operand(0));
  Lanes result = makeLanes(op.result()->type);
  const ScalarKind kind = result.type.scalarKind();
  std::vector<bool> checked(pointer.blockShape.size(), false);
  for (int64_t d : BoundaryCheckView{op}.dimensions()) checked[static_cast<size_t>(d)] = true;
  const PaddingOption padding = MemoryHintsView{op}.padding();
  for (int64_t i = 0; i < result.size(); ++i) {
    std::vector<int64_t> index = multiIndex(i, result.shape);
    bool inside = true;
    int64_t element = static_cast<int64_t>(pointer.bits[0]);
    for (size_t d = 0; d < index.size(); ++d) {
      const int64_t position = pointer.blockOffsets[d] + index[d];
      if (checked[d] && (position < 0 || position >= pointer.blockShape[d])) inside = false;
      element += position * pointer.blockStrides[d];
    }
    if (inside) {
      Lanes one;
      one.bits = {static_cast<uint64_t>(element)};
      one.undefined = {pointer.undefined[0]};
      one.buffer = pointer.buffer;
      uint64_t bits = 0;
      if (const uint8_t* at = this->element(one, 0)) std::memcpy(&bits, at, static_cast<size_t>(storageBytes(kind)));
      result.bits[i] = maskToWidth(bits, kind);
      result.undefined[i] = pointer.undefined[0];
    } else if (padding == PaddingOption::NaN && isFloatKind(kind)) {
      // docs/semantics.md: the format's quiet NaN (0x7FC00000 for f32, as the GPU pads), not the canonical NaN
      // ops produce (0x7FFFFFFF); visible through a bitcast. Formats without infinities have one NaN.
      const FloatFormat format = floatFormat(kind);
      result.bits[i] = !format.hasInfinity ? canonicalNaNBits(kind)
                                           : (((uint64_t{1} << format.exponentBits) - 1) << format.mantissaBits) |
                                                 (uint64_t{1} << (format.mantissaBits - 1));
    } else if (padding == PaddingOption::None) {
      result.undefined[i] = 1;  // no padding option: the lanes outside are undefined
    }
  }
  env_[op.result()] = std::move(result);
}

// ---- tensor descriptors ----
namespace {

// The padding NaN of a block pointer or descriptor load: the format's quiet NaN (0x7FC00000 for f32, as the GPU
// pads; docs/semantics.md), not the canonical NaN ops produce. Formats without infinities have one NaN.
uint64_t paddingNaN(ScalarKind kind) {
  const FloatFormat format = floatFormat(kind);
  return !format.hasInfinity ? canonicalNaNBits(kind)
                             : (((uint64_t{1} << format.exponentBits) - 1) << format.mantissaBits) | (uint64_t{1} << (format.mantissaBits - 1));
}

}  // namespace

void Reference::makeTensorDescriptor(const Operation& op) {
  const Lanes& base = get(op.operand(0));
  const size_t rank = (op.numOperands() - 1) / 2;
  Lanes result;
  result.type = op.result()->type;
  result.buffer = base.buffer;
  result.bits = {base.bits[0]};
  result.undefined = {base.undefined[0]};
  for (size_t d = 0; d < rank; ++d) {
    for (size_t operand : {1 + d, 1 + rank + d}) {
      const Lanes& v = get(op.operand(operand));
      if (v.undefined[0]) outcome_.undefinedReachesMemory = true;
      (operand == 1 + d ? result.blockShape : result.blockStrides).push_back(signExtendLane(v.bits[0], op.operand(operand)->type.scalarKind()));
    }
  }
  result.padding = TensorDescriptorView{op}.padding();
  env_[op.result()] = std::move(result);
}

void Reference::descriptorAccess(const Operation& op) {
  const bool store = op.kind == OpKind::TTDescriptorStore;
  const Lanes& desc = get(op.operand(0));
  const size_t rank = desc.blockShape.size();
  std::vector<int64_t> start;
  bool indexUndefined = desc.undefined[0];
  for (size_t d = 0; d < rank; ++d) {
    const Lanes& v = get(op.operand(1 + d));
    start.push_back(signExtendLane(v.bits[0], op.operand(1 + d)->type.scalarKind()));
    indexUndefined = indexUndefined || v.undefined[0];
  }
  if (indexUndefined) outcome_.undefinedReachesMemory = true;
  const Lanes* value = store ? &get(op.operand(op.numOperands() - 1)) : nullptr;
  Lanes result = store ? Lanes{} : makeLanes(op.result()->type);
  const std::vector<int64_t>& shape = store ? value->shape : result.shape;
  const ScalarKind kind = (store ? value->type : result.type).scalarKind();
  const int64_t count = store ? value->size() : result.size();
  const size_t skipped = rank - shape.size();  // a value type may drop the block's leading 1s
  for (int64_t i = 0; i < count; ++i) {
    std::vector<int64_t> index = multiIndex(i, shape);
    bool inside = true;
    int64_t element = static_cast<int64_t>(desc.bits[0]);
    for (size_t d = 0; d < rank; ++d) {
      const int64_t coordinate = start[d] + (d >= skipped ? index[d - skipped] : 0);
      if (coordinate < 0 || coordinate >= desc.blockShape[d]) inside = false;
      element += coordinate * desc.blockStrides[d];
    }
    if (!inside) {
      if (!store && desc.padding == 2 && isFloatKind(kind)) result.bits[i] = paddingNaN(kind);
      continue;
    }
    Lanes one;
    one.bits = {static_cast<uint64_t>(element)};
    one.undefined = {static_cast<uint8_t>(indexUndefined)};
    one.buffer = desc.buffer;
    uint8_t* at = this->element(one, 0);
    if (!at) continue;
    if (store) {
      if (value->undefined[i]) outcome_.undefinedReachesMemory = true;
      std::memcpy(at, &value->bits[i], static_cast<size_t>(storageBytes(kind)));
      Buffer& buffer = buffers_[static_cast<size_t>(desc.buffer)];
      buffer.undefined[(at - buffer.bytes.data()) / storageBytes(kind)] = value->undefined[i] | (indexUndefined ? 1 : 0);
    } else {
      uint64_t bits = 0;
      std::memcpy(&bits, at, static_cast<size_t>(storageBytes(kind)));
      result.bits[i] = maskToWidth(bits, kind);
      result.undefined[i] = indexUndefined ? 1 : 0;
    }
  }
  if (!store) env_[op.result()] = std::move(result);
}

// ---- atomics: lanes in order, each a read-modify-write of its element ----
void Reference::atomic(const Operation& op) {
  const Lanes& pointer = get(op.operand(0));
  const bool cas = op.kind == OpKind::TTAtomicCAS;
  const Lanes& value = get(op.operand(cas ? 2 : 1));
  const Lanes* compare = cas ? &get(op.operand(1)) : nullptr;
  const Lanes* mask = !cas && op.numOperands() > 2 ? &get(op.operand(2)) : nullptr;
  const ScalarKind kind = op.operand(cas ? 2 : 1)->type.scalarKind();
  const AtomicRmwKind rmw = cas ? AtomicRmwKind::Exch : AtomicView{op}.rmwKind();  // cas: unused
  Lanes result = makeLanes(op.result()->type);
  for (int64_t i = 0; i < result.size(); ++i) {
    if (mask) {
      if (mask->undefined[i]) outcome_.undefinedReachesMemory = true;
      if (!(mask->bits[i] & 1)) continue;  // masked off: 0
    }
    uint8_t* at = element(pointer, i);
    if (!at) continue;
    Buffer& buffer = buffers_[static_cast<size_t>(pointer.buffer)];
    const int64_t index = (at - buffer.bytes.data()) / storageBytes(kind);
    uint64_t old = 0;
    std::memcpy(&old, at, static_cast<size_t>(storageBytes(kind)));
    old = maskToWidth(old, kind);
    const uint64_t v = value.bits[i];
    const uint64_t next = cas ? (old == compare->bits[i] ? v : old) : atomicCombine(rmw, old, v, kind, !exactMath_);
    std::memcpy(at, &next, static_cast<size_t>(storageBytes(kind)));
    const bool undefinedInput = value.undefined[i] || (compare && compare->undefined[i]);
    if (undefinedInput) outcome_.undefinedReachesMemory = true;
    buffer.undefined[static_cast<size_t>(index)] |= undefinedInput ? 1 : 0;
    result.bits[i] = old;
    result.undefined[i] = buffer.undefined[static_cast<size_t>(index)] && !undefinedInput ? 1 : 0;
  }
  env_[op.result()] = std::move(result);
}

}  // namespace tilesim::fuzz::reference
