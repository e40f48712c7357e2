// Loading a golden case directory: case.json through nlohmann_json, then each input .npy checked against the
// dtype and shape the case declares (so a bf16 argument in a `<i2` file is taken as bf16 bits, and a float32
// argument in an `<i4` file is an error rather than a silent reinterpretation).
#include "conformance/runner/GoldenCase.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ir/FileIO.h"

namespace tilesim {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

struct DtypeName {
  std::string_view name;
  CaseDtype dtype;
};

constexpr DtypeName kDtypes[] = {
    {"bool", {ScalarKind::I1, true}},          {"int1", {ScalarKind::I1, true}},
    {"int8", {ScalarKind::I8, false}},         {"uint8", {ScalarKind::I8, true}},
    {"int16", {ScalarKind::I16, false}},       {"uint16", {ScalarKind::I16, true}},
    {"int32", {ScalarKind::I32, false}},       {"uint32", {ScalarKind::I32, true}},
    {"int64", {ScalarKind::I64, false}},       {"uint64", {ScalarKind::I64, true}},
    {"float16", {ScalarKind::F16, false}},     {"bfloat16", {ScalarKind::BF16, false}},
    {"float32", {ScalarKind::F32, false}},     {"float64", {ScalarKind::F64, false}},
    {"float8_e4m3fn", {ScalarKind::F8E4M3FN, false}}, {"float8e4nv", {ScalarKind::F8E4M3FN, false}},
    {"float8_e5m2", {ScalarKind::F8E5M2, false}},     {"float8e5", {ScalarKind::F8E5M2, false}},
};

// Errors inside the loader are thrown as this and turned into CaseLoad::error at the API boundary.
struct CaseError {
  std::string message;
};

const Json& field(const Json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end()) throw CaseError{where + ": missing \"" + key + "\""};
  return *it;
}

std::string stringField(const Json& object, const char* key, const std::string& where) {
  const Json& value = field(object, key, where);
  if (!value.is_string()) throw CaseError{where + ": \"" + key + "\" is not a string"};
  return value.get<std::string>();
}

int64_t integerOf(const Json& value, const std::string& what) {
  if (!value.is_number_integer()) throw CaseError{what + " is not an integer"};
  if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    throw CaseError{what + " is out of range (more than 2^63-1)"};
  return value.get<int64_t>();
}

// A scalar int argument's bits: any int64, or a uint64 above 2^63-1 taken as its two's-complement bits.
int64_t integerBitsOf(const Json& value, const std::string& what) {
  if (!value.is_number_integer()) throw CaseError{what + " is not an integer"};
  return value.is_number_unsigned() ? static_cast<int64_t>(value.get<uint64_t>()) : value.get<int64_t>();
}

