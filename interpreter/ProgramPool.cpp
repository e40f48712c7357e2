// ProgramPool.h: the worker threads, the join protocol and the closing wait.
#include "interpreter/ProgramPool.h"

#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace tilesim {
namespace {

class Pool {
 public:
  static Pool& instance() {
    static Pool* pool = new Pool();  // never destroyed: its workers wait on it until the process ends
    return *pool;
  }

  void run(int threads, const std::function<void(int)>& work) {
    std::unique_lock<std::mutex> launch(launchMutex_, std::try_to_lock);
    if (!launch.owns_lock() || getpid() != owner_) return work(0);  // another launch holds the pool, or a fork child
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (static_cast<int>(workers_) < threads - 1) {
        std::thread(&Pool::serve, this).detach();
        ++workers_;
      }
      job_ = &work;
      slots_ = threads;
      nextSlot_ = 1;
      ++generation_;
    }
    wake_.notify_all();
    work(0);
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = nullptr;  // closed: a worker that wakes from now on finds nothing to join
    finished_.wait(lock, [this] { return running_ == 0; });
  }

 private:
  void serve() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (!job_ || nextSlot_ >= slots_) continue;
      const std::function<void(int)>& work = *job_;
      const int slot = nextSlot_++;
      ++running_;
      lock.unlock();
      work(slot);
      lock.lock();
      if (--running_ == 0) finished_.notify_all();
    }
  }

  std::mutex launchMutex_;  // held by the launch that uses the pool
  std::mutex mutex_;        // guards what follows
  std::condition_variable wake_, finished_;
  const std::function<void(int)>* job_ = nullptr;
  uint64_t generation_ = 0;
  int slots_ = 0, nextSlot_ = 0, running_ = 0;
  size_t workers_ = 0;
  const pid_t owner_ = getpid();
};

}  // namespace

void runOnPoolThreads(int threads, const std::function<void(int slot)>& work) {
  if (threads <= 1) return work(0);
  Pool::instance().run(threads, work);
}

}  // namespace tilesim
