// The defaults of Engine's optional capabilities (Engine.h): an engine without one says so as a diagnostic.
#include "ir/launch/Engine.h"

namespace tilesim {

LaunchOutcome Engine::runTimed(Launch&, const LaunchOptions&, const TimingRequest&, LaunchTiming*) {
  LaunchOutcome outcome;
  Diagnostic diagnostic;
  diagnostic.message = std::string("timing needs the GPU engine, not ") + name();
  outcome.diagnostics.push_back(std::move(diagnostic));
  return outcome;
}

}  // namespace tilesim
