// The engine's internals: one Executor runs program instances one at a time on one thread, reading the
// shared, read-only LaunchContext (prepared functions, constant tiles, options) and the shared Memory.
// Per-op semantics live in small files by op family (ir/Ops.def's TILESIM_FAMILY lines): Executor.cpp
// (dispatch, constants, program ids, control flow, calls, debug), Movement.cpp (Shape), MemoryOps.cpp
// (Pointer, Memory), Atomics.cpp (Atomic), ReduceScan.cpp, Dot.cpp, and the elementwise numerics in
// Elementwise*.cpp. Program outcomes are Reports collected in a ReportSink; a fatal one (a trap)
// ends the program by throwing ProgramTrap, which runProgram turns into a Report.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <tuple>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "interpreter/Interpreter.h"
#include "interpreter/Memory.h"
#include "interpreter/SharedMemory.h"
#include "interpreter/Tile.h"
#include "ir/IR.h"

namespace tilesim {

struct PreparedFunction {
  const Operation* op = nullptr;
  unsigned numValues = 0;
};

struct LaunchContext {
  const Module* module = nullptr;
  std::unordered_map<std::string, PreparedFunction> functions;  // by symbol name
  std::unordered_map<const Operation*, TileRef> constantTiles;   // arith.constant, tt.make_range
  PreparedFunction kernel;
  std::vector<TileRef> kernelArguments;  // one per kernel parameter, bound once per launch
  Memory* memory = nullptr;
  LaunchOptions options;
  const ProgramTrace* trace = nullptr;  // tilesim trace: the one program to report op by op
  std::array<int64_t, 3> grid{1, 1, 1};
  // LaunchOptions::interrupted, asked on the launching thread at most every 50 ms; once it says yes, every
  // thread sees `stopped`.
  std::thread::id launcher = std::this_thread::get_id();
  mutable std::atomic<bool> stopped{false};
  mutable std::chrono::steady_clock::time_point lastPoll{};
  bool interrupted() const {
    if (stopped.load(std::memory_order_relaxed)) return true;
    if (!options.interrupted || std::this_thread::get_id() != launcher) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now - lastPoll < std::chrono::milliseconds(50)) return false;
    lastPoll = now;
    if (!options.interrupted()) return false;
    stopped.store(true);
    return true;
  }
};

// Collects the reports of the programs one thread runs.
class ReportSink {
 public:
  std::vector<Report> reports;
  std::array<int64_t, kReportKindCount> counts{};
  int maxPerKind = 10;
  // Groups by (kind, program, op line, op column, buffer); a program runs on one thread, so one sink sees a
  // group whole. Bounded: beyond 1000 groups further reports are only counted.
  std::map<std::tuple<int, std::array<int64_t, 3>, int, int, std::string>, ReportGroup> groups;
  // A program of this thread ran out of host memory (std::bad_alloc): the launch ends with a diagnostic.
  bool outOfMemory = false;
  std::array<int64_t, 3> outOfMemoryProgram{};
  void add(Report report);
};

// The tt.print lines of one program, at most LaunchOptions::maxPrintLines of them; the rest are counted.
struct ProgramPrints {
  std::vector<std::string> lines;
  int64_t dropped = 0;
};

// Race detection by access log (Memory::enableRaceLog): the element intervals each program read or wrote
// with plain accesses, one record per run of consecutive elements (a contiguous tile row is one record). Each
// thread keeps its own log; after the launch, accessLogsConflict says whether two programs' intervals
// overlap with at least one write: exactly when the per-element shadow would have reported a race (it
// reports one iff such a pair exists). A log that outgrew `limit` records stops and says `overflow` (the
// launch then runs again with the shadow, as for a conflict).
struct AccessRecord {
  uint64_t begin = 0, end = 0;  // elements [begin, end) of the buffer
  uint32_t program = 0;         // linear id
  uint32_t buffer : 31 = 0;     // the buffer's window (below 2^23)
  uint32_t write : 1 = 0;
};
struct AccessLog {
  std::vector<AccessRecord> records;
  size_t limit = 0;
  bool overflow = false;
};
// Whether two records of different programs overlap with at least one of them a write (sorts `records`).
bool accessLogsConflict(std::vector<AccessRecord>& records);

