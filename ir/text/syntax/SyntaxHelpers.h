// The pieces several custom-syntax pairs share (ir/text/syntax/CustomSyntax.h): on the parse side the trailing
// `{attrs} : T`, keyword attributes, the `cacheModifier = .. evictionPolicy = ..` options and `%a, %b : T, U`
// lists; on the print side their mirror images. PrintOps.cpp uses the print helpers for the table-driven forms too.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/IR.h"
#include "ir/text/ParserImpl.h"
#include "ir/text/PrinterImpl.h"

namespace tilesim::text::syntax {

// ---- parse side ----

// `{attrs} : T` (the dictionary optional): the type.
Type typeAfterColon(ParserImpl& parser, Operation& op);
// `{attrs} : (T, ...) -> (U, ...)`: the function type.
Type functionTypeAfterColon(ParserImpl& parser, Operation& op);
// `{attrs} : T -> U` after the single operand `source` (already read): resolves it as a T, returns {U}.
std::vector<Type> finishConversion(ParserImpl& parser, Operation& op, const OperandRef& source, const char* betweenTypes);
// A bare word stored as the Keyword attribute `name`; `what` names it in the error when the word is missing.
void parseKeywordAttribute(ParserImpl& parser, Operation& op, const char* name, const char* what);
// Zero or more of `cacheModifier = W` (attribute cache) and `evictionPolicy = W` (attribute evict).
void parseMemoryOptions(ParserImpl& parser, Operation& op);
// `%a, %b {attrs} : T, U`, or nothing at all (a yield or return without values).
void parseOperandsThenTypes(ParserImpl& parser, Operation& op);
// `%a, %b {attrs} : (T, U) -> (V)`: the operands resolved as the function type's inputs; its results.
std::vector<Type> parseOperandsOfFunctionType(ParserImpl& parser, Operation& op);
// `%source, %destination`: the two operands of a copy into memory, the comma between them required.
std::pair<OperandRef, OperandRef> parseSourceAndDestination(ParserImpl& parser);
// ` : (T, ...) -> (U, ...)` typing `operands` (already read) of an op with regions: as many inputs as operands
// (else "OP has N WHAT but its type lists M", at the type), the operands resolved as the inputs. `colonContext`
// completes "expected ':' ...". The type and where it starts (for later errors about it).
struct OperandsFunctionType {
  Type type;
  size_t offset = 0;
};
OperandsFunctionType resolveOperandsByFunctionType(ParserImpl& parser, Operation& op,
                                                   const std::vector<OperandRef>& operands, const char* colonContext,
                                                   const char* opName, const char* what);
// ` attributes {..}`, when present (after the regions of scf.while and ttg.warp_specialize).
void parseOptionalAttributesKeyword(ParserImpl& parser, Operation& op);
std::vector<Type> inputsOf(Type function);
std::vector<Type> resultsOf(Type function);

// ---- print side ----

// The text of attribute `name` ("" when absent): a keyword, string or symbol as stored.
std::string attributeText(const Operation& op, std::string_view name);
// `(T, ...) -> (U, ...)` of `inputs` and the op's results.
std::string functionTypeOf(const std::vector<Value*>& inputs, const Operation& op);
Type firstResultType(const Operation& op);  // invalid when the op has no result
std::string operandTypeText(const Operation& op, size_t index);  // "?" when the operand is missing
std::string resultTypesText(const Operation& op);  // `T, U` of every result
// ` %a, %b : T, U` of the operands from `begin`; nothing when there are none.
void printOperandsAndTypes(PrinterImpl& printer, const Operation& op, size_t begin);
// ` %a, %b {attrs} : T` where T is the first operand's type.
void printOperandsThenFirstType(PrinterImpl& printer, const Operation& op);
// ` %a[%i, ...]`: operand 0, then operands [1, indicesEnd) in square brackets (a gather's indices, a memory
// descriptor's index, a TMA descriptor's coordinates).
void printIndexedOperand(PrinterImpl& printer, const Operation& op, size_t indicesEnd);
// `{before}%v` for operand `index` when the op has it (an optional trailing operand: ` token %t`, `, %pred`).
void printOptionalOperand(PrinterImpl& printer, const Operation& op, size_t index, std::string_view before);
// ` cacheModifier = W evictionPolicy = W`, each when its attribute is present.
void printMemoryOptions(PrinterImpl& printer, const Operation& op);

}  // namespace tilesim::text::syntax
