// Shared by the verifier's files (one per op family): where diagnostics go and the small type predicates the
// checks are written in. Private to ir/verify; the public entry point is ir/verify/Verifier.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/Diagnostic.h"
#include "ir/IR.h"

namespace tilesim::verify {

class VerifyContext {
 public:
  VerifyContext(const Module& module, Diagnostics& diagnostics) : module_(module), diagnostics_(diagnostics) {}

  // Records one diagnostic for `op`: "<mnemonic>: <what>". Always returns false so checks can `return fail(...)`.
  bool fail(const Operation& op, const std::string& what);
  // Same, with a position of its own (block arguments have none; they report at the owning op).
  bool failAt(const SourcePos& pos, const std::string& message);
  const Module& module() const { return module_; }
  size_t count() const { return diagnostics_.size(); }

 private:
  const Module& module_;
  Diagnostics& diagnostics_;
};

// Element classes the same-type families require.
enum class ElementClass { Integer, Float, Any };

// A type's spelling for messages.
inline std::string typeName(Type type) { return type.isValid() ? type.str() : "<no type>"; }
std::string typeList(const std::vector<Type>& types);
std::vector<Type> typesOf(const std::vector<Value*>& values);
std::vector<Type> typesOf(const std::vector<std::unique_ptr<Value>>& values);
std::vector<Type> resultTypes(const Operation& op);
bool sameShape(Type a, Type b);       // both scalars, or tensors of one shape
bool isI1(Type type);                 // element is i1
bool isScalarI1(Type type);
bool isScalarInteger(Type type);
// The value type a pointer (or tensor of pointers, or block pointer) points at: what tt.load returns.
std::optional<Type> loadedType(Type pointerType);
// A positive power of two.
bool isPowerOfTwo(int64_t value);

// Op families, one file each. Each returns false after reporting the op's first problem.
bool verifySameTypeOp(VerifyContext& ctx, const Operation& op, ElementClass elements);
bool verifyCompareOp(VerifyContext& ctx, const Operation& op);
bool verifySelectOp(VerifyContext& ctx, const Operation& op);
bool verifyConstantOp(VerifyContext& ctx, const Operation& op);
bool verifyCastOp(VerifyContext& ctx, const Operation& op);

bool verifyProgramInfoOp(VerifyContext& ctx, const Operation& op);
bool verifyMakeRangeOp(VerifyContext& ctx, const Operation& op);
bool verifyShapeOp(VerifyContext& ctx, const Operation& op);   // splat .. histogram
bool verifyMemoryOp(VerifyContext& ctx, const Operation& op);  // addptr .. ptr_to_int
bool verifyNumericOp(VerifyContext& ctx, const Operation& op); // dot, fp_to_fp, bitcast, clampf, extern, asm
bool verifyReduceOrScanOp(VerifyContext& ctx, const Operation& op);
bool verifyKeywordAttributes(VerifyContext& ctx, const Operation& op);  // T8, every op
bool verifyTtgirOp(VerifyContext& ctx, const Operation& op);  // the SharedMemory and Hopper families (VerifyTtgir.cpp)
// G1 (VerifyTtgir.cpp): what is wrong with the encodings in `type` (of a value of `module`), or empty. `warps`:
// the warps the value lives in (a ttg.warp_specialize partition's num_warps); 0 = the module's ttg.num-warps.
std::string encodingProblem(const Module& module, Type type, int warps = 0);

bool verifyFuncOp(VerifyContext& ctx, const Operation& op);
bool verifyCallOp(VerifyContext& ctx, const Operation& op);
bool verifyForOp(VerifyContext& ctx, const Operation& op);
bool verifyIfOp(VerifyContext& ctx, const Operation& op);
bool verifyWhileOp(VerifyContext& ctx, const Operation& op);
// Checks that `block` ends in a `terminator` whose operand types are `expected` (the caller names them in `what`).
bool verifyTerminatorTypes(VerifyContext& ctx, const Operation& owner, const Block& block,
                           const std::vector<Type>& expected, const std::string& what);

}  // namespace tilesim::verify
