// Types of TTIR values: scalars (i1..i64, fp8..f64), pointers (!tt.ptr<T>), ranked tensors (tensor<4x8xT>),
// with TTGIR's layout encoding in the tensor's third slot (tensor<4x8xT, #blocked>; ir/Encoding.h), TTGIR's
// shared-memory descriptors (!ttg.memdesc<4x8xT, #shared, #smem, mutable>) and async tokens (!ttg.async.token),
// tensor descriptors (!tt.tensordesc<tensor<BxT>>: a TMA-style view of a strided tensor in memory, typed by the
// block it loads and stores) and function types. Types are interned: two equal types are the same object, so `==` is a pointer compare
// and a Type is cheap to copy. Integers are signless (`i32`): the op says whether it treats them as signed. The one
// exception Triton 3.6 prints is the element of a tensor descriptor's block, which keeps the Python dtype's
// signedness (`!tt.tensordesc<tensor<2x16xsi32>>`, `ui8`; bool is `ui1`): a signed or unsigned integer is a type of
// its own (printed back as read), with the scalarKind() of its width, and `signless()` maps it to `i32` / `i8`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ir/Encoding.h"

namespace tilesim {

// Element types a tensor or pointer can hold. The order is used by tables; do not reorder.
enum class ScalarKind : uint8_t { I1, I8, I16, I32, I64, F8E4M3FN, F8E5M2, F16, BF16, F32, F64 };
constexpr int kNumScalarKinds = 11;

inline bool isIntegerKind(ScalarKind kind) { return kind <= ScalarKind::I64; }
inline bool isFloatKind(ScalarKind kind) { return kind > ScalarKind::I64; }
int bitWidth(ScalarKind kind);          // i1 -> 1, f8 -> 8, ...
int storageBytes(ScalarKind kind);      // bytes per element in memory and in tiles (i1 -> 1)
const char* scalarKindName(ScalarKind kind);  // MLIR spelling: "i32", "f8E4M3FN", "bf16"

// MLIR's integer signedness: `i32` (signless), `si32`, `ui32`. Only integer kinds may be Signed or Unsigned.
enum class Signedness : uint8_t { Signless, Signed, Unsigned };

// What every interned type starts with (ir/Type.cpp's TypeStorage derives from it): the facts the engines ask
// for on every op of every program (kind, element, scalar kind), read inline instead of through a call.
struct TypeHead {
  uint8_t kind = 0;                            // Type::Kind
  ScalarKind scalar = ScalarKind::I1;          // scalars
  Signedness signedness = Signedness::Signless;  // scalars
  const TypeHead* element = nullptr;           // a tensor's element type; any other type's own head
};

class Type {
 public:
  enum class Kind : uint8_t { Invalid, Scalar, Pointer, Tensor, Function, TensorDesc, MemDesc, AsyncToken };

  Type() = default;
  static Type scalar(ScalarKind kind, Signedness signedness = Signedness::Signless);
  static Type pointer(Type pointee, int addressSpace = 1);
  static Type tensor(std::span<const int64_t> shape, Type element);
  static Type tensor(std::initializer_list<int64_t> shape, Type element);
  // A TTGIR tensor: `encoding` is its register layout (invalid: none, the TTIR tensor).
  static Type tensor(std::span<const int64_t> shape, Type element, Encoding encoding);
  // !ttg.memdesc<shape x element, encoding, memorySpace[, mutable]>: a view of shared memory. Not a tensor:
  // shape() and element() treat it as an opaque value; memDescTensor() is the tensor it holds.
  static Type memDesc(std::span<const int64_t> shape, Type element, Encoding encoding, Encoding memorySpace,
                      bool mutableMemory);
  static Type asyncToken();  // !ttg.async.token
  static Type function(std::span<const Type> inputs, std::span<const Type> results);
  // !tt.tensordesc<block>: `block` is the ranked tensor type one descriptor_load gives.
  static Type tensorDesc(Type block);

