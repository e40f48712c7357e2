// Redzones (ir/launch/Redzones.h) without a GPU: the layout keeps the promised alignment and covers the
// allocation padding, the pattern is where it should be, a changed byte anywhere in a redzone is found with its
// side, offset and bytes, the report says so, and the judgement against the interpreter's out-of-bounds writes
// (reports written as interpreter/MemoryAccess.h writes them) agrees and disagrees where it should. Also the cost
// of the fill and check per launch, printed for docs/fuzzing.md.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "ir/launch/Redzones.h"
#include "ir/text/Parser.h"

namespace tilesim {
namespace {

TEST(Redzones, TheLayoutKeepsTheAlignmentAndCoversThePadding) {
  RedzoneLayout small = redzoneLayout(40);
  EXPECT_EQ(small.front, 256u);
  EXPECT_EQ(small.size, 40u);
  EXPECT_EQ(small.back, 256u - 40u + 256u);  // the padding to the next 256-byte boundary, then 256
  EXPECT_EQ(small.total() % 256, 0u);
  RedzoneLayout exact = redzoneLayout(512);
  EXPECT_EQ(exact.back, 256u);
  RedzoneLayout empty = redzoneLayout(0);
  EXPECT_EQ(empty.front + empty.back, 512u);
  RedzoneLayout wide = redzoneLayout(100, 1024);  // a kernel that may assume 1024-byte alignment
  EXPECT_EQ(wide.front, 1024u);
  EXPECT_EQ(wide.front % 1024, 0u);
  EXPECT_GE(wide.back, 1024u);
}

TEST(Redzones, ThePatternSurroundsTheBytesAndNeighboursDiffer) {
  const std::vector<uint8_t> bytes = {1, 2, 3, 4, 5};
  RedzoneLayout layout = redzoneLayout(bytes.size());
  std::vector<uint8_t> allocation = allocationWithRedzones(bytes, layout);
  ASSERT_EQ(allocation.size(), layout.total());
  for (size_t i = 0; i < bytes.size(); ++i) EXPECT_EQ(allocation[layout.front + i], bytes[i]);
  EXPECT_EQ(allocation[0], redzonePatternByte(0));
  EXPECT_EQ(allocation[layout.total() - 1], redzonePatternByte(layout.total() - 1));
  for (uint64_t k = 1; k < 1024; ++k) EXPECT_NE(redzonePatternByte(k), redzonePatternByte(k - 1)) << k;
  EXPECT_TRUE(findRedzoneWrites(allocation, layout).empty());
}

TEST(Redzones, AWriteOnEitherSideIsFoundWithItsOffsetAndBytes) {
  const std::vector<uint8_t> bytes(40, 0);  // ten f32
  RedzoneLayout layout = redzoneLayout(bytes.size());
  std::vector<uint8_t> allocation = allocationWithRedzones(bytes, layout);
  const float one = 1.0f;
  std::memcpy(&allocation[layout.front + 40], &one, 4);        // element 10: one past the end
  allocation[layout.front - 3] = static_cast<uint8_t>(~allocation[layout.front - 3]);  // 3 bytes before the start
  allocation[layout.front + 200] = static_cast<uint8_t>(~allocation[layout.front + 200]);  // in the padding
  std::vector<RedzoneWrite> writes = findRedzoneWrites(allocation, layout);
  ASSERT_EQ(writes.size(), 3u);
  EXPECT_TRUE(writes[0].before);
  EXPECT_EQ(writes[0].byteOffset, -3);
  EXPECT_EQ(writes[0].bytes.size(), 1u);
  EXPECT_FALSE(writes[1].before);
  EXPECT_EQ(writes[1].byteOffset, 40);
  EXPECT_EQ(writes[1].bytes, (std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3f}));
  EXPECT_EQ(writes[2].byteOffset, 200);

  std::vector<Report> reports = redzoneReports("vadd", "out_ptr", layout, {writes[1]});
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].kind, Report::Kind::OutOfBounds);
  EXPECT_EQ(reports[0].buffer, "out_ptr");
  EXPECT_EQ(reports[0].byteOffset, 40);
  EXPECT_EQ(reports[0].op, kRedzoneCheckOp);
  EXPECT_EQ(reports[0].str(),
            "out-of-bounds: write of 4 bytes at byte offset 40..43 of out_ptr (40 bytes; 0 bytes past the end), seen in "
            "its redzone after the GPU run of @vadd: now 00 00 80 3f [program unknown, redzone check]");
  std::vector<Report> before = redzoneReports("vadd", "x_ptr", layout, {writes[0]});
  EXPECT_NE(before[0].message.find("3 bytes before the start"), std::string::npos) << before[0].message;
}

TEST(Redzones, TheAlignmentPromisedIsTheLargestDivisibilityOr256) {
  ParseResult parsed = parseModule(R"(
module {
  tt.func public @k(%a: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %b: !tt.ptr<f32>) {
    tt.return
  }
  tt.func public @wide(%a: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 1000 : i32}) {
    tt.return
  }
}
)", "alignment.ttir");
  ASSERT_TRUE(parsed.module);
  EXPECT_EQ(promisedAlignment(*parsed.module->kernel("k")), 256u);
  EXPECT_EQ(promisedAlignment(*parsed.module->kernel("wide")), 1024u);
}

TEST(Redzones, AWrongSizeAllocationFindsNothingRatherThanReadingPastIt) {
  RedzoneLayout layout = redzoneLayout(8);
  std::vector<uint8_t> shorter(layout.total() - 1, 0);
  EXPECT_TRUE(findRedzoneWrites(shorter, layout).empty());
}

