// Structured control flow as Triton 3.6's code generator builds it for runtime values (docs/builder.md):
// `for i in range(lb, ub, step)` becomes scf.for with the loop-carried variables as iter_args (visit_For), and
// `if cond:` on a runtime scalar becomes scf.if whose results are the variables both branches assign
// (visit_if_scf). Bodies are callbacks that build into the region's block; values defined outside may be used
// inside. Type rules and messages follow code_generator.py: bounds go through to_tensor and
// integer_promote_impl; a carried variable may not change type; both branches must yield the same types.
#include <algorithm>
#include <sstream>

#include "ir/builder/KernelBuilder.h"
#include "ir/builder/Semantic.h"

namespace tilesim::builder {

namespace {

// Makes `block` the emitter's insertion block for the scope's lifetime (also when an exception leaves it).
class BlockScope {
 public:
  BlockScope(Emitter& emitter, Block* block) : emitter_(emitter) { emitter_.pushBlock(block); }
  ~BlockScope() { emitter_.popBlock(); }
  BlockScope(const BlockScope&) = delete;
  BlockScope& operator=(const BlockScope&) = delete;

 private:
  Emitter& emitter_;
};

// A loop op (scf.for, scf.while) with `operands` then the carried initial values as operands and one result per
// carried value. The op itself takes no name: the name hint is the carried results' (set by the caller).
Operation* createLoop(Emitter& emitter, OpKind kind, std::vector<Value*> operands,
                      const std::vector<Tensor>& initialValues) {
  std::vector<Type> resultTypes;
  for (const Tensor& init : initialValues) {
    operands.push_back(init.value);
    resultTypes.push_back(init.value->type);
  }
  const std::string savedHint = emitter.nameHint();
  emitter.setNameHint("");
  Operation* op = emitter.create(kind, operands, resultTypes);
  emitter.setNameHint(savedHint);
  return op;
}

// A Triton type as Python prints it: `fp32`, `pointer<fp32>`, `<(16, 16), fp32>`.
std::string tritonTypeString(const Tensor& t) {
  std::string element = t.pointer ? "pointer<" + std::string(dtypeName(t.dtype)) + ">" : std::string(dtypeName(t.dtype));
  if (!t.isBlock()) return element;
  std::ostringstream out;
  out << "<(";
  for (size_t i = 0; i < t.shape.size(); ++i) out << (i ? ", " : "") << t.shape[i];
  if (t.shape.size() == 1) out << ",";
  out << "), " << element << ">";
  return out.str();
}

bool sameType(const Tensor& a, const Tensor& b) {
  return a.dtype == b.dtype && a.pointer == b.pointer && a.shape == b.shape;
}

std::string nameAt(const std::vector<std::string>& names, size_t index, const std::string& fallback) {
  return index < names.size() && !names[index].empty() ? names[index] : fallback;
}

}  // namespace

std::vector<Tensor> KernelBuilder::forLoop(const Operand& lower, const Operand& upper, const Operand& step,
                                           const std::vector<Tensor>& initialValues, const LoopBody& body,
                                           const std::vector<std::string>& names) {
  if (error_) return {};
  try {
    for (const Tensor& init : initialValues)
      if (!init.valid()) throwFrontendError(FrontendError::Kind::ValueError, "loop-carried initial value is not a tensor");
    // A negative constexpr step counts down: the range is swapped and iv = ub - iv + lb (visit_For).
    Operand lb = lower, ub = upper, st = step;
    bool negativeStep = false;
    if (step.isLiteral() && step.literal().kind != Literal::Kind::Float && step.literal().intValue < 0) {
      negativeStep = true;
      st = Literal::bigInt(-step.literal().intValue);
      std::swap(lb, ub);
    }
    if (step.isLiteral() && step.literal().kind != Literal::Kind::Float && step.literal().intValue == 0)
      throwFrontendError(FrontendError::Kind::ValueError, "range() arg 3 must not be zero");
    Tensor bounds[3] = {semantic::toTensor(*emitter_, lb), semantic::toTensor(*emitter_, ub), semantic::toTensor(*emitter_, st)};
    for (const Tensor& bound : bounds) {
      if (!isInt(bound.dtype) || bound.pointer)
        throwFrontendError(FrontendError::Kind::TypeError,
                           "For loop bounds and step must all be ints, are (" + tritonTypeString(bounds[0]) + ", " +
                               tritonTypeString(bounds[1]) + ", " + tritonTypeString(bounds[2]) + ")");
      if (bound.isBlock())
        throwFrontendError(FrontendError::Kind::TypeError, "For loop bounds and step must be scalars, got " + tritonTypeString(bound));
    }
    DType ivType = integerPromote(integerPromote(bounds[0].dtype, bounds[1].dtype), bounds[2].dtype);
    bool ivSigned = !isUnsignedInt(ivType);
    // create_int_cast(bound, iv type, iv_is_signed): extension by the *induction variable's* signedness.
    auto castBound = [&](const Tensor& bound) -> Tensor {
      if (bound.dtype == ivType) return bound;
      Operation* definer = bound.value->definingOp;
      if ((definer && definer->kind == OpKind::ArithConstant) || primitiveBitWidth(bound.dtype) > primitiveBitWidth(ivType))
        return emitter_->cast(bound, ivType);
      if (primitiveBitWidth(bound.dtype) == primitiveBitWidth(ivType)) return Emitter::tensorOf(bound.value, ivType, false, {});
      Value* extended = emitter_->createValue(ivSigned ? OpKind::ArithExtSI : OpKind::ArithExtUI, {bound.value},
                                              Emitter::typeOf(ivType, false, {}));
      return Emitter::tensorOf(extended, ivType, false, {});
    };
    for (Tensor& bound : bounds) bound = castBound(bound);

    const std::string savedHint = emitter_->nameHint();
    Operation* op = createLoop(*emitter_, OpKind::SCFFor, {bounds[0].value, bounds[1].value, bounds[2].value},
                               initialValues);
    if (!ivSigned) op->setAttr("unsignedCmp", Attribute::unit());
    Block& block = op->addRegion().addBlock();
    Value* ivValue = block.addArgument(Emitter::typeOf(ivType, false, {}));
    if (!names.empty() && !names[0].empty()) emitter_->nameValue(ivValue, names[0]);
    std::vector<Tensor> carried;
    for (size_t i = 0; i < initialValues.size(); ++i) {
      Value* argument = block.addArgument(initialValues[i].value->type);
      if (i + 1 < names.size() && !names[i + 1].empty()) emitter_->nameValue(argument, names[i + 1]);
      const Tensor& init = initialValues[i];
      carried.push_back(Emitter::tensorOf(argument, init.dtype, init.pointer, init.shape));
    }
    {
      BlockScope scope(*emitter_, &block);
      Tensor iv = Emitter::tensorOf(ivValue, ivType, false, {});
      if (negativeStep) {
        Tensor reversed = Emitter::tensorOf(emitter_->createValue(OpKind::ArithSubI, {bounds[1].value, iv.value}, iv.value->type),
                                            ivType, false, {});
        iv = Emitter::tensorOf(emitter_->createValue(OpKind::ArithAddI, {reversed.value, bounds[0].value}, iv.value->type),
                               ivType, false, {});
      }
      std::vector<Tensor> next = body(*this, iv, carried);
      if (error_) return {};
      if (next.size() != initialValues.size())
        throwFrontendError(FrontendError::Kind::AssertionError,
                           "loop body returned " + std::to_string(next.size()) + " values for " +
                               std::to_string(initialValues.size()) + " loop-carried variables");
      std::vector<Value*> yielded;
      for (size_t i = 0; i < next.size(); ++i) {
        std::string name = nameAt(names, i + 1, "arg" + std::to_string(i));
        if (!next[i].valid()) throwFrontendError(FrontendError::Kind::AssertionError, "Loop-carried variable " + name + " is not a tensor");
        if (!sameType(next[i], initialValues[i]))
          throwFrontendError(FrontendError::Kind::AssertionError,
                             "Loop-carried variable " + name + " has initial type " + tritonTypeString(initialValues[i]) +
                                 " but is re-assigned to " + tritonTypeString(next[i]) +
                                 " in loop! Please make sure that the type stays consistent.");
        yielded.push_back(next[i].value);
      }
      emitter_->create(OpKind::SCFYield, yielded, {});
    }
    std::vector<Tensor> results;
    for (size_t i = 0; i < initialValues.size(); ++i) {
      Value* result = op->result(i);
      emitter_->nameValue(result, nameAt(names, i + 1, savedHint));
      const Tensor& init = initialValues[i];
      results.push_back(Emitter::tensorOf(result, init.dtype, init.pointer, init.shape));
    }
    return results;
  } catch (const FrontendException& exception) {
    error_ = exception.error;
    return {};
  }
}

std::vector<Tensor> KernelBuilder::ifThenElse(const Operand& condition, const Branch& thenBody, const Branch& elseBody,
                                              const std::vector<std::string>& names) {
  if (error_) return {};
  if (condition.isLiteral()) {
    // A constexpr condition is resolved at compile time: only the taken branch is built, inline.
    bool taken = condition.literal().kind == Literal::Kind::Float ? condition.literal().floatValue != 0
                                                                   : condition.literal().intValue != 0;
    const Branch& branch = taken ? thenBody : elseBody;
    if (!branch) return {};
    std::vector<Tensor> results = branch(*this);
    return error_ ? std::vector<Tensor>{} : results;
  }
  try {
    Tensor cond = condition.tensor();
    if (!cond.valid()) throwFrontendError(FrontendError::Kind::ValueError, "if condition is not a tensor");
    if (cond.isBlock())
      throwFrontendError(FrontendError::Kind::UnsupportedLanguageConstruct, "Boolean value of Tensor with more than one value is ambiguous");
    cond = emitter_->cast(cond, DType::Int1);  // cond.to(tl.int1): `!= 0` for ints
    std::string savedHint = emitter_->nameHint();
    Operation* op = emitter_->create(OpKind::SCFIf, {cond.value}, {});
    Block& thenBlock = op->addRegion().addBlock();
    Region& elseRegion = op->addRegion();
    std::vector<Tensor> thenResults, elseResults;
    {
      BlockScope scope(*emitter_, &thenBlock);
      if (thenBody) thenResults = thenBody(*this);
      if (error_) return {};
    }
    bool hasElse = static_cast<bool>(elseBody);
    if (hasElse) {
      Block& elseBlock = elseRegion.addBlock();
      BlockScope scope(*emitter_, &elseBlock);
      elseResults = elseBody(*this);
      if (error_) return {};
    }
    if (thenResults.size() != elseResults.size())
      throwFrontendError(FrontendError::Kind::AssertionError,
                         "then block yields " + std::to_string(thenResults.size()) + " values but else block yields " +
                             std::to_string(elseResults.size()));
    for (size_t i = 0; i < thenResults.size(); ++i) {
      std::string name = nameAt(names, i, "result" + std::to_string(i));
      if (!thenResults[i].valid() || !elseResults[i].valid())
        throwFrontendError(FrontendError::Kind::AssertionError, "branch result " + name + " is not a tensor");
      if (!sameType(thenResults[i], elseResults[i]))
        throwFrontendError(FrontendError::Kind::AssertionError,
                           "Mismatched type for " + name + " between then block (" + tritonTypeString(thenResults[i]) +
                               ") and else block (" + tritonTypeString(elseResults[i]) + ")");
    }
    auto yield = [&](Block& block, const std::vector<Tensor>& values) {
      std::vector<Value*> yielded;
      for (const Tensor& value : values) yielded.push_back(value.value);
      BlockScope scope(*emitter_, &block);
      emitter_->create(OpKind::SCFYield, yielded, {});
    };
    yield(thenBlock, thenResults);
    if (hasElse) yield(elseRegion.front(), elseResults);
    std::vector<Tensor> results;
    for (size_t i = 0; i < thenResults.size(); ++i) {
      const Tensor& value = thenResults[i];
      Value* result = op->addResult(value.value->type);
      emitter_->nameValue(result, nameAt(names, i, savedHint));
      results.push_back(Emitter::tensorOf(result, value.dtype, value.pointer, value.shape));
    }
    return results;
  } catch (const FrontendException& exception) {
    error_ = exception.error;
    return {};
  }
}

std::vector<Tensor> KernelBuilder::whileLoop(const std::vector<Tensor>& initialValues, const WhileCondition& condition,
                                             const WhileBody& body) {
  if (error_) return {};
  try {
    for (const Tensor& init : initialValues)
      if (!init.valid()) throwFrontendError(FrontendError::Kind::ValueError, "while-carried initial value is not a tensor");
    const std::string savedHint = emitter_->nameHint();
    Operation* op = createLoop(*emitter_, OpKind::SCFWhile, {}, initialValues);
    auto carriedOf = [&](Block& block) {
      std::vector<Tensor> carried;
      for (const Tensor& init : initialValues)
        carried.push_back(Emitter::tensorOf(block.addArgument(init.value->type), init.dtype, init.pointer, init.shape));
      return carried;
    };
    Block& before = op->addRegion().addBlock();
    std::vector<Tensor> beforeArgs = carriedOf(before);
    {
      BlockScope scope(*emitter_, &before);
      Tensor cond = condition(*this, beforeArgs);
      if (error_) return {};
      if (!cond.valid() || cond.isBlock())
        throwFrontendError(FrontendError::Kind::UnsupportedLanguageConstruct, "while condition must be a scalar");
      cond = emitter_->cast(cond, DType::Int1);
      std::vector<Value*> forwarded{cond.value};
      for (const Tensor& value : beforeArgs) forwarded.push_back(value.value);
      emitter_->create(OpKind::SCFCondition, forwarded, {});
    }
    Block& after = op->addRegion().addBlock();
    std::vector<Tensor> afterArgs = carriedOf(after);
    {
      BlockScope scope(*emitter_, &after);
      std::vector<Tensor> next = body(*this, afterArgs);
      if (error_) return {};
      if (next.size() != initialValues.size())
        throwFrontendError(FrontendError::Kind::AssertionError, "while body returned the wrong number of values");
      std::vector<Value*> yielded;
      for (size_t i = 0; i < next.size(); ++i) {
        if (!next[i].valid() || !sameType(next[i], initialValues[i]))
          throwFrontendError(FrontendError::Kind::AssertionError,
                             "Loop-carried variable " + std::to_string(i) + " changes type in the while loop");
        yielded.push_back(next[i].value);
      }
      emitter_->create(OpKind::SCFYield, yielded, {});
    }
    std::vector<Tensor> results;
    for (size_t i = 0; i < initialValues.size(); ++i) {
      const Tensor& init = initialValues[i];
      emitter_->nameValue(op->result(i), savedHint);
      results.push_back(Emitter::tensorOf(op->result(i), init.dtype, init.pointer, init.shape));
    }
    return results;
  } catch (const FrontendException& exception) {
    error_ = exception.error;
    return {};
  }
}

std::vector<Tensor> KernelBuilder::call(const std::string& name, const std::vector<Tensor>& arguments, const FunctionBody& body) {
  if (error_) return {};
  try {
    Module& module = emitter_->module();
    std::vector<Type> inputs;
    std::vector<Value*> operands;
    for (const Tensor& argument : arguments) {
      if (!argument.valid()) throwFrontendError(FrontendError::Kind::ValueError, "call argument is not a tensor");
      inputs.push_back(argument.value->type);
      operands.push_back(argument.value);
    }
    Operation* callee = nullptr;
    for (const auto& function : module.functions)
      if (function->attr("sym_name") && function->attr("sym_name")->text() == name) callee = function.get();
    std::vector<Type> outputs;
    if (!callee) {
      auto function = std::make_unique<Operation>(OpKind::TTFunc);
      function->setAttr("sym_name", Attribute::string(name));
      function->setAttr("sym_visibility", Attribute::string("private"));
      function->setAttr("noinline", Attribute::boolean(true));
      Block& block = function->addRegion().addBlock();
      std::vector<Tensor> parameters;
      for (const Tensor& argument : arguments)
        parameters.push_back(Emitter::tensorOf(block.addArgument(argument.value->type), argument.dtype, argument.pointer, argument.shape));
      callee = function.get();
      module.functions.push_back(std::move(function));
      BlockScope scope(*emitter_, &block);
      std::vector<Tensor> returned = body(*this, parameters);
      if (error_) return {};
      std::vector<Value*> values;
      for (const Tensor& value : returned) {
        if (!value.valid()) throwFrontendError(FrontendError::Kind::ValueError, "helper returns a non-tensor");
        values.push_back(value.value);
        outputs.push_back(value.value->type);
      }
      emitter_->create(OpKind::TTReturn, values, {});
      callee->setAttr("function_type", Attribute::typeAttr(Type::function(inputs, outputs)));
      helperResults_[name] = returned;
    }
    const Type functionType = callee->attr("function_type")->type();
    if (!std::equal(functionType.inputs().begin(), functionType.inputs().end(), inputs.begin(), inputs.end()))
      throwFrontendError(FrontendError::Kind::TypeError, "helper " + name + " called with other argument types");
    outputs.assign(functionType.results().begin(), functionType.results().end());
    Operation* op = emitter_->create(OpKind::TTCall, operands, outputs, {{"callee", Attribute::symbolRef(name)}});
    std::vector<Tensor> results;
    const std::vector<Tensor>& templates = helperResults_.at(name);
    for (size_t i = 0; i < outputs.size(); ++i)
      results.push_back(Emitter::tensorOf(op->result(i), templates[i].dtype, templates[i].pointer, templates[i].shape));
    return results;
  } catch (const FrontendException& exception) {
    error_ = exception.error;
    return {};
  }
}

}  // namespace tilesim::builder
