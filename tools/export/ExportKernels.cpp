// tilesim_export_kernels: writes a corpus of TTIR printed by tilesim's printer, for checking on a GPU machine that
// real Triton parses and compiles what we print (conformance/triton/check_printed_ttir.py; docs/conformance.md).
//   OUT/golden/SET-CASE.ttir      every golden kernel, parsed and re-printed
//   OUT/anonymous/SET-CASE.ttir   the same with every SSA name cleared, so the printer invents %0, %arg0, ...
//   OUT/builder/NAME/kernel.ttir  builder-made kernels, with launch.json, ARG.npy (inputs), and for outputs
//                                 ARG.expected.npy (the interpreter, triton profile) and ARG.bound.npy (f64 bounds)
// Usage: tilesim_export_kernels OUT_DIR [SOURCE_DIR]. Exit 0 when everything was written, 1 otherwise.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "conformance/runner/Npy.h"
#include "interpreter/Interpreter.h"
#include "ir/text/Parser.h"
#include "ir/text/Printer.h"
#include "tools/export/BuilderKernels.h"

namespace fs = std::filesystem;

namespace tilesim::exporter {
namespace {

bool writeText(const fs::path& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  if (!file) std::cerr << path.string() << ": cannot write\n";
  return static_cast<bool>(file);
}

// Writes the printed module, after checking that tilesim's own parser reads it back.
bool writeModule(const fs::path& path, const Module& module) {
  std::string text = printModule(module);
  ParseResult reparsed = parseModule(text, path.string());
  for (const Diagnostic& diagnostic : reparsed.diagnostics) std::cerr << "re-parse: " << diagnostic.str() << "\n";
  return writeText(path, text) && reparsed.module != nullptr;
}

void clearNames(Block& block) {
  for (auto& argument : block.arguments) argument->name.clear();
  for (auto& op : block.operations) {
    for (auto& result : op->results) {
      result->name.clear();
      result->groupIndex = -1;
    }
    for (auto& region : op->regions)
      for (auto& nested : region->blocks) clearNames(*nested);
  }
}

// Parses and re-prints every SET/*/kernel.ttir (with and without SSA names); returns the number of failures.
int exportGoldens(const fs::path& sourceDir, const fs::path& outDir) {
  int failures = 0, written = 0;
  fs::create_directories(outDir / "golden");
  fs::create_directories(outDir / "anonymous");
  for (const char* set : {"golden", "golden-extra"}) {
    std::vector<fs::path> cases;
    for (const auto& entry : fs::directory_iterator(sourceDir / "conformance" / set))
      if (fs::exists(entry.path() / "kernel.ttir")) cases.push_back(entry.path());
    std::sort(cases.begin(), cases.end());
    for (const fs::path& dir : cases) {
      ParseResult parsed = parseModuleFile((dir / "kernel.ttir").string());
      if (!parsed.module) {
        for (const Diagnostic& diagnostic : parsed.diagnostics) std::cerr << diagnostic.str() << "\n";
        ++failures;
        continue;
      }
      std::string file = std::string(set) + "-" + dir.filename().string() + ".ttir";
      if (!writeModule(outDir / "golden" / file, *parsed.module)) ++failures;
      for (auto& function : parsed.module->functions)
        for (auto& region : function->regions)
          for (auto& block : region->blocks) clearNames(*block);
      if (!writeModule(outDir / "anonymous" / file, *parsed.module)) ++failures;
      written += 2;
    }
  }
  std::cout << "golden: " << written << " files written\n";
  return failures;
}

NpyArray npyOf(ScalarKind kind, const std::vector<int64_t>& shape, std::vector<uint8_t> bytes) {
  NpyArray array;
  array.type = defaultNpyType(kind);
  array.shape = shape;
  array.bytes = std::move(bytes);
  return array;
}

// The dtype names of launch.json: the TTIR element type names (ir/Type.h), in lower case as numpy spells them.
std::string kindName(ScalarKind kind) {
  std::string name = scalarKindName(kind);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

// Writes one builder kernel, runs it under the triton float profile and writes the expectations.
bool exportKernel(ExportKernel& kernel, const fs::path& outDir) {
  if (!kernel.module) {
    std::cerr << kernel.name << ": build failed: " << kernel.error << "\n";
    return false;
  }
  fs::path dir = outDir / "builder" / kernel.name;
  fs::create_directories(dir);
  bool ok = writeModule(dir / "kernel.ttir", *kernel.module);
  Launch launch;
  launch.module = kernel.module.get();
  launch.kernel = kernel.module->kernel();
  launch.grid = kernel.grid;
  nlohmann::json arguments = nlohmann::json::array();
  for (const ExportArgument& argument : kernel.arguments) {
    nlohmann::json entry = {{"name", argument.name}};
    if (argument.isBuffer) {
      launch.arguments.push_back(LaunchArgument::buffer(argument.name, argument.kind, argument.bytes));
      std::string error = writeNpyFile((dir / (argument.name + ".npy")).string(), npyOf(argument.kind, argument.shape, argument.bytes));
      if (!error.empty()) std::cerr << error << "\n", ok = false;
      entry.update({{"kind", "buffer"}, {"dtype", kindName(argument.kind)}, {"shape", argument.shape},
                    {"input", argument.name + ".npy"}, {"output", argument.output}, {"unordered", argument.unordered}});
    } else {
      launch.arguments.push_back(LaunchArgument::integer(argument.name, argument.scalar));
      entry.update({{"kind", "scalar"}, {"dtype", kindName(argument.kind)}, {"value", argument.scalar}});
    }
    arguments.push_back(entry);
  }
  LaunchOptions options;
  options.profile = FloatProfile::Triton;
  options.echoPrints = false;
  InterpreterEngine engine;
  LaunchOutcome outcome = engine.run(launch, options);
  for (const Diagnostic& diagnostic : outcome.diagnostics) std::cerr << kernel.name << ": " << diagnostic.str() << "\n";
  for (const Report& report : outcome.result.reports) std::cerr << kernel.name << ": " << report.str() << "\n";
  if (!outcome.started() || !outcome.result.ok()) return false;
  for (size_t i = 0; i < kernel.arguments.size(); ++i) {
    const ExportArgument& argument = kernel.arguments[i];
    if (!argument.output) continue;
    const LaunchArgument& result = launch.arguments[i];
    std::string error = writeNpyFile((dir / (argument.name + ".expected.npy")).string(),
                                     npyOf(argument.kind, argument.shape, result.bytes));
    size_t count = argument.bytes.size() / (bitWidth(argument.kind) <= 8 ? 1 : bitWidth(argument.kind) / 8);
    std::vector<double> bounds = result.errorBound.empty() ? std::vector<double>(count, 0.0) : result.errorBound;
    NpyArray boundArray;
    boundArray.type = NpyType::F64;
    boundArray.shape = argument.shape;
    boundArray.bytes.resize(bounds.size() * sizeof(double));
    std::memcpy(boundArray.bytes.data(), bounds.data(), boundArray.bytes.size());
    if (error.empty()) error = writeNpyFile((dir / (argument.name + ".bound.npy")).string(), boundArray);
    if (!error.empty()) std::cerr << error << "\n", ok = false;
    arguments[i]["expected"] = argument.name + ".expected.npy";
    arguments[i]["bound"] = argument.name + ".bound.npy";
  }
  nlohmann::json launchJson = {{"kernel", kernel.module->kernel()->name()}, {"grid", kernel.grid}, {"arguments", arguments}};
  return writeText(dir / "launch.json", launchJson.dump(1) + "\n") && ok;
}

}  // namespace
}  // namespace tilesim::exporter

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: tilesim_export_kernels OUT_DIR [SOURCE_DIR]\n";
    return 2;
  }
  fs::path outDir = argv[1];
  fs::path sourceDir = argc == 3 ? fs::path(argv[2]) : fs::path(TILESIM_SOURCE_DIR);
  std::error_code error;
  fs::create_directories(outDir, error);
  if (error) {
    std::cerr << outDir.string() << ": " << error.message() << "\n";
    return 1;
  }
  int failures = tilesim::exporter::exportGoldens(sourceDir, outDir);
  std::vector<tilesim::exporter::ExportKernel> kernels = tilesim::exporter::buildExportKernels();
  for (auto& kernel : kernels)
    if (!tilesim::exporter::exportKernel(kernel, outDir)) ++failures;
  std::cout << "builder: " << kernels.size() << " kernels\n";
  if (failures) std::cerr << failures << " failures\n";
  return failures ? 1 : 0;
}
