// The interpreter-against-reference property for one generated program (docs/fuzzing.md), shared by the RapidCheck
// test (ProgramFuzzTest.cpp) and `tilesim fuzz` (fuzz/campaign/): build the plan, print, re-parse and verify it,
// run the independent reference under both float profiles, then the interpreter four ways (forward on 1 thread,
// reverse on 2, shuffled on 2, shuffled under the triton profile). Every run must equal its profile's reference
// bit for bit (NaNs of a float dtype compare equal, elements where an undefined lane was stored are skipped), runs
// of one profile must give identical bytes, and the reports must be exactly the ones the reference predicts.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fuzz/programs/KernelGen.h"
#include "fuzz/programs/ReferenceEval.h"
#include "ir/IR.h"
#include "ir/launch/Engine.h"

namespace tilesim::fuzz {

// Wall-clock seconds per stage of the property, on the checking thread (`tilesim fuzz --timings`).
struct StageSeconds {
  double generate = 0;   // the plan from the program seed (the campaign fills this one)
  double build = 0;      // plan -> module and input buffers (KernelGen)
  double print = 0;      // the module as text, twice (the second time: the re-parsed module, the round trip)
  double parse = 0;      // the printed text back to a module
  double verify = 0;
  double reference = 0;  // the lane-by-lane reference, both profiles
  double interpret = 0;  // the four interpreter runs
  double compare = 0;    // buffers against the reference, runs against each other
  void add(const StageSeconds& other);
};

// Every stage of StageSeconds with its name (the key in a campaign summary's JSON), in pipeline order.
struct StageField {
  const char* name;
  double StageSeconds::*seconds;
};
inline constexpr StageField kStageFields[] = {
    {"generate", &StageSeconds::generate},   {"build", &StageSeconds::build},
    {"print", &StageSeconds::print},         {"parse", &StageSeconds::parse},
    {"verify", &StageSeconds::verify},       {"reference", &StageSeconds::reference},
    {"interpret", &StageSeconds::interpret}, {"compare", &StageSeconds::compare},
};

// How a program failed, finer than the check's name, so that a shrinker keeps only candidates that fail the same
// way (docs/fuzzing.md, Shrinking): `kind` is the check and which of its failures ("reports: unexpected race in
// tt.store", "reports: missing undefined-behavior", "mismatch"), `buffers` the arguments whose bytes differ
// (mismatch, determinism; a target engine's comparison adds its own).
struct FailureClass {
  std::string kind;
  std::vector<std::string> buffers;
};

// The first line of `text` with every run of digits as '#' (positions, sizes, values), so that equal failures of
// different programs compare equal.
std::string withoutNumbers(const std::string& text);

// What one checked program was, for statistics and for writing it out as a case.
struct CheckedProgram {
  StageSeconds* stages = nullptr;          // when set, each stage's time is added here
  BuiltKernel built;                       // the builder's module and the input buffers
  std::unique_ptr<Module> parsed;          // the re-parsed printed module (what every engine runs)
  std::string text;                        // the printed module
  std::map<std::string, int64_t> opCounts; // op mnemonic -> occurrences in the kernel (and functions it calls)
  bool undefinedStore = false;             // the reference saw an undefined lane reach memory
  bool undefinedBehaviour = false;         // the reference saw a UB lane (division by 0, shift, float->int)
  std::vector<LaunchArgument> exactOutputs;   // the interpreter's buffers after the launch, exact profile
  std::vector<LaunchArgument> tritonOutputs;  // the same under the triton profile (with error bounds)
  std::vector<std::vector<uint8_t>> undefinedElements;  // per buffer argument: 1 where an undefined lane was stored
  ReferenceOutcome reference;              // exact-profile reference (buffers in argument order)
  FailureClass failure;                    // set when the check fails
};

// Builds, prints, re-parses and verifies the plan. Returns "" or what failed (a builder, printer or verifier bug).
std::string prepareProgram(const KernelPlan& plan, CheckedProgram& program);

// The whole property against `interpreter` (the engine under test; normally the InterpreterEngine). On success
// `program` holds the outputs. Returns "" when the property holds, otherwise the failure, whose first line names
// the check that failed ("mismatch: ...", "determinism: ...", "reports: ...", "round-trip: ...").
std::string checkProgram(const KernelPlan& plan, Engine& interpreter, CheckedProgram& program);

}  // namespace tilesim::fuzz
