// The probe TTIRs of conformance/probes/probes.json for the verifier corpus test and the parser fuzz target
// (the loader itself is conformance/probes/ProbeRecords.h, shared by every test that reads the probes).
#pragma once

#include "conformance/probes/ProbeRecords.h"

namespace tilesim::testing {
using probes::loadProbeTtirs;
using probes::ProbeTtir;
}  // namespace tilesim::testing
