// What every module the builder produces must satisfy, checked by the builder tests: it passes the verifier
// (when tilesim_ir_verify is built), and printing it then re-parsing the text gives an equal module.
// Returns an empty string when all holds, else what failed (diagnostics, or the first difference).
#pragma once

#include <string>

#include "ir/IR.h"
#include "ir/text/Equality.h"
#include "ir/text/Parser.h"
#include "ir/text/Printer.h"
#include "ir/verify/Verifier.h"

namespace tilesim::builder {

inline std::string checkWellFormed(const Module& module) {
  std::string problems;
  std::string text = printModule(module);
  for (const Diagnostic& diagnostic : verifyModule(module)) problems += "\n  verify: " + diagnostic.str();
  ParseResult reparsed = parseModule(text, "built.ttir");
  for (const Diagnostic& diagnostic : reparsed.diagnostics) problems += "\n  re-parse: " + diagnostic.str();
  std::string difference;
  if (reparsed.module && !modulesEqual(module, *reparsed.module, &difference))
    problems += "\n  round trip: " + difference;
  if (!problems.empty()) problems += "\n  printed:\n" + text;
  return problems;
}

}  // namespace tilesim::builder
