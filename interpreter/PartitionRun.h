// The state of one running ttg.warp_specialize (interpreter/Partitions.h says what it models): the tasks and the
// baton that lets one of them run at a time, their vector clocks, and the per-element access history the race
// check reads. Private to PartitionScheduler.cpp and PartitionRaces.cpp.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "interpreter/Executor.h"

namespace tilesim::partitions {

// Thrown in a task that must stop because another one ended the program (a trap, or a deadlock found).
struct TaskAborted {};

// Who last wrote an element and when, and each task's last read of it (epoch 0: none).
struct ElementHistory {
  int writer = -1;
  uint64_t writeEpoch = 0;
  const Operation* writeOp = nullptr;
  std::vector<uint64_t> readEpoch;
  std::vector<const Operation*> readOp;
  std::vector<const Operation*> readAfterRelease;  // each reader's last mbarrier arrival before its read
};

class PartitionRun {
 public:
  PartitionRun(Executor& executor, const Operation& op, size_t tasks, uint64_t seed);
  // Runs bodies[0] (the default partition) on this thread and the others on threads of their own, one at a time,
  // partition0 first (round robin) or any (random); rethrows the first
  // trap (or host exception) of any task once every task has stopped.
  void run(std::vector<std::function<void()>> bodies);
  bool blockUntil(const Operation& op, const std::function<bool()>& ready);
  void switchPoint();
  int running() const { return running_; }
  std::string taskName(int task) const;

  std::vector<std::vector<uint64_t>> clocks;  // clocks[p][q]: what task p knows of task q's progress
  std::vector<std::vector<ElementHistory>> history;  // by allocation, then element (sized when first touched)
  std::set<std::pair<const Operation*, const Operation*>> reported;  // race pairs already reported
  std::vector<const Operation*> lastRelease, lastAcquire;  // each task's last mbarrier arrival and wait

 private:
  enum class State { Runnable, Blocked, Done };
  struct Task {
    State state = State::Runnable;
    std::function<bool()> ready;
    const Operation* blockedAt = nullptr;
  };
  // The next task to run after `self` stops or blocks (round robin, or at random); -1 when none can.
  int chooseNext(int self, bool includeSelf);
  // Hands the baton to `next` and waits until it comes back to `self` (throws TaskAborted if the run ended).
  void handTo(int self, int next);
  void startTask(int self, const std::function<void()>& body);
  void finishTask(int self);
  void abortWith(std::optional<ProgramTrap> trap, std::exception_ptr error);
  [[noreturn]] void deadlock(const Operation& at);

  Executor& executor_;
  const Operation& op_;
  std::vector<Task> tasks_;
  std::mt19937_64 random_;
  bool randomSchedule_;
  int running_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
  int turn_ = 0;
  bool aborted_ = false;
  size_t done_ = 0;
  std::optional<ProgramTrap> trap_;
  std::exception_ptr error_;
};

}  // namespace tilesim::partitions