CaseArgument parseArgument(const Json& json, const std::string& directory, size_t index) {
  std::string where = directory + "/case.json: args[" + std::to_string(index) + "]";
  if (!json.is_object()) throw CaseError{where + " is not an object"};
  CaseArgument argument;
  argument.name = stringField(json, "name", where);
  where += " (" + argument.name + ")";
  std::string kind = json.contains("kind") ? stringField(json, "kind", where) : (json.contains("dtype") ? "tensor" : "scalar");
  if (kind == "tensor" || kind == "tensordesc") {
    argument.isTensor = true;
    argument.dtypeName = stringField(json, "dtype", where);
    std::optional<CaseDtype> dtype = caseDtypeFromName(argument.dtypeName);
    if (!dtype) throw CaseError{where + ": unknown dtype \"" + argument.dtypeName + "\""};
    argument.dtype = *dtype;
    const Json& shape = field(json, "shape", where);
    if (!shape.is_array()) throw CaseError{where + ": \"shape\" is not a list"};
    if (shape.size() > static_cast<size_t>(kMaxNpyRank))
      throw CaseError{where + ": \"shape\" has more than " + std::to_string(kMaxNpyRank) + " dimensions"};
    for (const Json& extent : shape) {
      argument.shape.push_back(integerOf(extent, where + ": shape entry"));
      if (argument.shape.back() < 0) throw CaseError{where + ": negative extent in \"shape\""};
    }
    if (!checkedElementCount(argument.shape)) throw CaseError{where + ": \"shape\" has more elements than int64 counts"};
    if (json.contains("alias_of") && !json["alias_of"].is_null()) {
      argument.aliasOf = stringField(json, "alias_of", where);
      if (json.contains("alias_offset")) {
        int64_t offset = integerOf(json["alias_offset"], where + ": \"alias_offset\"");
        if (offset < 0) throw CaseError{where + ": \"alias_offset\" is negative"};
        argument.aliasOffset = static_cast<uint64_t>(offset);
      }
    }
    // An alias's contents are its storage's, so its input file is optional (its shape gives the view's size).
    if (argument.aliasOf.empty() || json.contains("input"))
      argument.inputPath = (fs::path(directory) / stringField(json, "input", where)).string();
    if (json.contains("expected") && !json["expected"].is_null())
      argument.expectedPath = (fs::path(directory) / stringField(json, "expected", where)).string();
    if (kind == "tensordesc") {
      auto list = [&](const char* name) {
        const Json& values = field(json, name, where);
        if (!values.is_array() || values.empty() || values.size() > 5)
          throw CaseError{where + ": \"" + name + "\" must be a list of 1 to 5 integers"};
        std::vector<int64_t> out;
        for (const Json& value : values) out.push_back(integerOf(value, where + ": \"" + name + "\" entry"));
        return out;
      };
      argument.descShape = list("desc_shape");
      argument.descStrides = list("desc_strides");
      argument.descBlockShape = list("block_shape");
      if (argument.descStrides.size() != argument.descShape.size() || argument.descBlockShape.size() != argument.descShape.size())
        throw CaseError{where + ": \"desc_shape\", \"desc_strides\" and \"block_shape\" must have one rank"};
      for (int64_t extent : argument.descShape)
        if (extent <= 0 || extent > INT32_MAX) throw CaseError{where + ": \"desc_shape\" entries must be in 1 .. 2^31-1"};
      std::string padding = json.contains("padding") ? stringField(json, "padding", where) : "zero";
      if (padding != "zero" && padding != "nan") throw CaseError{where + ": \"padding\" is \"zero\" or \"nan\""};
      argument.descPadding = padding == "nan" ? 2 : 1;
    }
    if (json.contains("unordered")) {
      if (!json["unordered"].is_boolean()) throw CaseError{where + ": \"unordered\" is not true or false"};
      argument.unordered = json["unordered"].get<bool>();
    }
    if (json.contains("order_dependent")) {
      if (!json["order_dependent"].is_boolean()) throw CaseError{where + ": \"order_dependent\" is not true or false"};
      argument.orderDependent = json["order_dependent"].get<bool>();
    }
  } else if (kind == "scalar") {
    argument.pytype = stringField(json, "pytype", where);
    const Json& value = field(json, "value", where);
    if (argument.pytype == "float") {
      if (!value.is_number()) throw CaseError{where + ": \"value\" is not a number"};
      argument.scalarIsFloat = true;
      argument.floatValue = value.get<double>();
    } else if (argument.pytype == "int") {
      argument.intValue = integerBitsOf(value, where + ": \"value\"");
    } else if (argument.pytype == "bool") {
      if (!value.is_boolean()) throw CaseError{where + ": \"value\" is not true or false"};
      argument.intValue = value.get<bool>() ? 1 : 0;
    } else {
      throw CaseError{where + ": unsupported pytype \"" + argument.pytype + "\" (int, float or bool)"};
    }
  } else {
    throw CaseError{where + ": unknown kind \"" + kind + "\" (tensor, tensordesc or scalar)"};
  }
  return argument;
}

