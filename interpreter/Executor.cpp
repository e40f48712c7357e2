// Runs one program instance: binds the kernel's parameters, walks blocks op by op, and dispatches each op to
// its family (one switch over OpFamily with no default; each family's file switches over that family's ops,
// also with no default, so a new op does not compile until it is handled). Control flow (scf.for/if/while,
// tt.call), constants, program ids and debug ops live here because they are about walking regions and the
// program's own state.
#include "interpreter/Executor.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <new>
#include <stdexcept>

#include "interpreter/Elementwise.h"
#include "ir/FloatBits.h"
#include "ir/OpAttributes.h"

namespace tilesim {

namespace {

constexpr int kMaxCallDepth = 64;

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

bool Executor::scalarCondition(const Operation& op, const Tile& tile) {
  if (tile.undefinedMask() && tile.undefinedMask()[0] && checks())
    report(Report::Kind::UndefinedUse, op, &tile, 0, "an undefined value decides control flow");
  return tile.bitsAt(0) & 1;
}

int64_t Executor::scalarInt(const Operation& op, const Tile& tile, const char* what) {
  if (tile.undefinedMask() && tile.undefinedMask()[0] && checks())
    report(Report::Kind::UndefinedUse, op, &tile, 0, std::string("an undefined value is used as the loop ") + what);
  return tile.signedAt(0);
}

void Executor::executeFor(const Operation& op, Frame& frame) {
  const int64_t lower = scalarInt(op, *get(frame, op.operand(0)), "lower bound");
  const int64_t upper = scalarInt(op, *get(frame, op.operand(1)), "upper bound");
  const int64_t step = scalarInt(op, *get(frame, op.operand(2)), "step");
  if (step <= 0) trap(Report::Kind::UndefinedBehavior, op, "scf.for with a step of " + std::to_string(step));
  const Block& body = op.region(0).front();
  Type ivType = body.argument(0)->type;
  std::vector<TileRef> carried;
  for (size_t i = 3; i < op.numOperands(); ++i) carried.push_back(get(frame, op.operand(i)));
  std::vector<TileRef> arguments(carried.size() + 1);
  // The induction variable lives in its own type: the loop ends when iv + step would leave that type's range
  // (docs/semantics.md, "scf.for"), so no counter overflows and every loop with a positive step terminates.
  const int width = ivType.bitWidth();
  const int64_t ivMax = width >= 64 ? INT64_MAX : (int64_t{1} << (width - 1)) - 1;
  const Operation* outerLoop = currentLoop_;
  currentLoop_ = &op;
  for (int64_t iv = lower; iv < upper;) {
    MutableTileRef ivTile = makeTile(ivType);
    ivTile->setBits(0, static_cast<uint64_t>(iv));
    arguments[0] = ivTile;
    std::copy(carried.begin(), carried.end(), arguments.begin() + 1);
    std::vector<TileRef> yielded = runBlock(body, arguments, frame);
    carried = std::move(yielded);  // the verifier checked that scf.yield carries exactly the iter_args
    if (iv > ivMax - step) {  // iv + step would overflow the induction variable's type
      // The GPU's counter (a plain add and a signed compare) wraps to a negative value and runs on: --check=ub
      // reports the overflow at the loop.
      if (context_.options.checkUB)
        report(Report::Kind::UndefinedBehavior, op, nullptr, -1,
               "scf.for induction variable overflow: " + std::to_string(iv) + " + step " + std::to_string(step) +
                   " exceeds the largest " + ivType.str() + " (" + std::to_string(ivMax) + ") before the upper bound " +
                   std::to_string(upper) + "; a GPU's counter wraps and the loop runs on, tilesim ends it here");
      break;
    }
    iv += step;
  }
  currentLoop_ = outerLoop;
  for (size_t i = 0; i < op.numResults(); ++i) set(frame, op.result(i), carried[i]);
}

void Executor::executeIf(const Operation& op, Frame& frame) {
  bool condition = scalarCondition(op, *get(frame, op.operand(0)));
  const Region* region = condition ? &op.region(0) : (op.regions.size() > 1 ? &op.region(1) : nullptr);
  if (!region || region->empty()) return;
  std::vector<TileRef> yielded = runBlock(region->front(), {}, frame);
  for (size_t i = 0; i < op.numResults(); ++i) set(frame, op.result(i), yielded[i]);
}

void Executor::executeWhile(const Operation& op, Frame& frame) {
  std::vector<TileRef> values;
  for (const Value* v : op.operands) values.push_back(get(frame, v));
  const Block& before = op.region(0).front();
  const Block& after = op.region(1).front();
  const Operation* condition = before.terminator();
  const Operation* outerLoop = currentLoop_;
  currentLoop_ = &op;
  for (;;) {
    std::vector<TileRef> forwarded = runBlock(before, values, frame);
    TILESIM_ASSERT(!forwarded.empty(), "scf.condition without a flag");
    bool keepGoing = scalarCondition(*condition, *forwarded[0]);
    forwarded.erase(forwarded.begin());
    if (!keepGoing) {
      for (size_t i = 0; i < op.numResults(); ++i) set(frame, op.result(i), forwarded[i]);
      currentLoop_ = outerLoop;
      return;
    }
    values = runBlock(after, forwarded, frame);
  }
}

std::vector<TileRef> Executor::callFunction(const PreparedFunction& function, std::span<const TileRef> arguments) {
  Frame callee;
  callee.values.resize(function.numValues);
  return runBlock(function.op->region(0).front(), arguments, callee);
}

void Executor::executeCall(const Operation& op, Frame& frame) {
  const Attribute* callee = op.attr("callee");
  TILESIM_ASSERT(callee, "tt.call without callee");
  auto it = context_.functions.find(callee->text());
  if (it == context_.functions.end()) trap(Report::Kind::Unsupported, op, "call of unknown function @" + callee->text());
  if (callDepth_ + 1 > kMaxCallDepth) trap(Report::Kind::Unsupported, op, "call depth exceeds 64 (recursion?)");
  std::vector<TileRef> arguments;
  for (const Value* v : op.operands) arguments.push_back(get(frame, v));
  ++callDepth_;
  std::vector<TileRef> results;
  try {
    results = callFunction(it->second, arguments);
  } catch (...) {  // a trap in the callee ends the program; the depth must not stay raised for the next one
    --callDepth_;
    throw;
  }
  --callDepth_;
  for (size_t i = 0; i < op.numResults(); ++i) set(frame, op.result(i), results[i]);
}

void Executor::executeAssert(const Operation& op, Frame& frame) {
  const Tile& condition = *get(frame, op.operand(0));
  for (int64_t lane = 0; lane < condition.size(); ++lane) {
    if (condition.undefinedMask() && condition.undefinedMask()[lane]) continue;
    if ((condition.bitsAt(lane) & 1) == 0) {
      Report r = makeReport(Report::Kind::AssertFailed, op, &condition, lane,
                            "assertion failed: " + op.keywordAttr("message"));
      throw ProgramTrap{std::move(r)};
    }
  }
}

// llvm.intr.assume (tl.assume): LLVM may compile the kernel as if the condition held, so a false one is
// undefined behaviour there. The interpreter reports it (and an undefined condition) and goes on: the values it
// computes are not affected by the promise.
void Executor::executeAssume(const Operation& op, Frame& frame) {
  const Tile& condition = *get(frame, op.operand(0));
  if (condition.undefinedMask() && condition.undefinedMask()[0]) {
    if (checks()) report(Report::Kind::UndefinedUse, op, &condition, 0, "an undefined value is assumed true");
    return;
  }
  if ((condition.bitsAt(0) & 1) == 0)
    report(Report::Kind::AssumeViolated, op, &condition, 0,
           "assumption is false: tl.assume promises it is true, and LLVM may compile the kernel as if it were");
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
    case OpFamily::Terminator: TILESIM_UNREACHABLE("terminators and branches are handled by runBlock");
  }
  TILESIM_UNREACHABLE("bad OpKind");
}

void Executor::executeElementwise(const Operation& op, Frame& frame) {
  std::vector<TileRef> operands;
  operands.reserve(op.numOperands());
  for (const Value* v : op.operands) operands.push_back(get(frame, v));
  if (frame.vectorized) operands = uniformShapes(std::move(operands));
  std::vector<const Tile*> raw;
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
  set(frame, op.result(), result);
}

void Executor::executePrint(const Operation& op, Frame& frame) {
  std::string prefix = op.keywordAttr("prefix");
  bool hex = op.intAttr("hex", 0) != 0;
  char head[96];
  std::snprintf(head, sizeof head, "pid (%" PRId64 ", %" PRId64 ", %" PRId64 ")", programId_[0], programId_[1],
                programId_[2]);
  const int64_t maxLines = context_.options.maxPrintLines;
  auto keep = [&](std::string line) {
    if (static_cast<int64_t>(printed_->lines.size()) < maxLines) printed_->lines.push_back(std::move(line));
    else ++printed_->dropped;
  };
  if (op.numOperands() == 0) {
    keep(std::string(head) + prefix);
    return;
  }
  for (const Value* v : op.operands) {
    const Tile& t = *get(frame, v);
    Type element = t.elementType();
    for (int64_t lane = 0; lane < t.size(); ++lane) {
      if (static_cast<int64_t>(printed_->lines.size()) >= maxLines) {  // only counted: do not build the text
        ++printed_->dropped;
        continue;
      }
      std::string line = head;
      if (t.type().isTensor()) {
        line += " idx (";
        auto index = ops::laneIndex(t.shape(), lane);
        for (size_t d = 0; d < index.size(); ++d) line += (d ? ", " : "") + std::to_string(index[d]);
        line += ")";
      }
      line += prefix;
      char value[64];
      if (hex || element.isPointer()) {
        std::snprintf(value, sizeof value, "0x%" PRIx64, t.bitsAt(lane));
      } else if (element.isFloat()) {
        std::snprintf(value, sizeof value, "%f", doubleFromFloatBits(t.bitsAt(lane), element.scalarKind()));
      } else {
        std::snprintf(value, sizeof value, "%" PRId64, t.signedAt(lane));
      }
      line += value;
      if (t.undefinedMask() && t.undefinedMask()[lane]) line += " (undefined)";
      keep(std::move(line));
    }
  }
}

}  // namespace tilesim
