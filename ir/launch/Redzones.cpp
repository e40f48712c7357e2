// Redzones (Redzones.h): the allocation layout and pattern, finding the changed runs, the findings as Reports,
// and judging them against the interpreter's out-of-bounds writes.
#include "ir/launch/Redzones.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

namespace tilesim {
namespace {

uint64_t roundUp(uint64_t value, uint64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

// The interpreter's windows (interpreter/Memory.h): buffer i starts at (i + 1) << 40; an address belongs, for
// naming, to the window whose start is nearest.
constexpr int kWindowBits = 40;
constexpr uint64_t kHalfWindow = uint64_t{1} << (kWindowBits - 1);

std::string hexBytes(const std::vector<uint8_t>& bytes, size_t limit) {
  std::string text;
  for (size_t i = 0; i < bytes.size() && i < limit; ++i) {
    char byte[4];
    std::snprintf(byte, sizeof byte, "%02x", bytes[i]);
    text += (i ? " " : "") + std::string(byte);
  }
  if (bytes.size() > limit) text += " ...";
  return text;
}

// A (storage, side) pair: what both engines must agree on.
using Side = std::pair<std::string, bool>;  // buffer, before

std::string sideText(bool before) { return before ? "before the start of" : "after the end of"; }

}  // namespace

RedzoneLayout redzoneLayout(uint64_t bytes, uint64_t alignment) {
  RedzoneLayout layout;
  layout.front = roundUp(std::max(kMinRedzoneBytes, alignment), std::max(alignment, kDeviceBufferAlignment));
  layout.size = bytes;
  layout.back = roundUp(bytes, kDeviceBufferAlignment) - bytes + layout.front;
  return layout;
}

uint64_t promisedAlignment(const Function& kernel) {
  uint64_t alignment = kDeviceBufferAlignment;
  for (size_t p = 0; p < kernel.numArguments(); ++p) {
    const Attribute* divisibility = findAttribute(kernel.argumentAttributes(p), "tt.divisibility");
    if (!divisibility || divisibility->kind() != Attribute::Kind::Integer || divisibility->intValue() <= 1) continue;
    uint64_t power = 1;
    while (power < static_cast<uint64_t>(divisibility->intValue()) && power < (uint64_t{1} << 30)) power <<= 1;
    alignment = std::max(alignment, power);
  }
  return alignment;
}

std::vector<uint8_t> allocationWithRedzones(std::span<const uint8_t> bytes, const RedzoneLayout& layout) {
  // Appended in order, so the buffer's bytes are written once (no zero fill first: it can be GiBs).
  std::vector<uint8_t> allocation;
  allocation.reserve(layout.total());
  for (uint64_t k = 0; k < layout.front; ++k) allocation.push_back(redzonePatternByte(k));
  allocation.insert(allocation.end(), bytes.begin(), bytes.end());
  for (uint64_t k = layout.front + layout.size; k < layout.total(); ++k) allocation.push_back(redzonePatternByte(k));
  return allocation;
}

std::vector<RedzoneWrite> findRedzoneWrites(std::span<const uint8_t> allocation, const RedzoneLayout& layout) {
  std::vector<RedzoneWrite> writes;
  if (allocation.size() != layout.total()) return writes;
  auto scan = [&](uint64_t begin, uint64_t end, bool before) {
    // The common case, nothing changed, is a plain compare loop without branches into the run logic.
    for (uint64_t k = begin; k < end; ++k) {
      if (allocation[k] == redzonePatternByte(k)) continue;
      RedzoneWrite write;
      write.before = before;
      write.byteOffset = static_cast<int64_t>(k) - static_cast<int64_t>(layout.front);
      while (k < end && allocation[k] != redzonePatternByte(k)) write.bytes.push_back(allocation[k++]);
      writes.push_back(std::move(write));
    }
  };
  scan(0, layout.front, true);
  scan(layout.front + layout.size, layout.total(), false);
  return writes;
}

std::vector<Report> redzoneReports(const std::string& kernel, const std::string& buffer, const RedzoneLayout& layout,
                                   const std::vector<RedzoneWrite>& writes) {
  std::vector<Report> reports;
  for (const RedzoneWrite& write : writes) {
    Report report;
    report.kind = Report::Kind::OutOfBounds;
    report.program = {-1, -1, -1};
    report.op = kRedzoneCheckOp;
    report.buffer = buffer;
    report.byteOffset = write.byteOffset;
    const int64_t count = static_cast<int64_t>(write.bytes.size());
    const int64_t distance = write.before ? -write.byteOffset : write.byteOffset - static_cast<int64_t>(layout.size);
    char where[160];
    if (write.before)
      std::snprintf(where, sizeof where, "%" PRId64 " byte%s before the start", distance, distance == 1 ? "" : "s");
    else
      std::snprintf(where, sizeof where, "%" PRId64 " byte%s past the end", distance, distance == 1 ? "" : "s");
    report.message = "write of " + std::to_string(count) + " byte" + (count == 1 ? "" : "s") + " at byte offset " +
                     std::to_string(write.byteOffset) + (count > 1 ? ".." + std::to_string(write.byteOffset + count - 1) : "") +
                     " of " + buffer + " (" + std::to_string(layout.size) + " bytes; " + where +
                     "), seen in its redzone after the GPU run of @" + kernel + ": now " + hexBytes(write.bytes, 16);
    reports.push_back(std::move(report));
  }
  return reports;
}

std::vector<OutOfBoundsWriteSite> redzoneVisibleWrites(const std::vector<LaunchArgument>& arguments,
                                                       const std::vector<Report>& reports, uint64_t alignment) {
  std::vector<const LaunchArgument*> windows;  // window i + 1 -> storage
  for (const LaunchArgument& argument : arguments)
    if (argument.isBuffer() && !argument.isAlias()) windows.push_back(&argument);
  std::vector<OutOfBoundsWriteSite> sites;
  for (const Report& report : reports) {
    if (report.kind != Report::Kind::OutOfBounds || report.op == kRedzoneCheckOp) continue;
    if (report.message.rfind("write", 0) != 0) continue;
    long long bytes = 0;
    std::sscanf(report.message.c_str(), "write of %lld", &bytes);
    // The address: window base + offset when the report names a buffer; else parsed from "at address 0x...".
    uint64_t address = 0;
    if (!report.buffer.empty()) {
      auto named = std::find_if(windows.begin(), windows.end(),
                                [&](const LaunchArgument* argument) { return argument->name == report.buffer; });
      if (named == windows.end()) continue;
      const uint64_t window = static_cast<uint64_t>(named - windows.begin()) + 1;
      address = (window << kWindowBits) + static_cast<uint64_t>(report.byteOffset);
    } else {
      const size_t at = report.message.find("at address 0x");
      if (at == std::string::npos) continue;
      unsigned long long parsed = 0;
      if (std::sscanf(report.message.c_str() + at, "at address 0x%llx", &parsed) != 1) continue;
      address = parsed;
    }
    const uint64_t home = (address + kHalfWindow) >> kWindowBits;
    if (home == 0 || home > windows.size()) continue;
    const LaunchArgument& storage = *windows[home - 1];
    const int64_t offset = static_cast<int64_t>(address - (home << kWindowBits));
    const RedzoneLayout layout = redzoneLayout(storage.bytes.size(), alignment);
    const int64_t size = static_cast<int64_t>(layout.size);
    const bool covered = (offset < 0 && offset >= -static_cast<int64_t>(layout.front)) ||
                         (offset + std::max<int64_t>(bytes, 1) > size && offset < size + static_cast<int64_t>(layout.back));
    if (covered) sites.push_back({storage.name, offset, bytes});
  }
  return sites;
}

std::string compareOutOfBoundsWrites(const std::vector<LaunchArgument>& arguments, const std::vector<Report>& interpreter,
                                     const std::vector<Report>& device, const std::string& deviceName,
                                     uint64_t alignment) {
  std::map<Side, const Report*> seen;
  for (const Report& report : device)
    if (report.kind == Report::Kind::OutOfBounds && report.op == kRedzoneCheckOp)
      seen.emplace(Side{report.buffer, report.byteOffset < 0}, &report);
  std::map<Side, OutOfBoundsWriteSite> expected;
  for (const OutOfBoundsWriteSite& site : redzoneVisibleWrites(arguments, interpreter, alignment))
    expected.emplace(Side{site.buffer, site.byteOffset < 0}, site);
  std::string lines;
  for (const auto& [side, report] : seen)
    if (!expected.count(side))
      lines += "  " + deviceName + " wrote " + sideText(side.second) + " " + side.first +
               " and the interpreter reports no out-of-bounds write there: " + report->message + "\n";
  for (const auto& [side, site] : expected)
    if (!seen.count(side))
      lines += "  the interpreter reports a write of " + std::to_string(site.bytes) + " bytes at byte offset " +
               std::to_string(site.byteOffset) + ", " + sideText(side.second) + " " + side.first + ", and " +
               deviceName + "'s redzone there is unchanged\n";
  return lines;
}

}  // namespace tilesim