struct ProgramTrap {
  Report report;
};

class Executor {
 public:
  Executor(const LaunchContext& context, ReportSink& sink) : context_(context), sink_(sink) {}
  // Runs one program to its end or its first trap. Never throws: out of memory is noted in the sink.
  void runProgram(std::array<int64_t, 3> programId, int64_t linearId, ProgramPrints* printed);

  // Used by the op-family files.
  struct Frame {
    std::vector<TileRef> values;
    bool vectorized = false;  // inside a reduce/scan combine region run on whole slices
  };
  const TileRef& get(const Frame& frame, const Value* value) const { return frame.values[value->id]; }
  void set(Frame& frame, const Value* value, TileRef tile) { frame.values[value->id] = std::move(tile); }

  // Runs the ops of `block` with its arguments bound to `arguments`; returns the terminator's operands.
  std::vector<TileRef> runBlock(const Block& block, std::span<const TileRef> arguments, Frame& frame);
  // An elementwise op (the IntArith, FloatArith, Math, Compare, Cast and extern families) on operand tiles of one
  // shape: its result with the undefined lanes of its operands, UB lanes reported (with checkUB); what
  // executing the op in a frame does, for callers that hold the tiles themselves (a reduction's levels).
  MutableTileRef evaluateElementwise(const Operation& op, std::span<const TileRef> operands);

  Report makeReport(Report::Kind kind, const Operation& op, const Tile* tile, int64_t lane, std::string message) const;
  void report(Report::Kind kind, const Operation& op, const Tile* tile, int64_t lane, std::string message) {
    sink_.add(makeReport(kind, op, tile, lane, std::move(message)));
  }
  void addReport(Report report) { sink_.add(std::move(report)); }
  [[noreturn]] void trap(Report::Kind kind, const Operation& op, std::string message) const;
  // Counts `count` steps of work inside one op (inline asm instructions) against LaunchOptions::maxSteps.
  void countSteps(const Operation& op, uint64_t count) {
    steps_ += count;
    if (steps_ > context_.options.maxSteps && context_.options.maxSteps != 0) stepLimitExceeded(op);
  }
  bool checks() const { return context_.options.checks; }
  const LaunchContext& context() const { return context_; }
  int64_t programLinearId() const { return linearId_; }
  // A new number for each tt.atomic_rmw execution on this executor (AtomicAddGroups::lastAdder).
  uint64_t nextAtomicSerial() { return ++atomicSerial_; }
  // Spin locks (docs/semantics.md, "Locks"): the locks this program holds, and its accesses inside their
  // critical sections that no gpu.barrier has covered yet.
  std::span<const uint32_t> heldLocks() const { return heldIdentities_; }
  void acquireLock(uint64_t address, uint64_t lockedBits, uint64_t unlockedBits);
  // Whether an atomic writing `valueBits` to `address` releases a lock this program holds (then released).
  bool releaseLock(uint64_t address, uint64_t valueBits);
  void noteLockedAccess(Buffer& buffer, uint64_t element) {
    pendingAccesses_.push_back({&buffer, element, heldIdentities_.back()});
  }
  void setAccessLog(AccessLog* log) { log_ = log; }
  // A plain access of `size` bytes at byte `offset` of `buffer`, in race-log mode. An op's per-lane accesses
  // collect in `pending_` (a lane extending the previous one's run joins it) and go to the log as runs when
  // the op ends (flushAccesses): a transposed or permuted tile still becomes one record.
  void logAccess(const Buffer& buffer, uint64_t offset, uint64_t size, bool write) {
    const unsigned shift = static_cast<unsigned>(__builtin_ctz(static_cast<unsigned>(buffer.elementBytes)));
    const uint64_t begin = offset >> shift, end = ((offset + size - 1) >> shift) + 1;
    const auto window = static_cast<uint32_t>(buffer.base >> kBufferWindowBits);
    if (!pending_.empty()) {
      AccessRecord& last = pending_.back();
      if (last.buffer == window && last.write == static_cast<uint32_t>(write) && begin >= last.begin &&
          begin <= last.end) {
        last.end = std::max(last.end, end);
        return;
      }
    }
    pending_.push_back({begin, end, static_cast<uint32_t>(linearId_), window, static_cast<uint32_t>(write)});
  }
  // Moves the accesses of the op that just ran into the log, merged into runs.
  void flushAccesses() {
    if (!pending_.empty()) flushAccessesSlow();
  }
  void logOverflow() { log_->overflow = true; }
  void barrier();  // gpu.barrier: every pending access is now ordered before the program's next release
  // TTGIR: this program's shared memory, async copies and mbarriers (interpreter/SharedMemory.h).
  SharedMemoryState& sharedMemory() { return sharedMemory_; }
  void noteOutOfMemory(std::array<int64_t, 3> programId) {
    sink_.outOfMemory = true;
    sink_.outOfMemoryProgram = programId;
  }

