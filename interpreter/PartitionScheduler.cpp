// ttg.warp_specialize's tasks under the deterministic scheduler (interpreter/Partitions.h): one host thread per
// task, one baton. The baton holder is the only thread that touches the program's state; the mutex handing the
// baton over orders each task's work before the next one's, so the run is one sequential interleaving.
#include <thread>

#include "interpreter/PartitionRun.h"
#include "interpreter/Partitions.h"
#include "interpreter/SharedMemoryAccess.h"
#include "ir/OpAttributes.h"

namespace tilesim::partitions {

PartitionRun::PartitionRun(Executor& executor, const Operation& op, size_t tasks, uint64_t seed)
    : clocks(tasks, std::vector<uint64_t>(tasks, 0)), lastRelease(tasks, nullptr), lastAcquire(tasks, nullptr), executor_(executor), op_(op), tasks_(tasks), random_(seed),
      randomSchedule_(seed != 0) {
  for (size_t p = 0; p < tasks; ++p) clocks[p][p] = 1;
}

std::string PartitionRun::taskName(int task) const {
  std::string name = task == 0 ? "the default partition" : "partition";
  if (task > 0) name += std::to_string(task - 1);  // not "partition" + to_string(): GCC 12's -Wrestrict false alarm
  return name;
}

int PartitionRun::chooseNext(int self, bool includeSelf) {
  const int count = static_cast<int>(tasks_.size());
  std::vector<int> candidates;
  for (int step = 1; step <= count; ++step) {  // round robin order: self + 1, ..., self
    const int task = (self + step) % count;
    if (task == self && !includeSelf) continue;
    Task& t = tasks_[static_cast<size_t>(task)];
    if (t.state == State::Blocked && t.ready()) t.state = State::Runnable;
    if (t.state == State::Runnable) candidates.push_back(task);
  }
  if (candidates.empty()) return -1;
  if (!randomSchedule_) return candidates.front();
  return candidates[std::uniform_int_distribution<size_t>(0, candidates.size() - 1)(random_)];
}

void PartitionRun::handTo(int self, int next) {
  std::unique_lock lock(mutex_);
  turn_ = next;
  changed_.notify_all();
  changed_.wait(lock, [&] { return turn_ == self || aborted_; });
  if (aborted_) throw TaskAborted{};
  running_ = self;
}

void PartitionRun::deadlock(const Operation& at) {
  std::string message = "deadlock: every partition still running is blocked:";
  for (size_t t = 0; t < tasks_.size(); ++t) {
    if (tasks_[t].state != State::Blocked) continue;
    message.append(" ").append(taskName(static_cast<int>(t))).append(" at ");  // appends: GCC 12's -Wrestrict false alarm on " " + string
    message.append(describeOp(executor_, *tasks_[t].blockedAt)).append(";");
  }
  message.pop_back();
  message += " (ttg.warp_specialize at line " + std::to_string(op_.textPos.line) + ")";
  throw ProgramTrap{executor_.makeReport(Report::Kind::BarrierMisuse, at, nullptr, -1, message)};
}

bool PartitionRun::blockUntil(const Operation& op, const std::function<bool()>& ready) {
  const int self = running_;
  Task& task = tasks_[static_cast<size_t>(self)];
  task.state = State::Blocked;
  task.ready = ready;
  task.blockedAt = &op;
  const int next = chooseNext(self, true);
  if (next < 0) deadlock(op);
  if (next != self) handTo(self, next);  // whoever hands the baton back has seen `ready` hold
  task.state = State::Runnable;
  task.ready = nullptr;
  return true;
}

void PartitionRun::switchPoint() {
  if (!randomSchedule_) return;
  const int self = running_;
  const int next = chooseNext(self, true);
  if (next >= 0 && next != self) handTo(self, next);
}

void PartitionRun::abortWith(std::optional<ProgramTrap> trap, std::exception_ptr error) {
  std::lock_guard lock(mutex_);
  if (!trap_ && !error_) {
    trap_ = std::move(trap);
    error_ = error;
  }
  aborted_ = true;
  changed_.notify_all();
}

void PartitionRun::finishTask(int self) {
  tasks_[static_cast<size_t>(self)].state = State::Done;
  const int next = chooseNext(self, false);
  std::lock_guard lock(mutex_);
  ++done_;
  if (next >= 0) {
    turn_ = next;
  } else if (done_ < tasks_.size()) {  // the others are all blocked, and nothing is left to wake them
    for (size_t t = 0; t < tasks_.size(); ++t)
      if (tasks_[t].state == State::Blocked) {
        try {
          deadlock(*tasks_[t].blockedAt);
        } catch (const ProgramTrap& trap) {
          trap_ = trap;
        }
        break;
      }
    aborted_ = true;
  }
  changed_.notify_all();
}

void PartitionRun::startTask(int self, const std::function<void()>& body) {
  try {
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return turn_ == self || aborted_; });
      if (aborted_) return;
      running_ = self;
    }
    body();
    finishTask(self);
  } catch (const TaskAborted&) {
  } catch (const ProgramTrap& trap) {
    abortWith(trap, nullptr);
  } catch (...) {
    abortWith(std::nullopt, std::current_exception());
  }
}

