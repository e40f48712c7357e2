// Turning command-line flags into a ready Launch, for `run` and `trace`: either a golden-case directory (its
// case.json supplies entry, grid and arguments) or a kernel file with `--grid` and `--arg NAME=FILE.npy|VALUE`.
// Buffers take their element type from the kernel parameter they bind to (so a `<i2` file feeds a bf16 pointer
// as raw bits), and every error names the argument or file.
#include <charconv>
#include <filesystem>
#include <fmt/format.h>

#include "ir/launch/ParameterName.h"
#include "tools/cli/Cli.h"

namespace tilesim::cli {
namespace {

namespace fs = std::filesystem;

std::optional<int64_t> parseInteger(const std::string& text) {
  std::string_view digits = text;
  bool negative = !digits.empty() && digits[0] == '-';
  if (negative || (!digits.empty() && digits[0] == '+')) digits.remove_prefix(1);
  int base = 10;
  if (digits.starts_with("0x") || digits.starts_with("0X")) {
    base = 16;
    digits.remove_prefix(2);
  }
  uint64_t magnitude = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  if (negative && magnitude > uint64_t{1} << 63) return std::nullopt;
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

std::optional<double> parseFloat(const std::string& text) {
  double value = 0;
  const char* begin = text.data();
  if (!text.empty() && text[0] == '+') ++begin;
  auto [end, error] = std::from_chars(begin, text.data() + text.size(), value);
  if (begin == text.data() + text.size() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool looksLikeFile(const std::string& value) {
  return value.ends_with(".npy") || value.find('/') != std::string::npos;
}

LaunchOptions optionsFrom(const LaunchFlags& flags, FloatProfile profile) {
  LaunchOptions options;
  options.profile = profile;
  options.checks = !flags.noCheck;
  options.checkUB = flags.check == "ub";
  options.threads = flags.threads;
  options.maxSteps = flags.maxSteps;
  options.scheduleSeed = flags.scheduleSeed;
  return options;
}

int prepareFromCase(const LaunchFlags& flags, PreparedLaunch& prepared) {
  CaseLoad load = loadGoldenCase(flags.target);
  if (!load.ok()) {
    printError(load.error);
    return kExitBadInput;
  }
  if (!flags.arguments.empty() || !flags.grid.empty() || !flags.entry.empty()) {
    printError("--arg, --grid and --entry apply to a kernel file; " + flags.target + " is a case directory");
    return kExitBadInput;
  }
  int exitCode = kExitOk;
  prepared.module = loadModule(load.goldenCase.kernelPath, exitCode);
  if (!prepared.module) return exitCode == kExitFailed ? kExitBadInput : exitCode;
  prepared.launch.kernel = prepared.module->kernel(load.goldenCase.entry);
  if (!prepared.launch.kernel) {
    printError(load.goldenCase.kernelPath + ": no kernel named '" + load.goldenCase.entry + "'");
    return kExitBadInput;
  }
  CaseArguments built = buildCaseArguments(load.goldenCase);
  if (!built.error.empty()) {
    printError(built.error);
    return kExitBadInput;
  }
  prepared.launch.arguments = std::move(built.arguments);
  prepared.fileTypes = built.fileTypes;
  for (const CaseArgument* source : built.sources) {
    prepared.inputPaths.push_back(source->isTensor ? source->inputPath : "");
    prepared.shapes.push_back(source->shape);
  }
  prepared.launch.grid = load.goldenCase.grid;
  prepared.launch.numWarps = load.goldenCase.numWarps;
  prepared.launch.numStages = load.goldenCase.numStages;
  // --profile over the case's recorded profile (case.json "profile") over triton.
  const FloatProfile profile = !flags.profile.empty() ? (flags.profile == "exact" ? FloatProfile::Exact : FloatProfile::Triton)
                                                      : load.goldenCase.profile.value_or(FloatProfile::Triton);
  prepared.options = optionsFrom(flags, profile);
  if (load.goldenCase.checkUB) prepared.options.checkUB = true;
  prepared.goldenCase = std::move(load.goldenCase);
  return kExitOk;
}

// `NAME=@OTHER[+BYTES]`: parameter NAME points into buffer argument OTHER's storage, BYTES in (Launch.h aliases).
// OTHER must be given earlier; the view runs from the offset to the end of OTHER's storage.
int addAliasArgument(const std::string& name, const std::string& value, Type parameterType, PreparedLaunch& prepared) {
  std::string target = value.substr(1);
  uint64_t offset = 0;
  if (size_t plus = target.find('+'); plus != std::string::npos) {
    std::optional<int64_t> bytes = parseInteger(target.substr(plus + 1));
    if (!bytes || *bytes < 0) {
      printError("--arg " + name + "=" + value + ": the offset after '+' must be a non-negative byte count");
      return kExitBadInput;
    }
    offset = static_cast<uint64_t>(*bytes);
    target = target.substr(0, plus);
  }
  const LaunchArgument* storage = nullptr;
  for (const LaunchArgument& existing : prepared.launch.arguments)
    if (existing.name == target) storage = &existing;
  if (!storage || !storage->isBuffer()) {
    printError("--arg " + name + "=" + value + ": '" + target +
               "' is not a buffer argument given before it (write --arg " + target + "=FILE.npy first)");
    return kExitBadInput;
  }
  const Type pointee = parameterType.pointee();
  if (!pointee.isScalar()) {
    printError(fmt::format("--arg {}: parameter %{} is {}; only pointers to scalars take a buffer", name, name,
                           parameterType.str()));
    return kExitBadInput;
  }
  const uint64_t size = storage->bytes.size();
  const uint64_t elementBytes = static_cast<uint64_t>(storageBytes(pointee.scalarKind()));
  if (offset > size || offset % elementBytes != 0) {
    printError(fmt::format("--arg {}={}: offset {} is {} (buffer {} has {} bytes, elements of {} bytes)", name, value,
                           offset, offset > size ? "past its end" : "not a whole element", target, size, elementBytes));
    return kExitBadInput;
  }
  const uint64_t viewBytes = (size - offset) / elementBytes * elementBytes;
  prepared.inputPaths.push_back("");
  const NpyType storageType = prepared.fileTypes[static_cast<size_t>(storage - prepared.launch.arguments.data())];
  prepared.fileTypes.push_back(npyTypeFits(storageType, pointee.scalarKind()) ? storageType
                                                                              : defaultNpyType(pointee.scalarKind()));
  prepared.shapes.push_back({static_cast<int64_t>(viewBytes / elementBytes)});
  prepared.launch.arguments.push_back(LaunchArgument::alias(name, pointee.scalarKind(), target, offset, viewBytes));
  return kExitOk;
}

// Binds one `NAME=FILE.npy|@OTHER|VALUE` to the kernel parameter of that name.
int addArgument(const std::string& spec, const Function& kernel, PreparedLaunch& prepared) {
  size_t equals = spec.find('=');
  if (equals == std::string::npos || equals == 0) {
    printError("--arg '" + spec + "': expected NAME=FILE.npy or NAME=VALUE");
    return kExitBadInput;
  }
  std::string name = spec.substr(0, equals), value = spec.substr(equals + 1);
  std::optional<Type> parameterType;
  std::vector<std::string> names;
  for (size_t i = 0; i < kernel.numArguments(); ++i) {
    names.push_back(parameterBindingName(kernel, i));
    if (names.back() == name) parameterType = kernel.argument(i)->type;
  }
  if (!parameterType) {
    printError(fmt::format("--arg {}: kernel @{} has no parameter %{} (parameters: {})", name, kernel.name(), name,
                           names.empty() ? "none" : "%" + fmt::format("{}", fmt::join(names, ", %"))));
    return kExitBadInput;
  }
  for (const LaunchArgument& existing : prepared.launch.arguments)
    if (existing.name == name) {
      printError("--arg " + name + " given twice");
      return kExitBadInput;
    }

  if (parameterType->isPointer() && value.starts_with("@")) return addAliasArgument(name, value, *parameterType, prepared);
  if (parameterType->isPointer()) {
    if (!looksLikeFile(value)) {
      printError(fmt::format("--arg {}: parameter %{} is {}, so it needs a .npy file, not '{}'", name, name,
                             parameterType->str(), value));
      return kExitBadInput;
    }
    Type pointee = parameterType->pointee();
    if (!pointee.isScalar()) {
      printError(fmt::format("--arg {}: parameter %{} is {}; only pointers to scalars take a buffer", name, name,
                             parameterType->str()));
      return kExitBadInput;
    }
    NpyLoad load = readNpyFile(value);
    if (!load.ok()) {
      printError("--arg " + name + ": " + load.error);
      return kExitBadInput;
    }
    ScalarKind kind = pointee.scalarKind();
    if (!npyTypeFits(load.array.type, kind)) {
      printError(fmt::format("{}: parameter %{} points to {} but the file holds {}{}", value, name, scalarKindName(kind),
                             npyDescr(load.array.type),
                             kind == ScalarKind::BF16 ? " (bf16 buffers are raw 16-bit patterns in <i2 files)" : ""));
      return kExitBadInput;
    }
    prepared.inputPaths.push_back(value);
    prepared.fileTypes.push_back(load.array.type);
    prepared.shapes.push_back(load.array.shape);
    prepared.launch.arguments.push_back(LaunchArgument::buffer(name, kind, std::move(load.array.bytes)));
    return kExitOk;
  }

  if (looksLikeFile(value)) {
    printError(fmt::format("--arg {}: parameter %{} is {}, a scalar; pass a value, not a file", name, name,
                           parameterType->str()));
    return kExitBadInput;
  }
  std::optional<int64_t> integer = value == "true" ? 1 : value == "false" ? 0 : parseInteger(value);
  std::optional<double> floating = integer ? std::nullopt : parseFloat(value);
  if (!integer && !floating) {
    printError(fmt::format("--arg {}: '{}' is neither an integer, a float, true/false nor a .npy file", name, value));
    return kExitBadInput;
  }
  prepared.inputPaths.push_back("");
  prepared.fileTypes.push_back(NpyType::U8);
  prepared.shapes.push_back({});
  prepared.launch.arguments.push_back(integer ? LaunchArgument::integer(name, *integer)
                                              : LaunchArgument::floating(name, *floating));
  return kExitOk;
}

int prepareFromKernel(const LaunchFlags& flags, PreparedLaunch& prepared) {
  if (flags.grid.empty()) {
    printError("--grid X[,Y,Z] is required to run a kernel file");
    return kExitBadInput;
  }
  std::optional<std::array<int64_t, 3>> grid = parseTriple(flags.grid, 1);
  if (!grid) {
    printError("--grid '" + flags.grid + "': expected X[,Y,Z] with positive integers");
    return kExitBadInput;
  }
  int exitCode = kExitOk;
  prepared.module = loadModule(flags.target, exitCode);
  if (!prepared.module) return exitCode == kExitFailed ? kExitBadInput : exitCode;
  prepared.launch.kernel = prepared.module->kernel(flags.entry);
  if (!prepared.launch.kernel) {
    printError(flags.target + (flags.entry.empty() ? ": no single public tt.func to run (pick one with --entry)"
                                                   : ": no tt.func named '" + flags.entry + "'"));
    return kExitBadInput;
  }
  for (const std::string& spec : flags.arguments)
    if (int code = addArgument(spec, *prepared.launch.kernel, prepared); code != kExitOk) return code;
  prepared.launch.grid = *grid;
  prepared.options = optionsFrom(flags, flags.profile == "triton" ? FloatProfile::Triton : FloatProfile::Exact);
  return kExitOk;
}

}  // namespace

void LaunchFlags::addTo(CLI::App& command) {
  command.add_option("target", target, "a .ttir kernel file, or a golden-case directory (with case.json)")->required();
  command.add_option("--grid", grid, "programs per axis, X[,Y,Z] (kernel files)");
  command.add_option("--arg", arguments,
                     "NAME=FILE.npy (buffer), NAME=@OTHER[+BYTES] (a pointer into buffer OTHER, BYTES in), or "
                     "NAME=VALUE (scalar: 5, -3, 0x1F, 1.5e-3, true)")
      ->allow_extra_args(false);
  command.add_option("--entry", entry, "the tt.func to run when the module has several");
  command.add_flag("--no-check", noCheck, "skip out-of-bounds, undefined-lane and race checks");
  command.add_option("--check", check, "extra checks: 'ub' also reports division by zero, oversized shifts, ...")
      ->check(CLI::IsMember({"ub"}));
  command.add_option("--profile", profile, "float profile: exact (default for kernels) or triton (default for cases)")
      ->check(CLI::IsMember({"exact", "triton"}));
  command.add_option("--threads", threads, "worker threads (0 = all cores)")->check(CLI::Range(0, kMaxThreadsFlag));
  command.add_option("--max-steps", maxSteps,
                     "end a program that runs more than N ops and loop iterations with a 'runaway' report (0 = no limit)")
      ->capture_default_str();
  command.add_option("--schedule-seed", scheduleSeed,
                     "ttg.warp_specialize's interleaving: 0 = round robin at blocking waits (default), N = a random "
                     "schedule seeded with N (docs/ttgir.md)")
      ->check(CLI::NonNegativeNumber);
  addEngineOption(command, engine);
}

std::optional<std::array<int64_t, 3>> parseTriple(const std::string& text, int64_t minimum) {
  std::array<int64_t, 3> values{minimum, minimum, minimum};
  size_t start = 0;
  for (int axis = 0; axis < 3; ++axis) {
    size_t comma = text.find(',', start);
    std::optional<int64_t> value = parseInteger(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (!value || *value < minimum) return std::nullopt;
    values[static_cast<size_t>(axis)] = *value;
    if (comma == std::string::npos) return values;
    start = comma + 1;
  }
  return std::nullopt;  // more than three numbers
}

int prepareLaunch(const LaunchFlags& flags, PreparedLaunch& prepared) {
  std::error_code error;
  if (fs::is_directory(flags.target, error)) {
    if (!isCaseDirectory(flags.target)) {
      printError(flags.target + ": a directory without case.json (expected a .ttir file or a golden-case directory)");
      return kExitBadInput;
    }
    if (int code = prepareFromCase(flags, prepared); code != kExitOk) return code;
  } else if (int code = prepareFromKernel(flags, prepared); code != kExitOk) {
    return code;
  }
  prepared.launch.module = prepared.module.get();
  return kExitOk;
}

}  // namespace tilesim::cli