 private:
  void executeOp(const Operation& op, Frame& frame);
  void executeElementwise(const Operation& op, Frame& frame);
  void executeConstant(const Operation& op, Frame& frame);
  void executeProgramInfo(const Operation& op, Frame& frame);
  void executeControlFlow(const Operation& op, Frame& frame);
  void executeFor(const Operation& op, Frame& frame);
  void executeIf(const Operation& op, Frame& frame);
  void executeWhile(const Operation& op, Frame& frame);
  void executeCall(const Operation& op, Frame& frame);
  void executePrint(const Operation& op, Frame& frame);
  void executeAssert(const Operation& op, Frame& frame);
  void executeAssume(const Operation& op, Frame& frame);
  std::vector<TileRef> callFunction(const PreparedFunction& function, std::span<const TileRef> arguments);
  bool scalarCondition(const Operation& op, const Tile& tile);  // reports undefined control flow
  int64_t scalarInt(const Operation& op, const Tile& tile, const char* what);
  // Counts one step (an op, or one loop iteration) against LaunchOptions::maxSteps; traps past the limit.
  void countStep(const Operation& op) {
    if (++steps_ > context_.options.maxSteps && context_.options.maxSteps != 0) stepLimitExceeded(op);
    if ((steps_ & 1023) == 0 && context_.interrupted())
      throw ProgramTrap{makeReport(Report::Kind::StepLimit, op, nullptr, -1, "the launch was interrupted")};
  }
  [[noreturn]] void stepLimitExceeded(const Operation& op) const;

  const LaunchContext& context_;
  ReportSink& sink_;
  std::array<int64_t, 3> programId_{};
  int64_t linearId_ = 0;
  uint64_t atomicSerial_ = 0;
  ProgramPrints* printed_ = nullptr;
  int callDepth_ = 0;          // reset by runProgram: a trap inside tt.call must not leak into the next program
  uint64_t steps_ = 0;         // ops and loop iterations of the current program
  const Operation* currentLoop_ = nullptr;  // innermost scf.for / scf.while running, for StepLimit reports
  struct HeldLock {
    uint64_t address, lockedBits, unlockedBits;
    uint32_t identity;
  };
  struct PendingAccess {
    Buffer* buffer;
    uint64_t element;
    uint32_t lock;  // the innermost lock held when it was made
  };
  std::vector<HeldLock> heldLockList_;      // reset by runProgram
  std::vector<uint32_t> heldIdentities_;    // their identities, innermost last
  std::vector<PendingAccess> pendingAccesses_;
  AccessLog* log_ = nullptr;  // race-log mode: this thread's log
  std::vector<AccessRecord> pending_;  // the current op's accesses (race-log mode)
  std::vector<uint64_t> coverBits_;    // flushAccessesSlow's scratch
  SharedMemoryState sharedMemory_;     // reset by runProgram
  void flushAccessesSlow();
  void appendToLog(const AccessRecord& record);
};

