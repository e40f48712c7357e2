// The threads a launch's programs run on: the calling thread and up to N-1 pool workers that outlive launches.
// Unlike an OpenMP team, whose closing barrier waits for every member, a launch waits only for the workers that
// joined it: the caller takes programs until none is left, then waits for workers in the middle of one. A worker
// the OS has not scheduled by then takes no part. On a busy machine that is the difference between the launch
// taking the caller's time and taking the time until the last thread got a core (on this project's 2-core
// machine at load 5, a 2-thread softmax launch under OpenMP took 3.4x as long as a 1-thread one).
#pragma once

#include <functional>

namespace tilesim {

// Calls work(slot) on the calling thread (slot 0) and on each pool worker that joins before the caller's
// work(0) returns (slots 1 .. threads-1, each at most once); returns when every call has returned. `work`
// shares its work out itself (an atomic counter): any subset of slots must finish it. Two launches at once
// (from two host threads) do not share the pool: the second runs on its own thread. After fork() the child
// runs every launch on its calling thread (the parent's workers do not exist there).
void runOnPoolThreads(int threads, const std::function<void(int slot)>& work);

}  // namespace tilesim
