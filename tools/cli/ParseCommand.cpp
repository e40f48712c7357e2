// `tilesim parse FILE` (print the module back, as Triton would print it) and `tilesim check FILE` (parse,
// verify, and the interpreter's static checks of inline asm; `FILE: ok` or one diagnostic per line).
#include <cstdio>

#include "interpreter/ptx/InlineAsmCheck.h"
#include "ir/text/Parser.h"
#include "ir/text/Printer.h"
#include "ir/verify/Verifier.h"
#include "tools/cli/Cli.h"
#include "tools/cli/CommandFlags.h"

namespace tilesim::cli {
namespace {

struct ParseFlags {
  std::string file;
  bool noLocations = false;
  bool verify = false;
};

int runParse(const ParseFlags& flags) {
  int exitCode = kExitOk;
  std::unique_ptr<Module> module =
      flags.verify ? loadModule(flags.file, exitCode) : parseModuleOrReport(flags.file, exitCode);
  if (!module) return exitCode;
  PrintOptions options;
  options.locations = !flags.noLocations;
  std::fputs(printModule(*module, options).c_str(), stdout);
  return kExitOk;
}

// What the verifier cannot know but run would refuse: inline asm outside the PTX subset or its bounds
// (interpreter/ptx/InlineAsmCheck.h). One diagnostic per such op.
Diagnostics interpreterChecks(const Module& module) {
  Diagnostics problems;
  for (const auto& function : module.functions)
    walk(*function, [&](const Operation& op) {
      if (op.kind != OpKind::TTElementwiseInlineAsm) return;
      ptx::PtxProgram program;
      if (std::string error = ptx::checkInlineAsm(op, program); !error.empty()) problems.push_back({op.textPos, error});
    });
  return problems;
}

int runCheck(const std::vector<std::string>& files) {
  int worst = kExitOk;
  for (const std::string& file : files) {
    int exitCode = kExitOk;
    std::unique_ptr<Module> module = loadModule(file, exitCode);
    if (module) {
      if (Diagnostics problems = interpreterChecks(*module); !problems.empty()) {
        printDiagnostics(problems);
        exitCode = kExitFailed;
      } else {
        std::printf("%s: ok\n", file.c_str());
      }
    }
    worst = std::max(worst, exitCode);
  }
  return worst;
}

}  // namespace

void addParseCommands(CLI::App& app, int& exitCode) {
  auto [parse, parseFlags] =
      addCommandWithFlags(app, "parse", "parse a TTIR file and print it back (or its diagnostics)", runParse, exitCode);
  parse->add_option("file", parseFlags->file, "TTIR file")->required();
  parse->add_flag("--no-locations", parseFlags->noLocations, "leave out loc(...) annotations and the #loc table");
  parse->add_flag("--verify", parseFlags->verify, "also run the verifier before printing");

  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* check = app.add_subcommand("check", "parse and verify TTIR files: 'FILE: ok' or diagnostics on stderr");
  check->add_option("files", *files, "TTIR files")->required();
  check->callback([files, &exitCode] { exitCode = runCheck(*files); });
}

}  // namespace tilesim::cli