// Keys it does not read are ignored: notes and made_by are for people, gpu_differs_by_design for
// gpu_backend/tests/device_check.sh (docs/conformance.md "Case format").
GoldenCase parseCase(const std::string& text, const std::string& directory) {
  std::string jsonPath = (fs::path(directory) / "case.json").string();
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) throw CaseError{jsonPath + ": not valid JSON"};
  if (!json.is_object()) throw CaseError{jsonPath + ": not a JSON object"};

  GoldenCase goldenCase;
  goldenCase.directory = directory;
  goldenCase.kernelPath = (fs::path(directory) / "kernel.ttir").string();
  // A Gluon kernel has no TTIR: its case (conformance/gluon/cases) runs from its kernel.ttgir.
  if (!fs::exists(goldenCase.kernelPath) && fs::exists(fs::path(directory) / "kernel.ttgir"))
    goldenCase.kernelPath = (fs::path(directory) / "kernel.ttgir").string();
  std::string base = fs::path(directory).lexically_normal().filename().string();
  if (base.empty()) base = fs::path(directory).lexically_normal().parent_path().filename().string();
  goldenCase.name = json.contains("name") && json["name"].is_string() ? json["name"].get<std::string>() : base;
  goldenCase.entry = json.contains("entry") ? stringField(json, "entry", jsonPath) : "";
  if (json.contains("grid")) {
    const Json& grid = json["grid"];
    if (!grid.is_array() || grid.empty() || grid.size() > 3) throw CaseError{jsonPath + ": \"grid\" is not a list of 1 to 3 integers"};
    for (size_t i = 0; i < grid.size(); ++i) {
      goldenCase.grid[i] = integerOf(grid[i], jsonPath + ": grid entry");
      if (goldenCase.grid[i] < 1) throw CaseError{jsonPath + ": grid entries must be at least 1"};
    }
  }
  if (json.contains("check") && json["check"].is_string() && json["check"] == "ub") goldenCase.checkUB = true;
  if (json.contains("fuzz") && json["fuzz"].is_object() && json["fuzz"].contains("target") && json["fuzz"]["target"].is_string())
    goldenCase.foundOnEngine = json["fuzz"]["target"].get<std::string>();
  if (json.contains("profile")) {
    const std::string profile = stringField(json, "profile", jsonPath);
    if (profile != "exact" && profile != "triton")
      throw CaseError{jsonPath + ": \"profile\" must be \"exact\" or \"triton\", not \"" + profile + "\""};
    goldenCase.profile = profile == "exact" ? FloatProfile::Exact : FloatProfile::Triton;
  }
  if (json.contains("num_warps")) {
    const int64_t warps = integerOf(json["num_warps"], jsonPath + ": num_warps");
    if (warps < 1 || warps > 32 || (warps & (warps - 1)) != 0)
      throw CaseError{jsonPath + ": \"num_warps\" must be a power of two from 1 to 32, not " + std::to_string(warps)};
    goldenCase.numWarps = static_cast<int>(warps);
  }
  if (json.contains("num_stages")) {
    const int64_t stages = integerOf(json["num_stages"], jsonPath + ": num_stages");
    if (stages < 1 || stages > 8) throw CaseError{jsonPath + ": \"num_stages\" must be an integer from 1 to 8, not " + std::to_string(stages)};
    goldenCase.numStages = static_cast<int>(stages);
  }
  if (json.contains("expect_reports")) {
    const Json& reports = json["expect_reports"];
    if (!reports.is_array()) throw CaseError{jsonPath + ": \"expect_reports\" is not a list"};
    goldenCase.expectsReports = true;
    for (size_t i = 0; i < reports.size(); ++i) {
      const Json& entry = reports[i];
      const std::string where = jsonPath + ": expect_reports[" + std::to_string(i) + "]";
      if (!entry.is_object()) throw CaseError{where + " is not an object"};
      ExpectedReport expected;
      expected.kind = stringField(entry, "kind", where);
      if (entry.contains("program")) {
        const Json& program = entry["program"];
        if (!program.is_array() || program.size() != 3) throw CaseError{where + ": \"program\" is not [x, y, z]"};
        std::array<int64_t, 3> id{};
        for (size_t axis = 0; axis < 3; ++axis) id[axis] = integerOf(program[axis], where + ": program entry");
        expected.program = id;
      }
      if (entry.contains("lane")) {
        if (!entry["lane"].is_array()) throw CaseError{where + ": \"lane\" is not a list"};
        std::vector<int64_t> lane;
        for (const Json& index : entry["lane"]) lane.push_back(integerOf(index, where + ": lane entry"));
        expected.lane = lane;
      }
      if (entry.contains("op")) expected.op = stringField(entry, "op", where);
      if (entry.contains("ttir_line")) {
        const int64_t line = integerOf(entry["ttir_line"], where + ": ttir_line");
        if (line < 1 || line > INT32_MAX) throw CaseError{where + ": \"ttir_line\" is not a line number"};
        expected.ttirLine = static_cast<int>(line);
      }
      if (entry.contains("source")) expected.source = stringField(entry, "source", where);
      if (entry.contains("buffer")) expected.buffer = stringField(entry, "buffer", where);
      if (entry.contains("byte_offset")) expected.byteOffset = integerOf(entry["byte_offset"], where + ": byte_offset");
      if (entry.contains("engines")) {
        if (!entry["engines"].is_array()) throw CaseError{where + ": \"engines\" is not a list of engine names"};
        for (const Json& engine : entry["engines"]) {
          if (!engine.is_string() || (engine != "interp" && engine != "gpu"))
            throw CaseError{where + ": \"engines\" entries must be \"interp\" or \"gpu\""};
          expected.engines.push_back(engine.get<std::string>());
        }
      }
      goldenCase.expectReports.push_back(std::move(expected));
    }
  }
  if (json.contains("expect_report_counts")) {
    const Json& counts = json["expect_report_counts"];
    const std::string where = jsonPath + ": expect_report_counts";
    if (!goldenCase.expectsReports) throw CaseError{where + " needs \"expect_reports\" beside it"};
    if (!counts.is_object()) throw CaseError{where + " is not an object of kind: count"};
    for (const auto& [kind, count] : counts.items()) {
      bool known = false;
      for (size_t k = 0; k < kReportKindCount; ++k) known = known || kind == reportKindName(static_cast<Report::Kind>(k));
      if (!known) throw CaseError{where + ": unknown report kind \"" + kind + "\""};
      int64_t value = integerOf(count, where + ": \"" + kind + "\"");
      if (value < 0) throw CaseError{where + ": \"" + kind + "\" is negative"};
      goldenCase.expectReportCounts.emplace_back(kind, value);
    }
  }
  const Json& args = field(json, "args", jsonPath);
  if (!args.is_array()) throw CaseError{jsonPath + ": \"args\" is not a list"};
  for (size_t i = 0; i < args.size(); ++i) goldenCase.arguments.push_back(parseArgument(args[i], directory, i));
  return goldenCase;
}