// The launch's arguments: x (window 1) and out (window 2) own storage, view is an alias of out.
std::vector<LaunchArgument> arguments() {
  std::vector<LaunchArgument> list;
  list.push_back(LaunchArgument::buffer("x_ptr", ScalarKind::F32, std::vector<uint8_t>(40)));
  list.push_back(LaunchArgument::buffer("out_ptr", ScalarKind::F32, std::vector<uint8_t>(40)));
  list.push_back(LaunchArgument::alias("view", ScalarKind::F32, "out_ptr", 8, 16));
  return list;
}

// An out-of-bounds report as the interpreter writes one (interpreter/MemoryAccess.h, reportOutOfBounds).
Report interpreterWrite(const std::string& buffer, uint64_t offset, const std::string& size = "40") {
  Report report;
  report.kind = Report::Kind::OutOfBounds;
  report.op = "tt.store";
  report.buffer = buffer;
  report.byteOffset = static_cast<int64_t>(offset);
  report.message = "write of 4 bytes at byte offset " + std::to_string(offset) + " of " + buffer + " (" + size + " bytes)";
  return report;
}

Report deviceWrite(const std::string& buffer, int64_t offset) {
  RedzoneLayout layout = redzoneLayout(40);
  return redzoneReports("k", buffer, layout, {RedzoneWrite{offset < 0, offset, {1, 2, 3, 4}}})[0];
}

TEST(Redzones, TheInterpretersWritesAreDecodedToTheirStorageAndSide) {
  std::vector<Report> reports;
  reports.push_back(interpreterWrite("out_ptr", 40));                           // just past out
  reports.push_back(interpreterWrite("x_ptr", (uint64_t{1} << 40) - 4));        // x's window, but just before out
  Report outside = interpreterWrite("", 0);
  outside.buffer.clear();
  outside.byteOffset = -1;
  outside.message = "write of 4 bytes at address 0xfffffffffc, outside every buffer of the launch";  // before x
  reports.push_back(outside);
  reports.push_back(interpreterWrite("out_ptr", 100000));                       // far past: no redzone sees it
  Report read = interpreterWrite("out_ptr", 40);
  read.message = "read of 4 bytes at byte offset 40 of out_ptr (40 bytes)";      // a read: nothing to see
  reports.push_back(read);
  std::vector<OutOfBoundsWriteSite> sites = redzoneVisibleWrites(arguments(), reports);
  ASSERT_EQ(sites.size(), 3u);
  EXPECT_EQ(sites[0].buffer, "out_ptr");
  EXPECT_EQ(sites[0].byteOffset, 40);
  EXPECT_EQ(sites[0].bytes, 4);
  EXPECT_EQ(sites[1].buffer, "out_ptr");
  EXPECT_EQ(sites[1].byteOffset, -4);
  EXPECT_EQ(sites[2].buffer, "x_ptr");
  EXPECT_EQ(sites[2].byteOffset, -4);
}

TEST(Redzones, TheEnginesAgreeOnlyWhenTheyNameTheSameStorageAndSide) {
  const std::vector<LaunchArgument> launch = arguments();
  EXPECT_EQ(compareOutOfBoundsWrites(launch, {}, {}, "gpu"), "");
  // The planted bug: the GPU writes one element past out, the interpreter (masked lane) reports nothing.
  std::string missed = compareOutOfBoundsWrites(launch, {}, {deviceWrite("out_ptr", 40)}, "gpu");
  EXPECT_NE(missed.find("  gpu wrote after the end of out_ptr and the interpreter reports no out-of-bounds write there"),
            std::string::npos)
      << missed;
  // Both see the write past out: agreement, whatever the exact offsets.
  EXPECT_EQ(compareOutOfBoundsWrites(launch, {interpreterWrite("out_ptr", 44)}, {deviceWrite("out_ptr", 40)}, "gpu"), "");
  // The interpreter's write before out, the GPU's after it: two disagreements.
  std::string sides = compareOutOfBoundsWrites(launch, {interpreterWrite("x_ptr", (uint64_t{1} << 40) - 4)},
                                               {deviceWrite("out_ptr", 40)}, "gpu");
  EXPECT_NE(sides.find("the interpreter reports a write of 4 bytes at byte offset -4, before the start of out_ptr, and "
                       "gpu's redzone there is unchanged"),
            std::string::npos)
      << sides;
  EXPECT_NE(sides.find("gpu wrote after the end of out_ptr"), std::string::npos) << sides;
  // A write no redzone covers is not held against the device.
  EXPECT_EQ(compareOutOfBoundsWrites(launch, {interpreterWrite("out_ptr", 100000)}, {}, "gpu"), "");
}

// The price per launch: fill (allocationWithRedzones, which also places the bytes) and check, for fuzz-sized and
// benchmark-sized buffers. Printed, not asserted beyond a generous ceiling (the machine is shared).
TEST(Redzones, FillAndCheckCostPerLaunch) {
  for (uint64_t bytes : {uint64_t{4096}, uint64_t{1} << 20, uint64_t{16} << 20}) {
    const std::vector<uint8_t> buffer(bytes, 7);
    const RedzoneLayout layout = redzoneLayout(bytes);
    const int rounds = bytes <= 4096 ? 2000 : bytes <= (1u << 20) ? 50 : 3;
    auto start = std::chrono::steady_clock::now();
    size_t found = 0;
    for (int r = 0; r < rounds; ++r) {
      std::vector<uint8_t> allocation = allocationWithRedzones(buffer, layout);
      found += findRedzoneWrites(allocation, layout).size();
    }
    const double micros = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / rounds;
    std::printf("redzones: fill + check of a %llu-byte buffer: %.2f us per launch\n", static_cast<unsigned long long>(bytes),
                micros);
    EXPECT_EQ(found, 0u);
    EXPECT_LT(micros, 2e6);
  }
}

}  // namespace
}  // namespace tilesim
