// bindLaunch (Binding.h): buffer placement, specialisation, then one parameter at a time: find its argument,
// check the argument's kind against the parameter's type, and expand a host tensor descriptor into the
// parameters after it. The messages name the argument and the parameter (%name, as ParameterName.h spells it).
#include "ir/launch/Binding.h"

#include "ir/FloatBits.h"
#include "ir/launch/ParameterName.h"

namespace tilesim {
namespace {

// A parameter's binding, or the message saying why the argument cannot take it.
struct BindAttempt {
  BoundParameter bound;
  std::string error;
};

BindAttempt failure(std::string message) { return {{}, std::move(message)}; }

// A host tensor descriptor for a !tt.tensordesc parameter: the block's rank, shape and element size must agree.
BindAttempt bindTensorDescriptor(Type type, const std::string& parameterName, const LaunchArgument& argument) {
  Type block = type.descBlock();
  if (!argument.isTensorDesc())
    return failure("argument '" + argument.name + "' is not a tensor descriptor but parameter %" + parameterName +
                   " is " + type.str());
  const size_t rank = static_cast<size_t>(block.rank());
  const std::vector<int64_t> blockShape(block.shape().begin(), block.shape().end());
  if (argument.descShape.size() != rank || argument.descStrides.size() != rank ||
      (!argument.descBlockShape.empty() && argument.descBlockShape != blockShape))
    return failure("tensor descriptor argument '" + argument.name + "' does not match parameter %" + parameterName +
                   " (" + type.str() + "): rank " + std::to_string(rank) + " and the block shape must agree");
  if (storageBytes(block.scalarKind()) != storageBytes(argument.elementKind))
    return failure("argument '" + argument.name + "' holds " + scalarKindName(argument.elementKind) +
                   " elements but parameter %" + parameterName + " describes " + block.element().str());
  return {{BoundParameter::Kind::TensorDescriptor, 0, 0}, ""};
}

// A buffer for a pointer parameter: the element sizes must agree (a pointer to a scalar type).
BindAttempt bindPointer(Type type, const std::string& parameterName, const LaunchArgument& argument) {
  if (argument.kind != LaunchArgument::Kind::Buffer)
    return failure("argument '" + argument.name + "' is a scalar but parameter %" + parameterName + " is a pointer (" +
                   type.str() + ")");
  Type pointee = type.pointee();
  if (pointee.isScalar() && storageBytes(pointee.scalarKind()) != storageBytes(argument.elementKind))
    return failure("argument '" + argument.name + "' holds " + scalarKindName(argument.elementKind) +
                   " elements but parameter %" + parameterName + " points to " + pointee.str());
  return {{BoundParameter::Kind::Pointer, 0, 0}, ""};
}

// A scalar for a scalar parameter: a float rounds to a float type; an integer must fit an integer type's width.
BindAttempt bindScalar(Type type, const std::string& parameterName, const LaunchArgument& argument) {
  if (argument.kind != LaunchArgument::Kind::Scalar)
    return failure("argument '" + argument.name + "' is a buffer but parameter %" + parameterName + " is a scalar (" +
                   type.str() + ")");
  if (!type.isScalar())
    return failure("parameter %" + parameterName + " has type " + type.str() + ", which a launch cannot pass");
  if (type.isFloat()) {
    const double value = argument.scalarIsFloat ? argument.floatValue : static_cast<double>(argument.intValue);
    return {{BoundParameter::Kind::Scalar, 0, floatBitsFromDouble(value, type.scalarKind())}, ""};
  }
  if (argument.scalarIsFloat)
    return failure("argument '" + argument.name + "' is a float but parameter %" + parameterName + " is " + type.str());
  const int bits = type.bitWidth();
  if (bits < 64) {
    const bool isBool = type.scalarKind() == ScalarKind::I1;
    const int64_t lo = isBool ? 0 : -(int64_t{1} << (bits - 1));
    const int64_t hi = isBool ? 1 : (int64_t{1} << bits) - 1;
    if (argument.intValue < lo || argument.intValue > hi)
      return failure("argument '" + argument.name + "' = " + std::to_string(argument.intValue) +
                     " does not fit parameter %" + parameterName + " of type " + type.str());
  }
  return {{BoundParameter::Kind::Scalar, 0, static_cast<uint64_t>(argument.intValue)}, ""};
}

BindAttempt bindParameter(Type type, const std::string& parameterName, const LaunchArgument& argument) {
  if (type.isTensorDesc()) return bindTensorDescriptor(type, parameterName, argument);
  if (type.isPointer()) return bindPointer(type, parameterName, argument);
  return bindScalar(type, parameterName, argument);
}

// The parameters after tensor descriptor parameter `p` (bound to `descriptor`): its shape as i32 values, then its
// strides as i64 values. Appends them to `bound`; "" or the first problem.
std::string expandDescriptor(const Function& kernel, size_t p, const LaunchArgument& descriptor, size_t argument,
                             std::vector<BoundParameter>& bound) {
  const std::string parameterName = parameterBindingName(kernel, p);
  const Type type = kernel.argument(p)->type;
  const size_t rank = descriptor.descShape.size();
  if (p + 2 * rank >= kernel.numArguments())
    return "parameter %" + parameterName + " (" + type.str() + ") must be followed by " + std::to_string(rank) +
           " i32 shape and " + std::to_string(rank) + " i64 stride parameters";
  for (size_t k = 0; k < 2 * rank; ++k) {
    const size_t field = p + 1 + k;
    const Type fieldType = kernel.argument(field)->type;
    const bool isShape = k < rank;
    if (fieldType != (isShape ? Type::i32() : Type::i64()))
      return "parameter %" + parameterBindingName(kernel, field) + " after tensor descriptor %" + parameterName +
             " must be " + (isShape ? "i32 (a shape entry)" : "i64 (a stride entry)") + ", not " + fieldType.str();
    const LaunchArgument value =
        LaunchArgument::integer(descriptor.name, isShape ? descriptor.descShape[k] : descriptor.descStrides[k - rank]);
    BindAttempt attempt = bindScalar(fieldType, parameterBindingName(kernel, field), value);
    if (!attempt.error.empty()) return attempt.error;
    bound.push_back({BoundParameter::Kind::DescriptorField, argument, attempt.bound.bits});
  }
  return "";
}

}  // namespace

LaunchBinding bindLaunch(const Launch& launch) {
  LaunchBinding binding;
  auto fail = [&](std::string message) {
    binding.diagnostics_.push_back({SourcePos{}, std::move(message)});
    binding.parameters_.clear();
    return binding;
  };
  if (!launch.kernel) return fail("no kernel to launch");
  if (binding.diagnostics_ = placeBuffers(launch, binding.placements_); !binding.ok()) return binding;
  if (binding.diagnostics_ = checkSpecialisation(launch, binding.placements_); !binding.ok()) return binding;

  const Function& kernel = *launch.kernel;
  std::vector<bool> used(launch.arguments.size(), false);
  for (size_t p = 0; p < kernel.numArguments(); ++p) {
    const Type type = kernel.argument(p)->type;
    const std::string parameterName = parameterBindingName(kernel, p);
    const size_t index = argumentForParameter(launch, p);
    if (index == launch.arguments.size())
      return fail("missing argument for parameter %" + parameterName + " (" + type.str() + ")");
    used[index] = true;
    const LaunchArgument& argument = launch.arguments[index];
    BindAttempt attempt = bindParameter(type, parameterName, argument);
    if (!attempt.error.empty()) return fail(attempt.error);
    attempt.bound.argument = index;
    binding.parameters_.push_back(attempt.bound);
    if (!type.isTensorDesc()) continue;
    if (std::string error = expandDescriptor(kernel, p, argument, index, binding.parameters_); !error.empty())
      return fail(error);
    p += 2 * argument.descShape.size();
  }
  for (size_t i = 0; i < launch.arguments.size(); ++i)
    if (!used[i]) binding.unused_.push_back(launch.arguments[i].name);
  return binding;
}

}  // namespace tilesim
