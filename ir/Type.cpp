// Interning of types: one global, mutex-protected uniquer keyed by the type's structure.
#include "ir/Type.h"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "ir/Assert.h"

namespace tilesim {

struct TypeStorage {
  Type::Kind kind = Type::Kind::Invalid;
  ScalarKind scalar = ScalarKind::I1;
  Signedness signedness = Signedness::Signless;  // scalars
  int addressSpace = 0;
  std::vector<int64_t> shape;   // tensors
  std::vector<Type> children;   // pointee / element / function inputs then results
  size_t numInputs = 0;         // functions
  Encoding encoding;            // tensors (layout) and memory descriptors (shared encoding)
  Encoding memorySpace;         // memory descriptors
  bool mutableMemory = false;   // memory descriptors
};

namespace {

using Key = std::tuple<int, int, int, int, std::vector<int64_t>, std::vector<const void*>, size_t, const void*,
                       const void*, bool>;

struct Uniquer {
  std::mutex mutex;
  std::map<Key, std::unique_ptr<TypeStorage>> types;
};

Uniquer& uniquer() {
  static Uniquer* instance = new Uniquer();  // never destroyed: types outlive static destructors
  return *instance;
}

}  // namespace

namespace detail {
const TypeStorage* intern(TypeStorage proto) {
  std::vector<const void*> children;
  for (Type child : proto.children) children.push_back(child.opaque());
  Key key{static_cast<int>(proto.kind), static_cast<int>(proto.scalar), static_cast<int>(proto.signedness),
          proto.addressSpace, proto.shape, children, proto.numInputs, proto.encoding.opaque(),
          proto.memorySpace.opaque(), proto.mutableMemory};
  // Engines build the same few types over and over on every thread: look in this thread's cache first so
  // the global lock is taken once per distinct type per thread.
  thread_local std::map<Key, const TypeStorage*> cache;
  if (auto hit = cache.find(key); hit != cache.end()) return hit->second;
  Uniquer& u = uniquer();
  std::lock_guard<std::mutex> lock(u.mutex);
  auto it = u.types.find(key);
  if (it != u.types.end()) {
    cache.emplace(key, it->second.get());
    return it->second.get();
  }
  auto storage = std::make_unique<TypeStorage>(std::move(proto));
  const TypeStorage* result = storage.get();
  cache.emplace(key, result);
  u.types.emplace(std::move(key), std::move(storage));
  return result;
}
}  // namespace detail

bool isIntegerKind(ScalarKind kind) { return kind <= ScalarKind::I64; }
bool isFloatKind(ScalarKind kind) { return kind > ScalarKind::I64; }

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
  TypeStorage proto;
  proto.kind = Kind::Scalar;
  proto.scalar = kind;
  proto.signedness = signedness;
  return Type(detail::intern(std::move(proto)));
}

Type Type::pointer(Type pointee, int addressSpace) {
  TILESIM_ASSERT(pointee.isValid(), "pointer to an invalid type");
  TypeStorage proto;
  proto.kind = Kind::Pointer;
  proto.addressSpace = addressSpace;
  proto.children = {pointee};
  return Type(detail::intern(std::move(proto)));
}

Type Type::tensor(std::span<const int64_t> shape, Type element) {
  TILESIM_ASSERT(element.isValid() && !element.isTensor(), "tensor of an invalid or tensor type");
  TypeStorage proto;
  proto.kind = Kind::Tensor;
  proto.shape.assign(shape.begin(), shape.end());
  proto.children = {element};
  return Type(detail::intern(std::move(proto)));
}

Type Type::tensor(std::span<const int64_t> shape, Type element, Encoding encoding) {
  TILESIM_ASSERT(element.isValid() && !element.isTensor(), "tensor of an invalid or tensor type");
  TypeStorage proto;
  proto.kind = Kind::Tensor;
  proto.shape.assign(shape.begin(), shape.end());
  proto.children = {element};
  proto.encoding = encoding;
  return Type(detail::intern(std::move(proto)));
}

