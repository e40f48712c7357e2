// Runs one program instance: binds the kernel's parameters, walks blocks op by op, and dispatches each op to
// its family (one switch over OpFamily with no default; each family's file switches over that family's ops,
// also with no default, so a new op does not compile until it is handled). Constants and program ids live
// here, with the program's own state (reports, locks, the access log); control flow (scf.for/if/while,
// tt.call) is ControlFlow.cpp, the Debug family Debug.cpp.
#include "interpreter/Executor.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <new>
#include <stdexcept>

#include "interpreter/Elementwise.h"
#include "interpreter/Partitions.h"
#include "ir/FloatBits.h"
#include "ir/OpAttributes.h"

namespace tilesim {

namespace {

// Elementwise ops see operands of one shape, except inside vectorised combine regions, where block arguments
// are whole slices and constants are scalars: broadcast the 1-element tiles to the common shape.
std::vector<TileRef> uniformShapes(std::vector<TileRef> tiles) {
  int64_t size = 1;
  Type shaped;
  for (const TileRef& t : tiles) {
    if (t->size() > size || (t->size() == size && t->type().isTensor() && !shaped.isValid())) {
      size = t->size();
      shaped = t->type();
    }
  }
  if (!shaped.isValid()) return tiles;
  for (TileRef& t : tiles) {
    if (t->size() == 1 && t->type() != shaped.withElement(t->elementType())) t = ops::broadcastTo(*t, shaped.withElement(t->elementType()));
  }
  return tiles;
}

}  // namespace

void ReportSink::add(Report report) {
  auto index = static_cast<size_t>(report.kind);
  auto key = std::make_tuple(static_cast<int>(report.kind), report.program, report.ttirPos.line, report.ttirPos.column,
                             report.buffer);
  auto group = groups.find(key);
  if (group == groups.end() && groups.size() < 1000) {
    ReportGroup fresh;
    fresh.first = report;
    fresh.lastLane = report.lane;
    fresh.minByteOffset = fresh.maxByteOffset = report.byteOffset;
    group = groups.emplace(key, std::move(fresh)).first;
  }
  if (group != groups.end()) {
    ReportGroup& g = group->second;
    ++g.count;
    if (report.lane < g.first.lane) g.first = report;
    if (report.lane > g.lastLane) g.lastLane = report.lane;
    if (report.byteOffset >= 0) {
      g.minByteOffset = g.minByteOffset < 0 ? report.byteOffset : std::min(g.minByteOffset, report.byteOffset);
      g.maxByteOffset = std::max(g.maxByteOffset, report.byteOffset);
    }
  }
  if (counts[index]++ < maxPerKind) reports.push_back(std::move(report));
}

Report Executor::makeReport(Report::Kind kind, const Operation& op, const Tile* tile, int64_t lane,
                            std::string message) const {
  Report r;
  r.kind = kind;
  r.program = programId_;
  if (tile && tile->type().isTensor() && lane >= 0) r.lane = ops::laneIndex(tile->shape(), lane);
  r.op = std::string(op.name());
  r.ttirPos = op.textPos;
  if (context_.module && op.loc != kNoLoc) r.sourceLoc = context_.module->locations.describe(op.loc);
  r.message = std::move(message);
  if (kind != Report::Kind::PartitionRace) r.message += partitions::taskSuffix(sharedMemory_);  // which task of a warp_specialize
  return r;
}

void Executor::trap(Report::Kind kind, const Operation& op, std::string message) const {
  throw ProgramTrap{makeReport(kind, op, nullptr, -1, std::move(message))};
}

void Executor::stepLimitExceeded(const Operation& op) const {
  const Operation& culprit = currentLoop_ ? *currentLoop_ : op;
  throw ProgramTrap{makeReport(Report::Kind::StepLimit, culprit, nullptr, -1,
                               "the program ran more than " + std::to_string(context_.options.maxSteps) +
                                   " steps (ops and loop iterations) in this " + std::string(culprit.name()) +
                                   "; a loop that never ends? (--max-steps N raises the limit)")};
}

void Executor::acquireLock(uint64_t address, uint64_t lockedBits, uint64_t unlockedBits) {
  Memory& memory = *context_.memory;
  const uint32_t identity = memory.lockIdentity(address);
  if (identity == 0) return;  // too many locks: this section is not told apart (its conflicts are reported)
  heldLockList_.push_back({address, lockedBits, unlockedBits, identity});
  heldIdentities_.push_back(identity);
}

bool Executor::releaseLock(uint64_t address, uint64_t valueBits) {
  for (size_t i = heldLockList_.size(); i-- > 0;) {
    const HeldLock held = heldLockList_[i];
    if (held.address != address || held.unlockedBits != valueBits) continue;
    // Accesses after the last barrier are not ordered before the release (other threads of the program may
    // still be making them): they keep the program's identity.
    std::erase_if(pendingAccesses_, [&](const PendingAccess& access) { return access.lock == held.identity; });
    heldLockList_.erase(heldLockList_.begin() + static_cast<std::ptrdiff_t>(i));
    heldIdentities_.erase(heldIdentities_.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  return false;
}

void Executor::barrier() {
  Memory& memory = *context_.memory;
  for (const PendingAccess& access : pendingAccesses_)
    memory.coverByLock(*access.buffer, access.element, linearId_, access.lock);
  pendingAccesses_.clear();
}

void Executor::appendToLog(const AccessRecord& record) {
  std::vector<AccessRecord>& records = log_->records;
  if (!records.empty()) {  // extends the last record when it touches it (the next row of a tile)
    AccessRecord& last = records.back();
    if (last.program == record.program && last.buffer == record.buffer && last.write == record.write &&
        record.begin >= last.begin && record.begin <= last.end) {
      last.end = std::max(last.end, record.end);
      return;
    }
  }
  if (records.size() >= log_->limit) {
    log_->overflow = true;
    return;
  }
  records.push_back(record);
}

void Executor::flushAccessesSlow() {
  // Few runs (rows of a tile, the common case), or runs of several buffers or kinds: as they are.
  bool uniform = pending_.size() > 8;
  for (const AccessRecord& r : pending_)
    uniform = uniform && r.buffer == pending_[0].buffer && r.write == pending_[0].write;
  if (!uniform) {
    for (const AccessRecord& r : pending_) appendToLog(r);
    pending_.clear();
    return;
  }
  // Many runs of one buffer: one record if they tile [lowest, highest) exactly (a transposed tile), checked
  // with a bitmap; otherwise sorted and merged.
  uint64_t low = UINT64_MAX, high = 0, total = 0;
  for (const AccessRecord& r : pending_) {
    low = std::min(low, r.begin);
    high = std::max(high, r.end);
    total += r.end - r.begin;
  }
  bool exact = total == high - low;
  if (exact) {
    coverBits_.assign(static_cast<size_t>((high - low + 63) / 64), 0);
    for (const AccessRecord& r : pending_) {
      for (uint64_t e = r.begin - low; e < r.end - low && exact; ++e) {
        const uint64_t bit = uint64_t{1} << (e % 64);
        exact = !(coverBits_[e / 64] & bit);
        coverBits_[e / 64] |= bit;
      }
      if (!exact) break;
    }
  }
  if (exact) {
    AccessRecord whole = pending_[0];
    whole.begin = low;
    whole.end = high;
    appendToLog(whole);
  } else {
    std::sort(pending_.begin(), pending_.end(),
              [](const AccessRecord& a, const AccessRecord& b) { return a.begin < b.begin; });
    AccessRecord run = pending_[0];
    for (size_t i = 1; i < pending_.size(); ++i) {
      if (pending_[i].begin <= run.end) {
        run.end = std::max(run.end, pending_[i].end);
      } else {
        appendToLog(run);
        run = pending_[i];
      }
    }
    appendToLog(run);
  }
  pending_.clear();
}

void Executor::runProgram(std::array<int64_t, 3> programId, int64_t linearId, ProgramPrints* printed) {
  programId_ = programId;
  linearId_ = linearId;
  printed_ = printed;
  callDepth_ = 0;
  steps_ = 0;
  currentLoop_ = nullptr;
  heldLockList_.clear();
  heldIdentities_.clear();
  pendingAccesses_.clear();
  sharedMemory_.reset();
  try {
    Frame frame;
    frame.values.resize(context_.kernel.numValues);
    const Block& body = context_.kernel.op->region(0).front();
    runBlock(body, context_.kernelArguments, frame);
  } catch (const ProgramTrap& trap) {
    sink_.add(trap.report);
  } catch (const std::bad_alloc&) {  // an exception must not leave an OpenMP worker: note it, end the program
    sink_.outOfMemory = true;
    sink_.outOfMemoryProgram = programId;
  } catch (const std::length_error&) {
    sink_.outOfMemory = true;
    sink_.outOfMemoryProgram = programId;
  }
  if (log_) {  // the accesses of an op that trapped
    try {
      flushAccesses();
    } catch (const std::bad_alloc&) {
      log_->overflow = true;  // the launch reruns with the shadow
      pending_.clear();
    }
  }
}

// Runs a region from `entry`: ops in order until a terminator. A branch (cf.br, cf.cond_br) binds the successor's
// block arguments and goes on there — the region's blocks form a CFG; any other terminator returns its operands.
std::vector<TileRef> Executor::runBlock(const Block& entry, std::span<const TileRef> arguments, Frame& frame) {
  TILESIM_ASSERT(arguments.size() == entry.arguments.size(), "block argument count mismatch");
  for (size_t i = 0; i < arguments.size(); ++i) set(frame, entry.argument(i), arguments[i]);
  const Block* block = &entry;
  for (;;) {
    const Block* next = nullptr;
    for (const auto& op : block->operations) {
      countStep(*op);  // terminators and branches count too: a loop whose body is only a yield uses up steps
      if (op->kind == OpKind::CFBr || op->kind == OpKind::CFCondBr) {
        size_t taken = 0;
        if (op->kind == OpKind::CFCondBr) taken = scalarCondition(*op, *get(frame, op->operand(0))) ? 0 : 1;
        next = op->successors[taken];
        std::vector<TileRef> passed;
        for (const Value* v : op->successorOperands(taken)) passed.push_back(get(frame, v));
        for (size_t i = 0; i < passed.size(); ++i) set(frame, next->argument(i), passed[i]);
        break;
      }
      if (hasTrait(op->kind, kTerminator)) {
        std::vector<TileRef> yielded;
        yielded.reserve(op->numOperands());
        for (const Value* v : op->operands) yielded.push_back(get(frame, v));
        return yielded;
      }
      executeOp(*op, frame);
      if (log_) flushAccesses();
      // Inside ttg.warp_specialize a random schedule may also switch partitions every 64 steps (Partitions.h).
      if (sharedMemory_.partitions && (steps_ & 63) == 0) partitions::switchPoint(*this);
      if (!frame.vectorized && context_.trace && context_.trace->hook && context_.trace->program == programId_) {
        std::vector<TileRef> results;
        for (const auto& r : op->results) results.push_back(get(frame, r.get()));
        context_.trace->hook(*op, results);
      }
    }
    if (!next) return {};  // a block without terminator (scf.for with implicit yield) yields nothing
    block = next;
  }
}

void Executor::executeConstant(const Operation& op, Frame& frame) {
  switch (familyOp<ConstantOp>(op.kind)) {
    case ConstantOp::ArithConstant:
    case ConstantOp::TTMakeRange: {
      auto it = context_.constantTiles.find(&op);
      set(frame, op.result(), it != context_.constantTiles.end() ? it->second
                              : op.kind == OpKind::ArithConstant ? ops::constant(op) : ops::makeRange(op));
      return;
    }
    case ConstantOp::UBPoison: {
      MutableTileRef result = makeTile(op.result()->type);
      std::fill(result->mutableUndefinedMask(), result->mutableUndefinedMask() + result->size(), uint8_t{1});
      set(frame, op.result(), result);
      return;
    }
  }
}

void Executor::executeProgramInfo(const Operation& op, Frame& frame) {
  int index = ProgramAxisView{op}.index();
  int64_t value = 0;
  switch (familyOp<ProgramOp>(op.kind)) {
    case ProgramOp::TTGetProgramId: value = programId_[index]; break;
    case ProgramOp::TTGetNumPrograms: value = context_.grid[index]; break;
  }
  MutableTileRef t = makeTile(op.result()->type);
  t->setBits(0, static_cast<uint64_t>(value));
  set(frame, op.result(), t);
}

void Executor::executeControlFlow(const Operation& op, Frame& frame) {
  switch (familyOp<ControlFlowOp>(op.kind)) {
    case ControlFlowOp::SCFFor: executeFor(op, frame); return;
    case ControlFlowOp::SCFIf: executeIf(op, frame); return;
    case ControlFlowOp::SCFWhile: executeWhile(op, frame); return;
  }
}

// One switch over the op families (no default); each family's file switches over the family's ops.
void Executor::executeOp(const Operation& op, Frame& frame) {
  switch (opFamily(op.kind)) {
    case OpFamily::IntArith:
    case OpFamily::FloatArith:
    case OpFamily::Math:
    case OpFamily::Compare: executeElementwise(op, frame); return;
    case OpFamily::External:
      switch (familyOp<ExternalOp>(op.kind)) {
        case ExternalOp::TTExternElementwise: executeElementwise(op, frame); return;
        case ExternalOp::TTElementwiseInlineAsm: executeInlineAsm(*this, op, frame); return;
      }
      break;
    case OpFamily::Cast:
      if (op.kind == OpKind::TTBitcast && op.result()->type.isPointerLike()) executePointerBitcast(*this, op, frame);
      else executeElementwise(op, frame);
      return;
    case OpFamily::Constant: executeConstant(op, frame); return;
    case OpFamily::Program: executeProgramInfo(op, frame); return;
    case OpFamily::Shape: executeShapeOp(*this, op, frame); return;
    case OpFamily::Pointer: executePointerOp(*this, op, frame); return;
    case OpFamily::Memory: executeMemoryOp(*this, op, frame); return;
    case OpFamily::Atomic: executeAtomic(*this, op, frame); return;
    case OpFamily::Dot: executeDot(*this, op, frame); return;
    case OpFamily::ReduceScan: executeReduceScan(*this, op, frame); return;
    case OpFamily::ControlFlow: executeControlFlow(op, frame); return;
    case OpFamily::Function:
      switch (familyOp<FunctionOp>(op.kind)) {
        case FunctionOp::TTFunc: trap(Report::Kind::Unsupported, op, "nested tt.func");
        case FunctionOp::TTCall: executeCall(op, frame); return;
      }
      break;
    case OpFamily::Debug:
      switch (familyOp<DebugOp>(op.kind)) {
        case DebugOp::TTPrint: executePrint(op, frame); return;
        case DebugOp::TTAssert: executeAssert(op, frame); return;
        case DebugOp::LLVMAssume: executeAssume(op, frame); return;
        case DebugOp::GPUBarrier: barrier(); return;  // a program runs its ops in order; it covers lock accesses
      }
      break;
    case OpFamily::SharedMemory: executeSharedMemoryOp(*this, op, frame); return;
    case OpFamily::Hopper: executeHopperOp(*this, op, frame); return;
    case OpFamily::Terminator: TILESIM_UNREACHABLE("terminators and branches are handled by runBlock");
  }
  TILESIM_UNREACHABLE("bad OpKind");
}

void Executor::executeElementwise(const Operation& op, Frame& frame) {
  std::vector<TileRef> operands;
  operands.reserve(op.numOperands());
  for (const Value* v : op.operands) operands.push_back(get(frame, v));
  if (frame.vectorized) operands = uniformShapes(std::move(operands));
  set(frame, op.result(), evaluateElementwise(op, operands));
}

MutableTileRef Executor::evaluateElementwise(const Operation& op, std::span<const TileRef> operands) {
  std::vector<const Tile*> raw;
  raw.reserve(operands.size());
  for (const TileRef& t : operands) raw.push_back(t.get());
  std::vector<UBEvent> ubEvents;
  ElementwiseContext ctx;
  ctx.profile = context_.options.profile;
  if (context_.options.checkUB) ctx.ubEvents = &ubEvents;
  std::string error;
  MutableTileRef result = evalElementwise(op, raw, ctx, &error);
  if (!result) trap(Report::Kind::Unsupported, op, error);
  for (const UBEvent& event : ubEvents)
    report(Report::Kind::UndefinedBehavior, op, result.get(), event.lane, ubKindName(event.kind));
  // Undefined lanes: any undefined operand lane makes the result lane undefined, except that select only
  // looks at the side it picks.
  bool anyUndefined = std::any_of(operands.begin(), operands.end(), [](const TileRef& t) { return t->undefinedMask(); });
  if (anyUndefined) {
    uint8_t* out = result->mutableUndefinedMask();
    const int64_t n = result->size();
    if (op.kind == OpKind::ArithSelect) {
      const Tile& c = *operands[0];
      for (int64_t i = 0; i < n; ++i) {
        bool pick = c.bitsAt(c.size() == 1 ? 0 : i) & 1;
        const Tile& side = *operands[pick ? 1 : 2];
        auto lane = [&](const Tile& t) { return t.undefinedMask() && t.undefinedMask()[t.size() == 1 ? 0 : i]; };
        out[i] = lane(c) || lane(side);
      }
    } else {
      for (const TileRef& t : operands) {
        const uint8_t* in = t->undefinedMask();
        if (!in) continue;
        if (t->size() == n) for (int64_t i = 0; i < n; ++i) out[i] |= in[i];
        else if (in[0]) std::fill(out, out + n, uint8_t{1});
      }
    }
  }
  return result;
}

}  // namespace tilesim
