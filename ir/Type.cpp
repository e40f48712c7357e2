// Interning of types: one global, mutex-protected uniquer keyed by the type's structure, in front of it one
// cache per thread. Engines ask for the same few types millions of times (every op's result tile, every slice
// of a reduction), so a lookup that hits allocates nothing: the caller's structure is hashed and compared in
// place (TypeShape), and storage is built only the first time a type is seen.
#include "ir/Type.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "ir/Assert.h"

namespace tilesim {

struct TypeStorage : TypeHead {
  int addressSpace = 0;
  std::vector<int64_t> shape;   // tensors
  std::vector<Type> children;   // pointee / element / function inputs then results
  size_t numInputs = 0;         // functions
  Encoding encoding;            // tensors (layout) and memory descriptors (shared encoding)
  Encoding memorySpace;         // memory descriptors
  bool mutableMemory = false;   // memory descriptors
};

namespace {

// A type's structure as the caller has it (borrowed spans): what is hashed and compared.
struct TypeShape {
  Type::Kind kind = Type::Kind::Invalid;
  ScalarKind scalar = ScalarKind::I1;
  Signedness signedness = Signedness::Signless;
  int addressSpace = 0;
  std::span<const int64_t> shape;
  std::span<const Type> children;
  size_t numInputs = 0;
  Encoding encoding;
  Encoding memorySpace;
  bool mutableMemory = false;
};

size_t hashOf(const TypeShape& t) {
  size_t h = static_cast<size_t>(t.kind) | static_cast<size_t>(t.scalar) << 8 |
             static_cast<size_t>(t.signedness) << 16 | static_cast<size_t>(t.addressSpace) << 24 | t.numInputs << 40;
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (int64_t d : t.shape) mix(static_cast<size_t>(d));
  mix(t.shape.size());
  for (Type child : t.children) mix(std::hash<const void*>{}(child.opaque()));
  mix(std::hash<const void*>{}(t.encoding.opaque()));
  mix(std::hash<const void*>{}(t.memorySpace.opaque()) ^ static_cast<size_t>(t.mutableMemory));
  return h;
}

bool sameStructure(const TypeShape& t, const TypeStorage& s) {
  return static_cast<uint8_t>(t.kind) == s.kind && t.scalar == s.scalar && t.signedness == s.signedness &&
         t.addressSpace == s.addressSpace && t.numInputs == s.numInputs &&
         std::ranges::equal(t.shape, s.shape) && std::ranges::equal(t.children, s.children) &&
         t.encoding.opaque() == s.encoding.opaque() && t.memorySpace.opaque() == s.memorySpace.opaque() && t.mutableMemory == s.mutableMemory;
}

using Table = std::unordered_multimap<size_t, const TypeStorage*>;

const TypeStorage* find(const Table& table, size_t hash, const TypeShape& t) {
  auto [begin, end] = table.equal_range(hash);
  for (auto it = begin; it != end; ++it)
    if (sameStructure(t, *it->second)) return it->second;
  return nullptr;
}

struct Uniquer {
  std::mutex mutex;
  Table types;
  std::vector<std::unique_ptr<TypeStorage>> storage;
};

Uniquer& uniquer() {
  static Uniquer* instance = new Uniquer();  // never destroyed: types outlive static destructors
  return *instance;
}

const TypeStorage& data(const TypeHead* head) { return static_cast<const TypeStorage&>(*head); }

const TypeStorage* intern(const TypeShape& t) {
  const size_t hash = hashOf(t);
  // Engines build the same few types over and over on every thread: look in this thread's cache first so
  // the global lock is taken once per distinct type per thread.
  thread_local Table cache;
  if (const TypeStorage* hit = find(cache, hash, t)) return hit;
  Uniquer& u = uniquer();
  std::lock_guard<std::mutex> lock(u.mutex);
  const TypeStorage* result = find(u.types, hash, t);
  if (!result) {
    auto storage = std::make_unique<TypeStorage>();
    storage->kind = static_cast<uint8_t>(t.kind);
    storage->scalar = t.scalar;
    storage->signedness = t.signedness;
    storage->addressSpace = t.addressSpace;
    storage->shape.assign(t.shape.begin(), t.shape.end());
    storage->children.assign(t.children.begin(), t.children.end());
    storage->numInputs = t.numInputs;
    storage->encoding = t.encoding;
    storage->memorySpace = t.memorySpace;
    storage->mutableMemory = t.mutableMemory;
    storage->element = t.kind == Type::Kind::Tensor ? static_cast<const TypeHead*>(storage->children[0].opaque()) : storage.get();
    result = storage.get();
    u.storage.push_back(std::move(storage));
    u.types.emplace(hash, result);
  }
  cache.emplace(hash, result);
  return result;
}

}  // namespace

int bitWidth(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::I1: return 1;
    case ScalarKind::I8: return 8;
    case ScalarKind::I16: return 16;
    case ScalarKind::I32: return 32;
    case ScalarKind::I64: return 64;
    case ScalarKind::F8E4M3FN: return 8;
    case ScalarKind::F8E5M2: return 8;
    case ScalarKind::F16: return 16;
    case ScalarKind::BF16: return 16;
    case ScalarKind::F32: return 32;
    case ScalarKind::F64: return 64;
  }
  TILESIM_UNREACHABLE("bad ScalarKind");
}