void PartitionRun::run(std::vector<std::function<void()>> bodies) {
  // The workers (usually the producers) start first: partition0, partition1, ..., then the default partition;
  // a random schedule starts anywhere.
  const size_t count = bodies.size();
  turn_ = randomSchedule_ ? static_cast<int>(std::uniform_int_distribution<size_t>(0, count - 1)(random_)) : count > 1 ? 1 : 0;
  std::vector<std::thread> threads;
  for (size_t t = 1; t < count; ++t)
    threads.emplace_back([this, t, &bodies] { startTask(static_cast<int>(t), bodies[t]); });
  startTask(0, bodies[0]);
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return done_ == tasks_.size() || aborted_; });
  }
  for (std::thread& thread : threads) thread.join();
  if (error_) std::rethrow_exception(error_);
  if (trap_) throw *trap_;
}

namespace {

PartitionRun* runOf(Executor& executor) { return executor.sharedMemory().partitions; }

}  // namespace

void executeWarpSpecialize(Executor& executor, const Operation& op, Executor::Frame& frame) {
  SharedMemoryState& state = executor.sharedMemory();
  if (state.partitions)
    executor.trap(Report::Kind::Unsupported, op, "a ttg.warp_specialize inside another one (Triton does not allow it)");
  std::vector<TileRef> operands;
  for (const Value* operand : op.operands) operands.push_back(executor.get(frame, operand));
  std::vector<TileRef> yielded;
  std::vector<Executor::Frame> frames(op.regions.size() - 1, frame);  // each partition's own values
  std::vector<std::function<void()>> bodies;
  bodies.push_back([&] { yielded = executor.runBlock(op.regions[0]->front(), {}, frame); });
  for (size_t r = 1; r < op.regions.size(); ++r)
    bodies.push_back([&, r] { executor.runBlock(op.regions[r]->front(), operands, frames[r - 1]); });
  PartitionRun run(executor, op, op.regions.size(), executor.context().options.scheduleSeed);
  state.partitions = &run;
  try {
    run.run(std::move(bodies));
  } catch (...) {
    state.partitions = nullptr;
    throw;
  }
  state.partitions = nullptr;
  for (size_t i = 0; i < op.numResults(); ++i) executor.set(frame, op.result(i), yielded[i]);
}

bool blockUntil(Executor& executor, const Operation& op, const std::function<bool()>& ready) {
  PartitionRun* run = runOf(executor);
  return run && run->blockUntil(op, ready);
}

void switchPoint(Executor& executor) {
  if (PartitionRun* run = runOf(executor)) run->switchPoint();
}

int runningTask(Executor& executor) {
  PartitionRun* run = runOf(executor);
  return run ? run->running() : 0;
}

std::string taskSuffix(const SharedMemoryState& state) {
  const PartitionRun* run = state.partitions;
  return run ? " (in " + run->taskName(run->running()) + ")" : "";
}

}  // namespace tilesim::partitions
