// ttg.warp_specialize on the interpreter (docs/ttgir.md, "Gluon and warp specialisation"): the default region and
// each partition run as concurrent tasks of one program under a deterministic scheduler, and the shared memory
// they touch is checked for races by happens-before through mbarriers.
//
// Scheduling: each task has its own host thread, but exactly one holds the baton at a time (handed over under a
// mutex), so a run is a sequential interleaving chosen by the scheduler, never by the host. With
// LaunchOptions::scheduleSeed 0 the workers start first (partition0, partition1, ..., usually the producers), and a
// task runs until it blocks (a ttng.wait_barrier whose phase has not completed) or ends, then the next task in
// order that can go on runs (round robin, the default partition after the last worker); another seed starts
// anywhere and picks the next task at random at every mbarrier op, shared-memory access and every 64 steps as
// well, exploring other interleavings. When every task that has not ended is blocked, the launch reports a
// deadlock (mbarrier) naming each task's wait and line.
//
// Races (partition-race): every task has a vector clock. An mbarrier arrival (arrive_barrier, barrier_expect, a
// TMA load's transaction bytes) releases the arriving task's clock into the barrier's current phase; a
// wait_barrier that returns acquires the clock of the phase it waited for. A shared-memory access by task p is
// ordered after an earlier one by task q when p's clock has caught up with q's at that access; a write and
// another task's read or write of the same element not so ordered is a race, reported at the second access
// with the first one's partition, op and line. A TMA load writes as its issuer, at its issue time; an async
// warp_group_dot reads its shared operands until the warp_group_dot_wait that retires it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "interpreter/Executor.h"

namespace tilesim::partitions {

// Runs a ttg.warp_specialize op: its results are the default region's warp_yield values.
void executeWarpSpecialize(Executor& executor, const Operation& op, Executor::Frame& frame);

// Inside a warp_specialize (otherwise: returns false at once): blocks the running task until `ready` holds, letting
// the others run. Returns true once it holds; a deadlock of every task ends the program (a trap).
bool blockUntil(Executor& executor, const Operation& op, const std::function<bool()>& ready);
// A point where the random schedule (scheduleSeed != 0) may hand the baton to another task.
void switchPoint(Executor& executor);
// The running task's clock joined into `into` (an mbarrier phase) by `op`; then its own entry moves on.
void release(Executor& executor, const Operation& op, std::vector<uint64_t>& into);
// `from` (an mbarrier's completed phase) joined into the running task's clock by `op` (a wait).
void acquire(Executor& executor, const Operation& op, const std::vector<uint64_t>& from);
// "ttng.wait_barrier at line 42 (kernels.py:77:8)": an op as reports name it, TTGIR line and Python source.
std::string describeOp(const Executor& executor, const Operation& op);
// The running task's clock now (empty outside warp_specialize), and its index.
std::vector<uint64_t> clockNow(Executor& executor);
int runningTask(Executor& executor);
// Shared-memory accesses for the race check: reads and writes by the running task, or (TMA loads) a write by
// task `writer` at its clock `writerClock`.
void noteRead(Executor& executor, const Operation& op, int64_t allocation, const std::vector<int64_t>& elements);
void noteWrite(Executor& executor, const Operation& op, int64_t allocation, const std::vector<int64_t>& elements);
void noteWriteBy(Executor& executor, const Operation& op, int64_t allocation, const std::vector<int64_t>& elements,
                 int writer, const std::vector<uint64_t>& writerClock);
// " (in partition0)" or " (in the default partition)" inside a warp_specialize; "" outside.
std::string taskSuffix(const SharedMemoryState& state);

}  // namespace tilesim::partitions
