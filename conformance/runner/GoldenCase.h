// A golden case: one kernel launch recorded from real Triton, as a directory holding `kernel.ttir`, `case.json`
// and .npy files (docs/conformance.md "Case format"). This file loads case.json, maps its dtype names to
// tilesim's element kinds and turns the arguments into LaunchArguments. Arguments keep their Python names; the
// launch binding (ir/launch/Binding.h, both engines) binds them to tt.func parameters by name, so arguments
// Triton specialised away are simply not used. Every error names the case directory and the argument or file at
// fault.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conformance/runner/Npy.h"
#include "ir/launch/Launch.h"
#include "ir/launch/Profiles.h"

namespace tilesim {

// A dtype name as torch/Triton spell it ("float32", "bfloat16", "uint8", "bool", "float8_e4m3fn").
struct CaseDtype {
  ScalarKind kind;
  bool isUnsigned;  // for printing and ordering integers; memory is signless
};
std::optional<CaseDtype> caseDtypeFromName(std::string_view name);

struct CaseArgument {
  std::string name;
  bool isTensor = false;
  // Tensors.
  std::string dtypeName;
  CaseDtype dtype{ScalarKind::F32, false};
  std::vector<int64_t> shape;
  std::string inputPath;     // absolute or relative to the working directory (already joined with the case dir)
  std::string expectedPath;  // empty when the kernel does not write the buffer
  // Shared memory (Launch.h): this tensor is a view into the storage of the earlier tensor argument `aliasOf`,
  // starting `aliasOffset` bytes in (case.json "alias_of", "alias_offset"). Its input file is optional.
  std::string aliasOf;
  uint64_t aliasOffset = 0;
  // case.json "unordered": Triton leaves the order of this output's elements unspecified (tl.cat with
  // can_reorder=True); it is compared as a multiset, bit for bit.
  bool unordered = false;
  // case.json "kind": "tensordesc": the tensor is passed as a host TensorDescriptor over its start
  // ("desc_shape", "desc_strides" in elements, "block_shape", "padding": "zero" or "nan"). Empty: a pointer.
  std::vector<int64_t> descShape, descStrides, descBlockShape;
  int descPadding = 1;
  // case.json "order_dependent": the GPU's value depends on the order its programs run (float atomic adds,
  // a lock-protected accumulation), so it changes from run to run there too. The determinism sweep then
  // requires every variant to pass the comparison with the expected file instead of identical bytes.
  bool orderDependent = false;
  // Scalars.
  std::string pytype;  // "int", "float" or "bool"
  bool scalarIsFloat = false;
  int64_t intValue = 0;
  double floatValue = 0.0;
};

// A report a diagnostics case expects (case.json "expect_reports"): its kind, and whatever else the entry names.
struct ExpectedReport {
  std::string kind;  // reportKindName(): "out-of-bounds", "race", ...
  std::optional<std::array<int64_t, 3>> program;
  std::optional<std::vector<int64_t>> lane;
  std::optional<std::string> op;
  std::optional<int> ttirLine;
  std::optional<std::string> source;
  std::optional<std::string> buffer;
  std::optional<int64_t> byteOffset;
  // "engines": the engines that make this report (["interp"]: a check the GPU engine does not run). Empty: all.
  std::vector<std::string> engines;
};

struct GoldenCase {
  std::string directory;
  std::string name;  // "name" from case.json, or the directory's last component
  std::string entry;
  std::string kernelPath;  // directory/kernel.ttir
  std::array<int64_t, 3> grid{1, 1, 1};
  int numWarps = 4;
  int numStages = 3;  // case.json "num_stages" (1 to 8), Triton's default 3 when absent
  bool checkUB = false;  // case.json "check": "ub": the case is about undefined behaviour (--check=ub)
  // case.json "profile": "exact" or "triton": the float profile the case is judged under when no --profile says
  // otherwise (a fuzz regression records the campaign's). Absent: the runner's default (triton for cases).
  std::optional<FloatProfile> profile;
  // case.json "fuzz": {"target": ...}: the engine whose failure the fuzzer wrote this case for ("" otherwise).
  std::string foundOnEngine;
  std::vector<CaseArgument> arguments;  // in Python call order
  // A diagnostics case (one planted bug): it passes when exactly the expected reports appear — each entry matched
  // by a report, and every report of a kind some entry names.
  bool expectsReports = false;
  std::vector<ExpectedReport> expectReports;
  // case.json "expect_report_counts" ({"out-of-bounds": 8}, only beside expect_reports): how many reports of each
  // named kind the launch makes in total, counted ones included (LaunchResult::totalByKind).
  std::vector<std::pair<std::string, int64_t>> expectReportCounts;
};

struct CaseLoad {
  GoldenCase goldenCase;
  std::string error;
  bool ok() const { return error.empty(); }
};

// Whether `directory` looks like a case (it has a case.json).
bool isCaseDirectory(const std::string& directory);
// Reads DIRECTORY/case.json (a regular file of at most kMaxJsonFileBytes) and parses it.
CaseLoad loadGoldenCase(const std::string& directory);
// Parses case.json text as the case in `directory` (paths in it are joined with `directory`); never throws.
CaseLoad parseCaseJson(const std::string& text, const std::string& directory);

// The buffers and scalars of a launch, read from the case's input files; `inputs[i]` is the .npy each buffer
// came from (for writing outputs with the same NumPy dtype). Empty `error` on success.
struct CaseArguments {
  std::vector<LaunchArgument> arguments;
  std::vector<const CaseArgument*> sources;  // the CaseArgument of each LaunchArgument
  std::vector<NpyType> fileTypes;            // NumPy dtype of each buffer's input file (unused for scalars)
  std::string error;
};
CaseArguments buildCaseArguments(const GoldenCase& goldenCase);

// The case's launch of `module` (which must outlive it): the kernel the case names, the arguments read from its
// input files, its grid and num_warps. `error` when the module has no kernel of the case's entry name ("no kernel
// named 'E'", launch.kernel empty) or an input file is bad (buildCaseArguments' error).
struct CaseLaunch {
  Launch launch;
  std::vector<NpyType> fileTypes;  // as CaseArguments::fileTypes
  std::string error;
};
CaseLaunch caseLaunch(const GoldenCase& goldenCase, const Module& module);

// Reads a tensor argument's expected output and checks it against the declared dtype and shape.
NpyLoad readExpected(const GoldenCase& goldenCase, const CaseArgument& argument);

}  // namespace tilesim
