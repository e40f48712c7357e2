// Regression cases from the fuzzer (see RegressionWriter.h). Buffers use tilesim's default .npy dtypes
// (conformance/runner/Npy.h defaultNpyType: bf16 as <i2 bit patterns, unsigned ints in signed files of their
// width), which the case loader accepts for the dtype named in case.json.
#include "fuzz/programs/RegressionWriter.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "conformance/runner/Npy.h"
#include "ir/FileIO.h"
#include "ir/text/Printer.h"

namespace tilesim::fuzz {

namespace {

std::string caseDtypeName(builder::DType dtype) {
  switch (dtype) {
    case builder::DType::Int1: return "bool";
    case builder::DType::Fp16: return "float16";
    case builder::DType::BF16: return "bfloat16";
    case builder::DType::Fp32: return "float32";
    case builder::DType::Fp64: return "float64";
    case builder::DType::Fp8E4Nv: return "float8_e4m3fn";
    case builder::DType::Fp8E5: return "float8_e5m2";
    default: return std::string(builder::dtypeName(dtype));  // int8 .. uint64
  }
}

std::string writeBuffer(const std::string& path, ScalarKind kind, const std::vector<uint8_t>& bytes) {
  NpyArray array;
  array.type = defaultNpyType(kind);
  array.shape = {static_cast<int64_t>(bytes.size()) / storageBytes(kind)};
  array.bytes = bytes;
  return writeNpyFile(path, array);
}

}  // namespace

std::string writeRegressionCase(const std::string& directory, const std::string& name, const BuiltKernel& kernel,
                                const std::vector<std::vector<uint8_t>>& expected, const std::string& note) {
  CaseWriteOptions options;
  options.note = note;
  return writeCase(directory, name, kernel, expected, options);
}

std::string writeCase(const std::string& directory, const std::string& name, const BuiltKernel& kernel,
                      const std::vector<std::vector<uint8_t>>& expected, const CaseWriteOptions& options) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(directory) / name;
  // Real directories only, and every file written by replacing its entry (ir/FileIO.h): a symlink planted in the
  // emit or regression directory is never written through.
  if (std::string error = realDirectory(directory); !error.empty()) return error;
  if (std::string error = realDirectory(dir.string()); !error.empty()) return error;
  if (std::string error = replaceFile((dir / "kernel.ttir").string(), printModule(*kernel.module)); !error.empty())
    return error;
  nlohmann::ordered_json caseJson;
  caseJson["name"] = name;
  caseJson["entry"] = "fuzz_kernel";
  caseJson["grid"] = {kernel.grid[0], kernel.grid[1], kernel.grid[2]};
  caseJson["num_warps"] = kernel.numWarps;
  if (!options.note.empty()) caseJson["note"] = options.note;
  nlohmann::ordered_json args = nlohmann::ordered_json::array();
  for (size_t i = 0; i < kernel.arguments.size(); ++i) {
    const LaunchArgument& argument = kernel.arguments[i];
    nlohmann::ordered_json arg;
    arg["name"] = argument.name;
    arg["kind"] = "tensor";
    arg["dtype"] = caseDtypeName(kernel.argumentDTypes[i]);
    arg["shape"] = {static_cast<int64_t>(argument.bytes.size()) / storageBytes(argument.elementKind)};
    arg["input"] = argument.name + ".npy";
    if (argument.isAlias()) {  // a view into an earlier argument's storage (the generator's offset views)
      arg["alias_of"] = argument.aliasOf;
      arg["alias_offset"] = argument.aliasOffset;
    }
    std::string error = writeBuffer((dir / (argument.name + ".npy")).string(), argument.elementKind, argument.bytes);
    if (!error.empty()) return error;
    if (argument.name.rfind("in", 0) != 0) {  // outputs and atomic buffers: written by the kernel
      arg["expected"] = argument.name + ".expected.npy";
      error = writeBuffer((dir / (argument.name + ".expected.npy")).string(), argument.elementKind, expected.at(i));
      if (!error.empty()) return error;
      nlohmann::ordered_json engineFiles = nlohmann::ordered_json::object();
      for (const EngineOutputs& other : options.others) {
        const std::string file = argument.name + "." + other.engine + ".npy";
        error = writeBuffer((dir / file).string(), argument.elementKind, other.buffers.at(i));
        if (!error.empty()) return error;
        engineFiles[other.engine] = file;
      }
      if (!options.others.empty()) arg["engine_outputs"] = engineFiles;
    }
    args.push_back(arg);
  }
  caseJson["args"] = args;
  for (const auto& [key, value] : options.extra.items()) caseJson[key] = value;
  return replaceFile((dir / "case.json").string(), caseJson.dump(1) + "\n");
}

}  // namespace tilesim::fuzz