// Op families (each in its own file). They read operands from the frame and set results.
namespace ops {
// Movement.cpp
TileRef makeRange(const Operation& op);
TileRef constant(const Operation& op);
TileRef splat(const Tile& scalar, Type resultType);
TileRef broadcastTo(const Tile& input, Type resultType);  // size-1 dims (and rank-0) to resultType's shape
TileRef reshape(const Tile& input, Type resultType);      // same elements, row-major
TileRef expandDims(const Tile& input, Type resultType);
TileRef transpose(const Tile& input, std::span<const int64_t> order, Type resultType);
TileRef join(const Tile& lhs, const Tile& rhs, Type resultType);
std::pair<TileRef, TileRef> split(const Tile& input, Type resultType);
TileRef concatenate(const Tile& lhs, const Tile& rhs, Type resultType);
// Copies lanes: result[i] = input[sourceLane[i]] for data and both shadows.
TileRef gatherLanes(const Tile& input, std::span<const int64_t> sourceLane, Type resultType);
std::vector<int64_t> laneIndex(std::span<const int64_t> shape, int64_t lane);  // multi-index of a lane
}  // namespace ops

// Family entry points, one per family file; each switches over its family's enum (ir/OpKind.h).
void executeShapeOp(Executor& executor, const Operation& op, Executor::Frame& frame);    // Movement.cpp
void executePointerOp(Executor& executor, const Operation& op, Executor::Frame& frame);  // MemoryOps.cpp
void executeMemoryOp(Executor& executor, const Operation& op, Executor::Frame& frame);   // MemoryOps.cpp
// tt.make_tensor_descriptor, tt.descriptor_load/store/gather/scatter (Descriptors.cpp)
void executeMakeTensorDescriptor(Executor& executor, const Operation& op, Executor::Frame& frame);
void executeDescriptorAccess(Executor& executor, const Operation& op, Executor::Frame& frame);
// The block at the op's coordinates (operand 0 is the descriptor, the coordinates follow), shared with the TMA
// copies of HopperOps.cpp; reports name `op`.
MutableTileRef loadDescriptorBlock(Executor& executor, const Operation& op, Executor::Frame& frame, Type resultType);
void storeDescriptorBlock(Executor& executor, const Operation& op, Executor::Frame& frame, const Tile& values);
// tt.bitcast (Cast family) whose result is a pointer: copies the bits, like tt.int_to_ptr. MemoryOps.cpp.
void executePointerBitcast(Executor& executor, const Operation& op, Executor::Frame& frame);
void executeAtomic(Executor& executor, const Operation& op, Executor::Frame& frame);      // Atomics.cpp
void executeReduceScan(Executor& executor, const Operation& op, Executor::Frame& frame);  // ReduceScan.cpp
void executeDot(Executor& executor, const Operation& op, Executor::Frame& frame);         // Dot.cpp
// TTGIR (issue 23): the SharedMemory family (SharedMemory.cpp) and the Hopper family (HopperOps.cpp).
void executeSharedMemoryOp(Executor& executor, const Operation& op, Executor::Frame& frame);
void executeHopperOp(Executor& executor, const Operation& op, Executor::Frame& frame);
// tt.load's lanes (MemoryOps.cpp), shared with ttg.async_copy_global_to_local: reports name `op`.
MutableTileRef loadThroughPointers(Executor& executor, const Operation& op, const Tile& pointers, const Tile* mask,
                                   const Tile* other, Type resultType);
// tt.elementwise_inline_asm (External family): the exact PTX subset of interpreter/ptx/. InlineAsm.cpp.
void executeInlineAsm(Executor& executor, const Operation& op, Executor::Frame& frame);

}  // namespace tilesim