int storageBytes(ScalarKind kind) { return kind == ScalarKind::I1 ? 1 : bitWidth(kind) / 8; }

const char* scalarKindName(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::I1: return "i1";
    case ScalarKind::I8: return "i8";
    case ScalarKind::I16: return "i16";
    case ScalarKind::I32: return "i32";
    case ScalarKind::I64: return "i64";
    case ScalarKind::F8E4M3FN: return "f8E4M3FN";
    case ScalarKind::F8E5M2: return "f8E5M2";
    case ScalarKind::F16: return "f16";
    case ScalarKind::BF16: return "bf16";
    case ScalarKind::F32: return "f32";
    case ScalarKind::F64: return "f64";
  }
  TILESIM_UNREACHABLE("bad ScalarKind");
}

Type Type::scalar(ScalarKind kind, Signedness signedness) {
  TILESIM_ASSERT(signedness == Signedness::Signless || isIntegerKind(kind), "a signed or unsigned float type");
  TypeShape t;
  t.kind = Kind::Scalar;
  t.scalar = kind;
  t.signedness = signedness;
  return Type(intern(t));
}

Type Type::pointer(Type pointee, int addressSpace) {
  TILESIM_ASSERT(pointee.isValid(), "pointer to an invalid type");
  TypeShape t;
  t.kind = Kind::Pointer;
  t.addressSpace = addressSpace;
  t.children = std::span<const Type>(&pointee, 1);
  return Type(intern(t));
}

Type Type::tensor(std::span<const int64_t> shape, Type element) {
  TILESIM_ASSERT(element.isValid() && !element.isTensor(), "tensor of an invalid or tensor type");
  TypeShape t;
  t.kind = Kind::Tensor;
  t.shape = shape;
  t.children = std::span<const Type>(&element, 1);
  return Type(intern(t));
}

Type Type::tensor(std::span<const int64_t> shape, Type element, Encoding encoding) {
  TILESIM_ASSERT(element.isValid() && !element.isTensor(), "tensor of an invalid or tensor type");
  TypeShape t;
  t.kind = Kind::Tensor;
  t.shape = shape;
  t.children = std::span<const Type>(&element, 1);
  t.encoding = encoding;
  return Type(intern(t));
}

Type Type::memDesc(std::span<const int64_t> shape, Type element, Encoding encoding, Encoding memorySpace,
                   bool mutableMemory) {
  TILESIM_ASSERT(element.isScalar(), "memory descriptor of a non-scalar element");
  const Type held = tensor(shape, element, encoding);
  TypeShape t;
  t.kind = Kind::MemDesc;
  t.children = std::span<const Type>(&held, 1);
  t.memorySpace = memorySpace;
  t.mutableMemory = mutableMemory;
  return Type(intern(t));
}

Type Type::asyncToken() {
  TypeShape t;
  t.kind = Kind::AsyncToken;
  return Type(intern(t));
}

Encoding Type::encoding() const {
  if (isTensor()) return data(storage_).encoding;
  if (isMemDesc()) return data(storage_).children[0].encoding();
  return Encoding();
}

Type Type::withoutEncoding() const {
  switch (kind()) {
    case Kind::Tensor: return data(storage_).encoding.isValid() || element().isPointer() ? tensor(shape(), element().withoutEncoding()) : *this;
    case Kind::Pointer: return pointer(pointee().withoutEncoding(), addressSpace());
    case Kind::TensorDesc: return tensorDesc(descBlock().withoutEncoding());
    case Kind::MemDesc:
      return memDesc(memDescTensor().shape(), memDescTensor().element(), Encoding(), Encoding(), isMutableMemory());
    case Kind::Invalid:
    case Kind::Scalar:
    case Kind::Function:
    case Kind::AsyncToken: return *this;
  }
  TILESIM_UNREACHABLE("bad Type::Kind");
}

Type Type::withEncoding(Encoding newEncoding) const {
  TILESIM_ASSERT(isTensor(), "withEncoding() of non-tensor type " + str());
  return tensor(shape(), element(), newEncoding);
}

Type Type::memDescTensor() const {
  TILESIM_ASSERT(isMemDesc(), "memDescTensor() of non-memdesc type " + str());
  return data(storage_).children[0];
}

Encoding Type::memorySpace() const { return isMemDesc() ? data(storage_).memorySpace : Encoding(); }

bool Type::isMutableMemory() const { return isMemDesc() && data(storage_).mutableMemory; }