// Reads a tensor's .npy and checks it holds `argument`'s dtype and shape.
NpyLoad readTensorFile(const CaseArgument& argument, const std::string& path) {
  NpyLoad load = readNpyFile(path);
  if (!load.ok()) return load;
  if (!npyTypeFits(load.array.type, argument.dtype.kind)) {
    load.error = path + ": argument " + argument.name + " is " + argument.dtypeName + " but the file holds " +
                 npyDescr(load.array.type);
  } else {
    int64_t declared = checkedElementCount(argument.shape).value_or(-1);
    if (load.array.numElements() != declared)
      load.error = path + ": argument " + argument.name + " declares " + std::to_string(declared) + " elements (shape " +
                   shapeString(argument.shape) + ") but the file holds " + std::to_string(load.array.numElements());
  }
  return load;
}

}  // namespace

std::optional<CaseDtype> caseDtypeFromName(std::string_view name) {
  if (name.starts_with("torch.")) name.remove_prefix(6);
  for (const DtypeName& entry : kDtypes)
    if (entry.name == name) return entry.dtype;
  return std::nullopt;
}

bool isCaseDirectory(const std::string& directory) {
  // Any case.json, even one that is not a regular file: loading it then fails with the reason, as that case's error.
  std::error_code error;
  return fs::exists(fs::symlink_status(fs::path(directory) / "case.json", error));
}

