// The engine's internals: one Executor runs program instances one at a time on one thread, reading the
// shared, read-only LaunchContext (prepared functions, constant tiles, options) and the shared Memory.
// Per-op semantics live in small files by op family (ir/Ops.def's TILESIM_FAMILY lines): Executor.cpp
// (dispatch, constants, program ids, control flow, calls, debug), Movement.cpp (Shape), MemoryOps.cpp
// (Pointer, Memory), Atomics.cpp (Atomic), ReduceScan.cpp, Dot.cpp, and the elementwise numerics in
// Elementwise*.cpp. Program outcomes are Reports collected in a ReportSink; a fatal one (a trap)
// ends the program by throwing ProgramTrap, which runProgram turns into a Report.
#pragma once

#include <array>
#include <map>
#include <tuple>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "interpreter/Interpreter.h"
#include "interpreter/Memory.h"
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
  void add(Report report);
};

struct ProgramTrap {
  Report report;
};

class Executor {
 public:
  Executor(const LaunchContext& context, ReportSink& sink) : context_(context), sink_(sink) {}
  void runProgram(std::array<int64_t, 3> programId, int64_t linearId, std::vector<std::string>* printed);

  // Used by the op-family files.
  struct Frame {
    std::vector<TileRef> values;
    bool vectorized = false;  // inside a reduce/scan combine region run on whole slices
  };
  const TileRef& get(const Frame& frame, const Value* value) const { return frame.values[value->id]; }
  void set(Frame& frame, const Value* value, TileRef tile) { frame.values[value->id] = std::move(tile); }

  // Runs the ops of `block` with its arguments bound to `arguments`; returns the terminator's operands.
  std::vector<TileRef> runBlock(const Block& block, std::span<const TileRef> arguments, Frame& frame);

  Report makeReport(Report::Kind kind, const Operation& op, const Tile* tile, int64_t lane, std::string message) const;
  void report(Report::Kind kind, const Operation& op, const Tile* tile, int64_t lane, std::string message) {
    sink_.add(makeReport(kind, op, tile, lane, std::move(message)));
  }
  void addReport(Report report) { sink_.add(std::move(report)); }
  [[noreturn]] void trap(Report::Kind kind, const Operation& op, std::string message) const;
  bool checks() const { return context_.options.checks; }
  const LaunchContext& context() const { return context_; }
  int64_t programLinearId() const { return linearId_; }

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
  std::vector<TileRef> callFunction(const PreparedFunction& function, std::span<const TileRef> arguments);
  bool scalarCondition(const Operation& op, const Tile& tile);  // reports undefined control flow
  int64_t scalarInt(const Operation& op, const Tile& tile, const char* what);

  const LaunchContext& context_;
  ReportSink& sink_;
  std::array<int64_t, 3> programId_{};
  int64_t linearId_ = 0;
  std::vector<std::string>* printed_ = nullptr;
  int callDepth_ = 0;
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
// tt.bitcast (Cast family) whose result is a pointer: copies the bits, like tt.int_to_ptr. MemoryOps.cpp.
void executePointerBitcast(Executor& executor, const Operation& op, Executor::Frame& frame);
void executeAtomic(Executor& executor, const Operation& op, Executor::Frame& frame);      // Atomics.cpp
void executeReduceScan(Executor& executor, const Operation& op, Executor::Frame& frame);  // ReduceScan.cpp
void executeDot(Executor& executor, const Operation& op, Executor::Frame& frame);         // Dot.cpp
// tt.elementwise_inline_asm (External family): the exact PTX subset of interpreter/ptx/. InlineAsm.cpp.
void executeInlineAsm(Executor& executor, const Operation& op, Executor::Frame& frame);

}  // namespace tilesim
