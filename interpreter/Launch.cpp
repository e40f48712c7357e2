// runLaunch: an interpreter launch as a list of named steps (LaunchSteps.h): check the grid, bind the arguments
// (the binding every engine shares, ir/launch/Binding.h), lay out the address space, prepare the context, run
// every program in parallel (OpenMP, one Executor per thread) in the requested order, and collect the results,
// merged and sorted so the output does not depend on thread count or order.
#include <omp.h>

#include <new>

#include "interpreter/LaunchSteps.h"

namespace tilesim {
namespace {

LaunchOutcome failed(std::string message) {
  LaunchOutcome outcome;
  Diagnostic diagnostic;
  diagnostic.message = std::move(message);
  outcome.diagnostics.push_back(std::move(diagnostic));
  return outcome;
}

std::string describeProgram(const std::array<int64_t, 3>& p) {
  std::string text = "(";
  for (size_t axis = 0; axis < 3; ++axis) text.append(axis ? ", " : "").append(std::to_string(p[axis]));
  return text + ")";
}

LaunchOutcome runLaunchUnguarded(Launch& launch, const LaunchOptions& options, const ProgramTrace* trace) {
  if (!launch.module || !launch.kernel) return failed("no kernel to launch");
  int64_t programs = 0;
  if (std::string problem = checkGrid(launch, programs); !problem.empty()) return failed(problem);
  const LaunchBinding binding = bindLaunch(launch);
  LaunchOutcome outcome;
  if (!binding.ok()) {
    outcome.diagnostics = binding.diagnostics();
    return outcome;
  }
  outcome.result.unusedArguments = binding.unusedArguments();
  auto fail = [&](std::string message) {  // the unused arguments stay listed, as in every outcome after binding
    outcome.diagnostics.push_back(failed(std::move(message)).diagnostics.front());
    return outcome;
  };

  Memory memory;
  std::vector<Buffer*> storageOf;
  if (std::string problem = layOutMemory(launch, options, memory, storageOf); !problem.empty()) return fail(problem);
  LaunchContext context;
  prepareContext(context, launch, options, trace, binding, memory, storageOf);

  ProgramRuns runs(launch, context, memory, storageOf, programs, chooseThreadCount(launch, options, programs));
  runs.run();
  if (runs.interrupted()) return fail("the launch was interrupted before it finished");
  if (auto program = runs.outOfMemory())
    return fail("out of memory in program " + describeProgram(*program) + ": the launch could not finish");
  collectResults(runs, launch, options, binding, memory, storageOf, outcome.result);
  return outcome;
}

}  // namespace

// Running out of host memory (a race shadow, a huge tensor) is an error of the launch, never an abort.
LaunchOutcome runLaunch(Launch& launch, const LaunchOptions& options, const ProgramTrace* trace) {
  try {
    return runLaunchUnguarded(launch, options, trace);
  } catch (const std::bad_alloc&) {
    return failed("out of memory: the launch needs more host memory than is available "
                  "(the checks keep 8 bytes per buffer element; --no-check drops them)");
  }
}

std::string InterpreterEngine::description() const {
  return "interpreter (" + std::to_string(omp_get_max_threads()) + " threads)";
}

}  // namespace tilesim