Type Type::tensor(std::initializer_list<int64_t> shape, Type element) {
  return tensor(std::span<const int64_t>(shape.begin(), shape.size()), element);
}

Type Type::function(std::span<const Type> inputs, std::span<const Type> results) {
  std::vector<Type> children(inputs.begin(), inputs.end());
  children.insert(children.end(), results.begin(), results.end());
  TypeShape t;
  t.kind = Kind::Function;
  t.children = children;
  t.numInputs = inputs.size();
  return Type(intern(t));
}

Type Type::tensorDesc(Type block) {
  TILESIM_ASSERT(block.isTensor(), "tensor descriptor of a non-tensor type");
  TypeShape t;
  t.kind = Kind::TensorDesc;
  t.children = std::span<const Type>(&block, 1);
  return Type(intern(t));
}

bool Type::isBlockPointer() const { return isPointer() && pointee().isTensor(); }

void Type::notScalar() const { TILESIM_UNREACHABLE("scalarKind() of non-scalar type " + str()); }

Signedness Type::signedness() const {
  Type e = element();
  return e.isScalar() ? e.storage_->signedness : Signedness::Signless;
}

Type Type::signless() const {
  Type e = element();
  if (!e.isScalar() || e.storage_->signedness == Signedness::Signless) return *this;
  return withElement(scalar(e.storage_->scalar));
}

int Type::bitWidth() const {
  Type e = element();
  if (e.isPointer()) return 64;
  return tilesim::bitWidth(e.scalarKind());
}

Type Type::pointee() const {
  TILESIM_ASSERT(isPointer(), "pointee() of non-pointer type " + str());
  return data(storage_).children[0];
}

Type Type::descBlock() const {
  TILESIM_ASSERT(isTensorDesc(), "descBlock() of non-descriptor type " + str());
  return data(storage_).children[0];
}

int Type::addressSpace() const { return isPointer() ? data(storage_).addressSpace : 0; }

std::span<const int64_t> Type::shape() const {
  if (!isTensor()) return {};
  return data(storage_).shape;
}

int64_t Type::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape()) n *= d;
  return n;
}

Type Type::withElement(Type newElement) const {
  return isTensor() ? tensor(shape(), newElement, data(storage_).encoding) : newElement;
}

Type Type::withShape(std::span<const int64_t> newShape) const { return tensor(newShape, element()); }

std::span<const Type> Type::inputs() const {
  TILESIM_ASSERT(isFunction(), "inputs() of non-function type");
  return std::span<const Type>(data(storage_).children).subspan(0, data(storage_).numInputs);
}

std::span<const Type> Type::results() const {
  TILESIM_ASSERT(isFunction(), "results() of non-function type");
  return std::span<const Type>(data(storage_).children).subspan(data(storage_).numInputs);
}

std::string shapeString(std::span<const int64_t> shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(shape[i]);
  }
  return s;
}

std::string Type::str() const {
  switch (kind()) {
    case Kind::Invalid: return "<<invalid type>>";
    case Kind::Scalar: {
      const char* prefix = storage_->signedness == Signedness::Signed ? "s"
                           : storage_->signedness == Signedness::Unsigned ? "u" : "";
      return prefix + std::string(scalarKindName(storage_->scalar));
    }
    case Kind::Pointer: {
      std::string s = "!tt.ptr<" + pointee().str();
      if (data(storage_).addressSpace != 1) s += ", " + std::to_string(data(storage_).addressSpace);
      return s + ">";
    }
    case Kind::Tensor: {
      std::string s = "tensor<" + shapeString(shape());
      if (!shape().empty()) s += 'x';
      s += element().str();
      if (data(storage_).encoding.isValid()) s += ", " + data(storage_).encoding.reference();
      return s + ">";
    }
    case Kind::MemDesc: {
      Type held = memDescTensor();
      std::string s = "!ttg.memdesc<" + shapeString(held.shape());
      if (!held.shape().empty()) s += 'x';
      s += held.element().str();
      if (held.encoding().isValid()) s += ", " + held.encoding().reference();
      if (memorySpace().isValid()) s += ", " + memorySpace().reference();
      if (isMutableMemory()) s += ", mutable";
      return s + ">";
    }
    case Kind::AsyncToken: return "!ttg.async.token";
    case Kind::TensorDesc: return "!tt.tensordesc<" + descBlock().str() + ">";
    case Kind::Function: {
      std::string s = "(";
      for (size_t i = 0; i < inputs().size(); ++i) s += (i ? ", " : "") + inputs()[i].str();
      s += ") -> ";
      if (results().size() == 1 && !results()[0].isFunction()) return s + results()[0].str();
      s += "(";
      for (size_t i = 0; i < results().size(); ++i) s += (i ? ", " : "") + results()[i].str();
      return s + ")";
    }
  }
  TILESIM_UNREACHABLE("bad Type::Kind");
}

}  // namespace tilesim
