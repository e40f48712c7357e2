// Reads TTIR exactly as Triton 3.6 prints it (compiled_kernel.asm['ttir']): `#locN = loc(...)` aliases before
// and after the module, `loc(...)` on ops, block arguments and function parameters, named SSA values
// (`%offs_2`, `%acc:3`, `%acc#1`), attribute dictionaries, properties `<{...}>`, every op's custom syntax and
// the generic form (`"tt.reduce"(%x) <{axis = 0 : i32}> ({ ^bb0(...): ... }) : (...) -> ...`).
// Errors are Diagnostics with file:line:col of the offending token; parsing never aborts on bad input.
#pragma once

#include <memory>
#include <string_view>

#include "ir/Diagnostic.h"
#include "ir/IR.h"

namespace tilesim {

struct ParseResult {
  std::unique_ptr<Module> module;  // null when diagnostics is non-empty
  Diagnostics diagnostics;
};

ParseResult parseModule(std::string_view text, std::string_view fileName);
// Reads a file; a missing/unreadable file is a diagnostic too.
ParseResult parseModuleFile(const std::string& path);

}  // namespace tilesim
