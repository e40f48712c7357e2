// The race check between ttg.warp_specialize's tasks (interpreter/Partitions.h): vector clocks moved by mbarrier
// arrivals and waits, and each shared-memory element's last write and last read per task. Outside a
// warp_specialize every function here returns at once.
#include <algorithm>

#include "interpreter/PartitionRun.h"
#include "interpreter/Partitions.h"

namespace tilesim::partitions {

namespace {

PartitionRun* runOf(Executor& executor) { return executor.sharedMemory().partitions; }

void join(std::vector<uint64_t>& into, const std::vector<uint64_t>& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

ElementHistory& historyOf(PartitionRun& run, Executor& executor, int64_t allocation, int64_t element) {
  if (run.history.size() <= static_cast<size_t>(allocation)) run.history.resize(static_cast<size_t>(allocation) + 1);
  std::vector<ElementHistory>& elements = run.history[static_cast<size_t>(allocation)];
  if (elements.empty()) elements.resize(executor.sharedMemory().allocations[allocation].undefined.size());
  ElementHistory& history = elements[static_cast<size_t>(element)];
  if (history.readEpoch.empty()) {
    history.readEpoch.assign(run.clocks.size(), 0);
    history.readOp.assign(run.clocks.size(), nullptr);
    history.readAfterRelease.assign(run.clocks.size(), nullptr);
  }
  return history;
}

// One partition-race report per pair of ops (the first element found), at the second access.
// The message names both accesses and the synchronisation nearest the bug: for a read that came too early, the
// reader's last wait before it; for a write over a read not yet finished, the reader's last arrival before it.
void reportRace(PartitionRun& run, Executor& executor, const Operation& op, int task, bool write,
                const Operation& earlier, int earlierTask, bool earlierWrite, const Operation* readerRelease) {
  if (!run.reported.insert({&earlier, &op}).second) return;
  std::string message = std::string(write ? "writes" : "reads") + " shared memory in " + run.taskName(task) + " that " +
                        run.taskName(earlierTask) + " " + (earlierWrite ? "wrote" : "read") + " with " +
                        describeOp(executor, earlier) + ", no mbarrier wait ordering the two";
  const Operation* lastWait = run.lastAcquire[static_cast<size_t>(task)];
  if (!write && lastWait) message += "; the reader's last mbarrier wait before this read: " + describeOp(executor, *lastWait);
  if (write && !earlierWrite && readerRelease)
    message += "; the reader's last mbarrier arrival before its read (which let this write go ahead): " +
               describeOp(executor, *readerRelease);
  executor.report(Report::Kind::PartitionRace, op, nullptr, -1, message);
}

void access(PartitionRun& run, Executor& executor, const Operation& op, int64_t allocation,
            const std::vector<int64_t>& elements, int task, const std::vector<uint64_t>& clock, bool write) {
  const uint64_t epoch = clock[static_cast<size_t>(task)];
  for (int64_t element : elements) {
    ElementHistory& history = historyOf(run, executor, allocation, element);
    if (history.writer >= 0 && history.writer != task && clock[static_cast<size_t>(history.writer)] < history.writeEpoch)
      reportRace(run, executor, op, task, write, *history.writeOp, history.writer, true, nullptr);
    if (write) {
      for (size_t other = 0; other < history.readEpoch.size(); ++other)
        if (static_cast<int>(other) != task && history.readEpoch[other] > clock[other])
          reportRace(run, executor, op, task, true, *history.readOp[other], static_cast<int>(other), false,
                     history.readAfterRelease[other]);
      history.writer = task;
      history.writeEpoch = epoch;
      history.writeOp = &op;
      std::fill(history.readEpoch.begin(), history.readEpoch.end(), 0);
    } else {
      history.readEpoch[static_cast<size_t>(task)] = epoch;
      history.readOp[static_cast<size_t>(task)] = &op;
      history.readAfterRelease[static_cast<size_t>(task)] = run.lastRelease[static_cast<size_t>(task)];
    }
  }
}

}  // namespace

std::string describeOp(const Executor& executor, const Operation& op) {
  std::string text = std::string(op.name()) + " at line " + std::to_string(op.textPos.line);
  const Module* module = executor.context().module;
  if (module && op.loc != kNoLoc) {
    const std::string source = module->locations.describe(op.loc);
    if (!source.empty()) text += " (" + source + ")";
  }
  return text;
}

void release(Executor& executor, const Operation& op, std::vector<uint64_t>& into) {
  PartitionRun* run = runOf(executor);
  if (!run) return;
  run->lastRelease[static_cast<size_t>(run->running())] = &op;
  std::vector<uint64_t>& clock = run->clocks[static_cast<size_t>(run->running())];
  join(into, clock);
  ++clock[static_cast<size_t>(run->running())];
}

void acquire(Executor& executor, const Operation& op, const std::vector<uint64_t>& from) {
  PartitionRun* run = runOf(executor);
  if (!run) return;
  run->lastAcquire[static_cast<size_t>(run->running())] = &op;
  join(run->clocks[static_cast<size_t>(run->running())], from);
}

std::vector<uint64_t> clockNow(Executor& executor) {
  PartitionRun* run = runOf(executor);
  return run ? run->clocks[static_cast<size_t>(run->running())] : std::vector<uint64_t>{};
}

void noteRead(Executor& executor, const Operation& op, int64_t allocation, const std::vector<int64_t>& elements) {
  PartitionRun* run = runOf(executor);
  if (!run) return;
  const int task = run->running();
  access(*run, executor, op, allocation, elements, task, run->clocks[static_cast<size_t>(task)], false);
}

void noteWrite(Executor& executor, const Operation& op, int64_t allocation, const std::vector<int64_t>& elements) {
  PartitionRun* run = runOf(executor);
  if (!run) return;
  const int task = run->running();
  access(*run, executor, op, allocation, elements, task, run->clocks[static_cast<size_t>(task)], true);
}

void noteWriteBy(Executor& executor, const Operation& op, int64_t allocation, const std::vector<int64_t>& elements,
                 int writer, const std::vector<uint64_t>& writerClock) {
  PartitionRun* run = runOf(executor);
  if (!run || writerClock.empty()) return;
  access(*run, executor, op, allocation, elements, writer, writerClock, true);
}

}  // namespace tilesim::partitions