  static Type i1() { return scalar(ScalarKind::I1); }
  static Type i8() { return scalar(ScalarKind::I8); }
  static Type i16() { return scalar(ScalarKind::I16); }
  static Type i32() { return scalar(ScalarKind::I32); }
  static Type i64() { return scalar(ScalarKind::I64); }
  static Type f16() { return scalar(ScalarKind::F16); }
  static Type bf16() { return scalar(ScalarKind::BF16); }
  static Type f32() { return scalar(ScalarKind::F32); }
  static Type f64() { return scalar(ScalarKind::F64); }

  Kind kind() const { return storage_ ? static_cast<Kind>(storage_->kind) : Kind::Invalid; }
  bool isValid() const { return storage_ != nullptr; }
  bool isScalar() const { return kind() == Kind::Scalar; }
  bool isPointer() const { return kind() == Kind::Pointer; }
  bool isTensor() const { return kind() == Kind::Tensor; }
  bool isFunction() const { return kind() == Kind::Function; }
  bool isTensorDesc() const { return kind() == Kind::TensorDesc; }
  bool isMemDesc() const { return kind() == Kind::MemDesc; }
  bool isAsyncToken() const { return kind() == Kind::AsyncToken; }

  // A tensor's layout or a memory descriptor's shared encoding; invalid for every other type and for TTIR tensors.
  Encoding encoding() const;
  // The same type with no encoding anywhere (tensors, a descriptor's block, a pointer's pointee): what the
  // interpreter and the TTIR shape rules compare.
  Type withoutEncoding() const;
  Type withEncoding(Encoding encoding) const;  // requires isTensor()
  // Memory descriptors: the tensor the memory holds (shape, element, the shared encoding), its memory space
  // (#ttg.shared_memory) and whether it may be written.
  Type memDescTensor() const;
  Encoding memorySpace() const;
  bool isMutableMemory() const;

  // The element type: a tensor's element, otherwise the type itself.
  Type element() const { return storage_ ? Type(storage_->element) : *this; }
  // Scalar queries look through tensors: tensor<4xf32>.isFloat() is true.
  bool isInteger() const { return isScalarElement() && isIntegerKind(storage_->element->scalar); }
  bool isFloat() const { return isScalarElement() && isFloatKind(storage_->element->scalar); }
  bool isPointerLike() const { return element().isPointer(); }
  // A pointer to a tensor (block pointer, from tt.make_tensor_ptr).
  bool isBlockPointer() const;
  ScalarKind scalarKind() const {  // requires element().isScalar(); si32 and ui32 are I32
    if (!isScalarElement()) notScalar();
    return storage_->element->scalar;
  }
  Signedness signedness() const;  // of the element (looks through tensors); Signless for all but si*/ui*
  // This type with a signless element: tensor<2x16xui8> -> tensor<2x16xi8>; other types are returned as they are.
  Type signless() const;
  int bitWidth() const;           // of the element; pointers are 64

  Type pointee() const;  // requires isPointer()
  Type descBlock() const;  // requires isTensorDesc(): the block's tensor type
  int addressSpace() const;

  std::span<const int64_t> shape() const;  // empty for non-tensors
  int rank() const { return static_cast<int>(shape().size()); }
  int64_t numElements() const;  // 1 for non-tensors

  // Same shape and encoding as this (if a tensor), with another element type. For a scalar, returns `newElement`.
  Type withElement(Type newElement) const;
  Type withShape(std::span<const int64_t> shape) const;  // tensor of this element type, no encoding

  std::span<const Type> inputs() const;   // function types
  std::span<const Type> results() const;  // function types

  std::string str() const;  // MLIR spelling
  bool operator==(const Type& other) const { return storage_ == other.storage_; }
  bool operator!=(const Type& other) const { return storage_ != other.storage_; }
  const void* opaque() const { return storage_; }

 private:
  explicit Type(const TypeHead* storage) : storage_(storage) {}
  bool isScalarElement() const {
    return storage_ && static_cast<Kind>(storage_->element->kind) == Kind::Scalar;
  }
  [[noreturn]] void notScalar() const;
  const TypeHead* storage_ = nullptr;
};

std::string shapeString(std::span<const int64_t> shape);  // "4x8"

}  // namespace tilesim
