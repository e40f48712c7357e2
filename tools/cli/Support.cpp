// Helpers every command uses: error printing and loading a TTIR file (parse, then verify).
#include <cstdio>
#include <filesystem>

#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"
#include "tools/cli/Cli.h"

namespace tilesim::cli {

void printError(const std::string& message) { std::fprintf(stderr, "tilesim: error: %s\n", message.c_str()); }

void printDiagnostics(const Diagnostics& diagnostics) {
  // A diagnostic without a position (a launch argument) gets the program name, like printError's lines.
  for (const Diagnostic& diagnostic : diagnostics)
    std::fprintf(stderr, "%s%s\n", diagnostic.pos.file.empty() ? "tilesim: " : "", diagnostic.str().c_str());
}

int64_t printReports(const LaunchResult& result) {
  for (const Report& report : result.reports) std::printf("%s\n", report.str().c_str());
  int64_t total = 0;
  for (size_t kind = 0; kind < result.totalByKind.size(); ++kind) {
    int64_t hidden = result.totalByKind[kind];
    total += hidden;
    for (const Report& report : result.reports) hidden -= static_cast<size_t>(report.kind) == kind ? 1 : 0;
    if (hidden > 0)
      std::printf("... and %lld more %s reports\n", static_cast<long long>(hidden),
                  reportKindName(static_cast<Report::Kind>(kind)));
  }
  return total;
}

std::unique_ptr<Module> loadModule(const std::string& path, int& exitCode) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    printError(path + (std::filesystem::exists(path, error) ? ": not a regular file" : ": no such file"));
    exitCode = kExitBadInput;
    return nullptr;
  }
  ParseResult parsed = parseModuleFile(path);
  if (!parsed.diagnostics.empty() || !parsed.module) {
    printDiagnostics(parsed.diagnostics);
    exitCode = kExitFailed;
    return nullptr;
  }
  if (Diagnostics problems = verifyModule(*parsed.module); !problems.empty()) {
    printDiagnostics(problems);
    exitCode = kExitFailed;
    return nullptr;
  }
  return std::move(parsed.module);
}

}  // namespace tilesim::cli