Type Type::memDesc(std::span<const int64_t> shape, Type element, Encoding encoding, Encoding memorySpace,
                   bool mutableMemory) {
  TILESIM_ASSERT(element.isScalar(), "memory descriptor of a non-scalar element");
  TypeStorage proto;
  proto.kind = Kind::MemDesc;
  proto.children = {tensor(shape, element, encoding)};
  proto.memorySpace = memorySpace;
  proto.mutableMemory = mutableMemory;
  return Type(detail::intern(std::move(proto)));
}

Type Type::asyncToken() {
  TypeStorage proto;
  proto.kind = Kind::AsyncToken;
  return Type(detail::intern(std::move(proto)));
}

Encoding Type::encoding() const {
  if (isTensor()) return storage_->encoding;
  if (isMemDesc()) return storage_->children[0].encoding();
  return Encoding();
}

Type Type::withoutEncoding() const {
  switch (kind()) {
    case Kind::Tensor: return storage_->encoding.isValid() || element().isPointer() ? tensor(shape(), element().withoutEncoding()) : *this;
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
  return storage_->children[0];
}

Encoding Type::memorySpace() const { return isMemDesc() ? storage_->memorySpace : Encoding(); }

bool Type::isMutableMemory() const { return isMemDesc() && storage_->mutableMemory; }

Type Type::tensor(std::initializer_list<int64_t> shape, Type element) {
  return tensor(std::span<const int64_t>(shape.begin(), shape.size()), element);
}

Type Type::function(std::span<const Type> inputs, std::span<const Type> results) {
  TypeStorage proto;
  proto.kind = Kind::Function;
  proto.children.assign(inputs.begin(), inputs.end());
  proto.children.insert(proto.children.end(), results.begin(), results.end());
  proto.numInputs = inputs.size();
  return Type(detail::intern(std::move(proto)));
}

Type Type::tensorDesc(Type block) {
  TILESIM_ASSERT(block.isTensor(), "tensor descriptor of a non-tensor type");
  TypeStorage proto;
  proto.kind = Kind::TensorDesc;
  proto.children = {block};
  return Type(detail::intern(std::move(proto)));
}

Type::Kind Type::kind() const { return storage_ ? storage_->kind : Kind::Invalid; }

Type Type::element() const { return isTensor() ? storage_->children[0] : *this; }

bool Type::isInteger() const {
  Type e = element();
  return e.isScalar() && isIntegerKind(e.storage_->scalar);
}

bool Type::isFloat() const {
  Type e = element();
  return e.isScalar() && isFloatKind(e.storage_->scalar);
}

bool Type::isBlockPointer() const { return isPointer() && pointee().isTensor(); }

ScalarKind Type::scalarKind() const {
  Type e = element();
  TILESIM_ASSERT(e.isScalar(), "scalarKind() of non-scalar type " + str());
  return e.storage_->scalar;
}

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
  return storage_->children[0];
}

Type Type::descBlock() const {
  TILESIM_ASSERT(isTensorDesc(), "descBlock() of non-descriptor type " + str());
  return storage_->children[0];
}

int Type::addressSpace() const { return isPointer() ? storage_->addressSpace : 0; }

std::span<const int64_t> Type::shape() const {
  if (!isTensor()) return {};
  return storage_->shape;
}

int64_t Type::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape()) n *= d;
  return n;
}

Type Type::withElement(Type newElement) const {
  return isTensor() ? tensor(shape(), newElement, storage_->encoding) : newElement;
}

Type Type::withShape(std::span<const int64_t> newShape) const { return tensor(newShape, element()); }

std::span<const Type> Type::inputs() const {
  TILESIM_ASSERT(isFunction(), "inputs() of non-function type");
  return std::span<const Type>(storage_->children).subspan(0, storage_->numInputs);
}

std::span<const Type> Type::results() const {
  TILESIM_ASSERT(isFunction(), "results() of non-function type");
  return std::span<const Type>(storage_->children).subspan(storage_->numInputs);
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
      if (storage_->addressSpace != 1) s += ", " + std::to_string(storage_->addressSpace);
      return s + ">";
    }
    case Kind::Tensor: {
      std::string s = "tensor<" + shapeString(shape());
      if (!shape().empty()) s += 'x';
      s += element().str();
      if (storage_->encoding.isValid()) s += ", " + storage_->encoding.reference();
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
