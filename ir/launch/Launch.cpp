// Argument constructors, the options of a compared run, and buffer placement (aliases resolved to their storage),
// shared by every engine.
#include "ir/launch/Launch.h"
#include "ir/launch/ParameterName.h"

#include <algorithm>
#include <set>

namespace tilesim {

LaunchOptions LaunchOptions::comparedRun(FloatProfile profile, ProgramOrder order, int threads) {
  LaunchOptions options;
  options.profile = profile;
  options.order = order;
  options.threads = threads;
  options.echoPrints = false;
  return options;
}

LaunchArgument LaunchArgument::buffer(std::string name, ScalarKind kind, std::vector<uint8_t> bytes) {
  LaunchArgument a;
  a.name = std::move(name);
  a.kind = Kind::Buffer;
  a.elementKind = kind;
  a.bytes = std::move(bytes);
  return a;
}

LaunchArgument LaunchArgument::alias(std::string name, ScalarKind kind, std::string target, uint64_t offsetBytes,
                                     uint64_t sizeBytes) {
  LaunchArgument a = buffer(std::move(name), kind, std::vector<uint8_t>(sizeBytes));
  a.aliasOf = std::move(target);
  a.aliasOffset = offsetBytes;
  return a;
}

LaunchArgument LaunchArgument::integer(std::string name, int64_t value) {
  LaunchArgument a;
  a.name = std::move(name);
  a.intValue = value;
  a.floatValue = static_cast<double>(value);
  return a;
}

LaunchArgument LaunchArgument::floating(std::string name, double value) {
  LaunchArgument a;
  a.name = std::move(name);
  a.scalarIsFloat = true;
  a.floatValue = value;
  a.intValue = 0;
  return a;
}

Diagnostics placeBuffers(const Launch& launch, std::vector<BufferPlacement>& placements) {
  Diagnostics problems;
  auto fail = [&](std::string message) { problems.push_back({SourcePos{}, std::move(message)}); };
  const std::vector<LaunchArgument>& arguments = launch.arguments;
  std::set<std::string> names;
  for (const LaunchArgument& argument : arguments)
    if (!names.insert(argument.name).second) fail("argument '" + argument.name + "' is given twice");
  auto indexOf = [&](const std::string& name) -> std::optional<size_t> {
    for (size_t i = 0; i < arguments.size(); ++i)
      if (arguments[i].name == name) return i;
    return std::nullopt;
  };
  placements.assign(arguments.size(), {});
  for (size_t i = 0; i < arguments.size(); ++i) {
    placements[i] = {i, 0};
    const LaunchArgument& argument = arguments[i];
    if (!argument.isBuffer()) continue;
    const uint64_t elementBytes = static_cast<uint64_t>(storageBytes(argument.elementKind));
    if (argument.bytes.size() % elementBytes != 0) {
      fail("argument '" + argument.name + "': buffer size " + std::to_string(argument.bytes.size()) +
           " is not a multiple of its element size (" + std::to_string(elementBytes) + " bytes)");
      continue;
    }
    // Follow the alias chain to the owner, adding offsets; a chain longer than the argument list is a cycle.
    size_t at = i;
    uint64_t offset = 0;
    bool ok = true;
    for (size_t steps = 0; arguments[at].isAlias(); ++steps) {
      const LaunchArgument& view = arguments[at];
      std::optional<size_t> target = indexOf(view.aliasOf);
      if (!target || !arguments[*target].isBuffer()) {
        fail("argument '" + view.name + "' is an alias of '" + view.aliasOf + "', which is not a buffer argument");
        ok = false;
        break;
      }
      if (steps > arguments.size()) {
        fail("argument '" + argument.name + "': its alias_of chain is a cycle");
        ok = false;
        break;
      }
      offset += view.aliasOffset;
      at = *target;
    }
    if (!ok) continue;
    const uint64_t storageSize = arguments[at].bytes.size();
    if (offset > storageSize || argument.bytes.size() > storageSize - offset) {
      fail("argument '" + argument.name + "': its view (" + std::to_string(argument.bytes.size()) +
           " bytes at byte offset " + std::to_string(offset) + ") does not fit in '" + arguments[at].name + "' (" +
           std::to_string(storageSize) + " bytes)");
      continue;
    }
    placements[i] = {at, offset};
  }
  return problems;
}

size_t argumentForParameter(const Launch& launch, size_t p) {
  const std::vector<LaunchArgument>& arguments = launch.arguments;
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].parameter >= 0 && static_cast<size_t>(arguments[i].parameter) == p) return i;
  if (!launch.kernel) return arguments.size();
  const std::string name = parameterBindingName(*launch.kernel, p);
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].parameter < 0 && arguments[i].name == name) return i;
  return arguments.size();
}

Diagnostics checkSpecialisation(const Launch& launch, const std::vector<BufferPlacement>& placements) {
  Diagnostics problems;
  if (!launch.kernel) return problems;
  const Function& kernel = *launch.kernel;
  for (size_t p = 0; p < kernel.numArguments(); ++p) {
    const Attribute* divisibility = findAttribute(kernel.argumentAttributes(p), "tt.divisibility");
    if (!divisibility || divisibility->kind() != Attribute::Kind::Integer || divisibility->intValue() <= 1) continue;
    const uint64_t required = static_cast<uint64_t>(divisibility->intValue());
    const size_t i = argumentForParameter(launch, p);
    if (i == launch.arguments.size()) continue;
    {
      const LaunchArgument& argument = launch.arguments[i];
      const std::string& name = argument.name;
      if (argument.isBuffer()) {
        const uint64_t offset = i < placements.size() ? placements[i].offset : 0;
        if (offset % required != 0)
          problems.push_back({SourcePos{}, "argument '" + name + "' points " + std::to_string(offset) + " bytes into '" +
                                               launch.arguments[placements[i].storage].name +
                                               "', but the kernel was specialised for tt.divisibility = " +
                                               std::to_string(required) + " (an address that is a multiple of " +
                                               std::to_string(required) + ")"});
      } else if (!argument.scalarIsFloat && static_cast<uint64_t>(argument.intValue) % required != 0) {
        problems.push_back({SourcePos{}, "argument '" + name + "' = " + std::to_string(argument.intValue) +
                                             ", but the kernel was specialised for tt.divisibility = " +
                                             std::to_string(required) + " (a multiple of " + std::to_string(required) + ")"});
      }
    }
  }
  return problems;
}

void refreshAliasViews(Launch& launch, const std::vector<BufferPlacement>& placements) {
  for (size_t i = 0; i < launch.arguments.size(); ++i) {
    LaunchArgument& view = launch.arguments[i];
    if (!view.isAlias() || i >= placements.size()) continue;
    const LaunchArgument& storage = launch.arguments[placements[i].storage];
    const uint64_t offset = placements[i].offset;
    std::copy_n(storage.bytes.begin() + static_cast<ptrdiff_t>(offset), view.bytes.size(), view.bytes.begin());
    view.errorBound.clear();
    if (!storage.errorBound.empty()) {
      const uint64_t elementBytes = static_cast<uint64_t>(storageBytes(storage.elementKind));
      const uint64_t viewElementBytes = static_cast<uint64_t>(storageBytes(view.elementKind));
      const uint64_t count = view.bytes.size() / viewElementBytes;
      view.errorBound.resize(count);
      // Each view element takes the bound of the storage element its first byte lies in.
      for (uint64_t e = 0; e < count; ++e)
        view.errorBound[e] = storage.errorBound[(offset + e * viewElementBytes) / elementBytes];
    }
  }
}

}  // namespace tilesim
