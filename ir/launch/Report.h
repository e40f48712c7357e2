// What a launch tells its caller about the program it ran: Reports (program outcomes — a bug in the kernel, or
// something the engine cannot run), grouped summaries of them, and the LaunchResult that carries both. Every
// engine produces these; the runner, the command line and the fuzzer consume them without knowing which engine
// ran. Reports are values, never aborts: a bad kernel is an answer, not a crash (docs/developing.md, three failure channels).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/Location.h"

namespace tilesim {

// Every report kind once: X(Id, "name", "what it means").
#define TILESIM_REPORT_KINDS(X)                                                                                   \
  X(OutOfBounds, "out-of-bounds", "an unmasked access outside every buffer of the launch")                         \
  X(UndefinedUse, "undefined-value", "an undefined lane reached memory, an address or control flow")               \
  X(Race, "race", "two programs touch one address, at least one writing, not both with atomics")                       \
  X(SameValueRace, "same-value-race", "two programs write the same bytes to one address without atomics")          \
  X(AssertFailed, "assert", "a tt.assert failed")                                                                   \
  X(AssumeViolated, "assume", "an llvm.intr.assume (tl.assume) condition was false: undefined behaviour for LLVM") \
  X(UndefinedBehavior, "undefined-behavior", "--check=ub: division by zero, oversized shift, float->int overflow") \
  X(Unsupported, "unsupported", "the kernel uses something this engine cannot run")                               \
  X(Misaligned, "misaligned", "a load, store or atomic at an address that is not a multiple of its size")          \
  X(StepLimit, "runaway", "a program ran past the step budget (--max-steps): a loop that never ends?")             \
  X(AsyncHazard, "async-hazard", "TTGIR: shared memory read before the async copy that fills it completed")      \
  X(BarrierMisuse, "mbarrier", "TTGIR: an mbarrier used before init or after inval, or a wait that never completes") \
  X(SharedMemoryMisuse, "shared-memory", "TTGIR: shared memory used after local_dealloc, or read before written") \
  X(PartitionRace, "partition-race", "TTGIR: two warp_specialize partitions touch the same shared memory, one writing, no mbarrier ordering them")

struct Report {
  enum class Kind : uint8_t {
#define TILESIM_REPORT_KIND_ENUM(id, name, meaning) id,
    TILESIM_REPORT_KINDS(TILESIM_REPORT_KIND_ENUM)
#undef TILESIM_REPORT_KIND_ENUM
  };
  Kind kind;
  std::array<int64_t, 3> program{};  // program id (x, y, z)
  std::vector<int64_t> lane;         // multi-index into the op's tile; empty for scalars
  std::string op;                    // "tt.load"
  SourcePos ttirPos;                 // the op's line in the TTIR
  std::string sourceLoc;             // Python source from the loc table, "kernels.py:12:24"
  std::string buffer;                // argument name of the buffer involved, if any
  int64_t byteOffset = -1;           // offset into that buffer
  std::string message;               // the rest, e.g. "read 4 bytes at 0x... past the end of x_ptr (20000 bytes)"
  std::string str() const;           // one line for humans
};

inline constexpr size_t kReportKindCount = 0
#define TILESIM_REPORT_KIND_COUNT(id, name, meaning) +1
    TILESIM_REPORT_KINDS(TILESIM_REPORT_KIND_COUNT)
#undef TILESIM_REPORT_KIND_COUNT
    ;
const char* reportKindName(Report::Kind kind);     // "out-of-bounds"
const char* reportKindMeaning(Report::Kind kind);  // one line for docs and --help

// All reports of one kind from one op in one program, summarised: how many lanes, the first and last lane
// (row-major order) and the range of byte offsets. Every report is counted here, stored or not.
struct ReportGroup {
  Report first;                 // the group's first report (smallest lane)
  int64_t count = 0;
  std::vector<int64_t> lastLane;
  int64_t minByteOffset = -1, maxByteOffset = -1;
  std::string str() const;      // one line; for a single report, Report::str()
};

// Orders reports by kind, program (z, y, x), TTIR line, lane, message: the order results are presented in, so
// output does not depend on thread count or program order.
bool reportLess(const Report& a, const Report& b);

struct LaunchResult {
  std::vector<Report> reports;        // sorted (reportLess); at most maxReportsPerKind of each kind
  std::vector<ReportGroup> groups;    // every report, grouped by kind, program and op; same order
  std::array<int64_t, kReportKindCount> totalByKind{};  // including those not stored
  std::vector<std::string> unusedArguments;
  std::vector<std::string> printed;   // tt.print lines, in program order (at most maxPrintLines)
  int64_t droppedPrintLines = 0;      // tt.print lines beyond maxPrintLines, counted, not kept
  bool ok() const { return reports.empty(); }
  int64_t totalReports() const;
  int64_t total(Report::Kind kind) const { return totalByKind[static_cast<size_t>(kind)]; }
};

}  // namespace tilesim