CaseLoad parseCaseJson(const std::string& text, const std::string& directory) {
  CaseLoad load;
  try {
    load.goldenCase = parseCase(text, directory);
  } catch (const CaseError& error) {
    load.error = error.message;
  } catch (const nlohmann::json::exception& error) {
    load.error = directory + "/case.json: " + error.what();
  }
  return load;
}

CaseLoad loadGoldenCase(const std::string& directory) {
  // Only a regular case.json within the size limit: a FIFO or /dev/zero is this case's error, never a hang.
  const std::string jsonPath = (fs::path(directory) / "case.json").string();
  std::string text, error;
  if (!readRegularFile(jsonPath, kMaxJsonFileBytes, text, error)) {
    CaseLoad load;
    load.error = jsonPath + ": " + error;
    return load;
  }
  return parseCaseJson(text, directory);
}

CaseLaunch caseLaunch(const GoldenCase& goldenCase, const Module& module) {
  CaseLaunch built;
  built.launch.module = &module;
  built.launch.kernel = module.kernel(goldenCase.entry);
  if (!built.launch.kernel) {
    built.error = "no kernel named '" + goldenCase.entry + "'";
    return built;
  }
  CaseArguments arguments = buildCaseArguments(goldenCase);
  if (!arguments.error.empty()) {
    built.error = std::move(arguments.error);
    return built;
  }
  built.launch.arguments = std::move(arguments.arguments);
  built.launch.grid = goldenCase.grid;
  built.launch.numWarps = goldenCase.numWarps;
  built.launch.numStages = goldenCase.numStages;
  built.fileTypes = std::move(arguments.fileTypes);
  return built;
}

CaseArguments buildCaseArguments(const GoldenCase& goldenCase) {
  CaseArguments built;
  for (const CaseArgument& argument : goldenCase.arguments) {
    if (argument.isTensor && !argument.aliasOf.empty()) {
      // A view into another argument's storage: the size comes from the declared shape; an input file, if the
      // case has one, must still match it.
      const uint64_t elements = static_cast<uint64_t>(checkedElementCount(argument.shape).value_or(0));
      // Without an input file, --out writes the view with the default NumPy dtype of its element type.
      NpyType fileType = defaultNpyType(argument.dtype.kind);
      if (!argument.inputPath.empty()) {
        NpyLoad input = readTensorFile(argument, argument.inputPath);
        if (!input.ok()) {
          built.error = input.error;
          return built;
        }
        fileType = input.array.type;
      }
      uint64_t bytes = 0;
      if (__builtin_mul_overflow(elements, static_cast<uint64_t>(storageBytes(argument.dtype.kind)), &bytes)) {
        built.error = goldenCase.directory + "/case.json: argument " + argument.name + ": the view's shape is too large";
        return built;
      }
      built.arguments.push_back(
          LaunchArgument::alias(argument.name, argument.dtype.kind, argument.aliasOf, argument.aliasOffset, bytes));
      built.fileTypes.push_back(fileType);
    } else if (argument.isTensor) {
      NpyLoad input = readTensorFile(argument, argument.inputPath);
      if (!input.ok()) {
        built.error = input.error;
        return built;
      }
      built.arguments.push_back(LaunchArgument::buffer(argument.name, argument.dtype.kind, std::move(input.array.bytes)));
      built.fileTypes.push_back(input.array.type);
    } else {
      built.arguments.push_back(argument.scalarIsFloat ? LaunchArgument::floating(argument.name, argument.floatValue)
                                                       : LaunchArgument::integer(argument.name, argument.intValue));
      built.fileTypes.push_back(NpyType::U8);
    }
    if (!argument.descShape.empty()) {
      LaunchArgument& desc = built.arguments.back();
      desc.descShape = argument.descShape;
      desc.descStrides = argument.descStrides;
      desc.descBlockShape = argument.descBlockShape;
      desc.descPadding = argument.descPadding;
    }
    built.sources.push_back(&argument);
  }
  return built;
}

NpyLoad readExpected(const GoldenCase&, const CaseArgument& argument) {
  return readTensorFile(argument, argument.expectedPath);
}

}  // namespace tilesim
