// Golden-case loading: every recorded case loads and builds its launch arguments (bf16 from `<i2` files by the
// case's dtype), malformed cases give one error naming the file and argument, and the fields kept for people and
// scripts (notes, made_by, gpu_differs_by_design) are ignored.
#include "conformance/runner/GoldenCase.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "conformance/runner/Conformance.h"
#include "interpreter/Interpreter.h"

namespace tilesim {
namespace {

namespace fs = std::filesystem;

const std::string kGolden = std::string(TILESIM_SOURCE_DIR) + "/conformance/golden";

// A scratch case directory holding `json` as case.json and, optionally, the golden vadd inputs.
std::string scratchCase(const std::string& name, const std::string& json) {
  fs::path directory = fs::temp_directory_path() / ("tilesim_case_test_" + name);
  fs::remove_all(directory);
  fs::create_directories(directory);
  std::ofstream(directory / "case.json") << json;
  fs::copy_file(kGolden + "/vadd_f32/x_ptr.npy", directory / "x_ptr.npy");
  return directory.string();
}

TEST(GoldenCase, DtypeNames) {
  EXPECT_EQ(caseDtypeFromName("bfloat16")->kind, ScalarKind::BF16);
  EXPECT_EQ(caseDtypeFromName("torch.float16")->kind, ScalarKind::F16);
  EXPECT_TRUE(caseDtypeFromName("uint8")->isUnsigned);
  EXPECT_EQ(caseDtypeFromName("float8_e4m3fn")->kind, ScalarKind::F8E4M3FN);
  EXPECT_EQ(caseDtypeFromName("bool")->kind, ScalarKind::I1);
  EXPECT_FALSE(caseDtypeFromName("complex64"));
}

TEST(GoldenCase, EveryRecordedCaseLoads) {
  std::vector<std::string> missing;
  std::vector<std::string> cases = findCaseDirectories({kGolden}, missing);
  EXPECT_TRUE(missing.empty());
  EXPECT_EQ(cases.size(), 15u);
  for (const std::string& directory : cases) {
    CaseLoad load = loadGoldenCase(directory);
    ASSERT_TRUE(load.ok()) << load.error;
    CaseArguments built = buildCaseArguments(load.goldenCase);
    ASSERT_TRUE(built.error.empty()) << built.error;
    EXPECT_EQ(built.arguments.size(), load.goldenCase.arguments.size());
  }
}

TEST(GoldenCase, Bf16ArgumentsComeFromInt16Files) {
  CaseLoad load = loadGoldenCase(kGolden + "/rmsnorm_bf16");
  ASSERT_TRUE(load.ok()) << load.error;
  EXPECT_EQ(load.goldenCase.grid, (std::array<int64_t, 3>{11, 1, 1}));
  CaseArguments built = buildCaseArguments(load.goldenCase);
  ASSERT_TRUE(built.error.empty()) << built.error;
  const LaunchArgument& x = built.arguments.at(0);
  EXPECT_EQ(x.name, "x_ptr");
  EXPECT_EQ(x.elementKind, ScalarKind::BF16);
  EXPECT_EQ(x.bytes.size(), 11u * 333u * 2u);
  const LaunchArgument& eps = built.arguments.at(4);
  EXPECT_TRUE(eps.scalarIsFloat);
  EXPECT_DOUBLE_EQ(eps.floatValue, 1e-6);
}

TEST(GoldenCase, ErrorsNameTheFileAndArgument) {
  std::string tensor = R"({"name": "x_ptr", "kind": "tensor", "dtype": "DTYPE", "shape": [SHAPE], "input": "x_ptr.npy"})";
  auto caseWith = [&](const std::string& dtype, const std::string& shape) {
    std::string argument = tensor;
    argument.replace(argument.find("DTYPE"), 5, dtype);
    argument.replace(argument.find("SHAPE"), 5, shape);
    return R"({"entry": "k", "grid": [1, 1, 1], "args": [)" + argument + "]}";
  };
  auto buildError = [](const std::string& directory) {
    CaseLoad load = loadGoldenCase(directory);
    if (!load.ok()) return load.error;
    return buildCaseArguments(load.goldenCase).error;
  };
  EXPECT_EQ(buildError(scratchCase("ok", caseWith("float32", "10007"))), "");
  std::string wrongType = buildError(scratchCase("type", caseWith("int32", "10007")));
  EXPECT_NE(wrongType.find("x_ptr.npy: argument x_ptr is int32 but the file holds <f4"), std::string::npos) << wrongType;
  std::string wrongShape = buildError(scratchCase("shape", caseWith("float32", "10, 10")));
  EXPECT_NE(wrongShape.find("declares 100 elements"), std::string::npos) << wrongShape;
  std::string badDtype = buildError(scratchCase("dtype", caseWith("complex64", "1")));
  EXPECT_NE(badDtype.find("args[0] (x_ptr): unknown dtype \"complex64\""), std::string::npos) << badDtype;
  std::string badJson = buildError(scratchCase("json", "{\"args\": ["));
  EXPECT_NE(badJson.find("case.json: not valid JSON"), std::string::npos) << badJson;
  std::string badScalar = buildError(scratchCase("scalar", R"({"args": [{"name": "n", "kind": "scalar", "pytype": "int", "value": 1.5}]})"));
  EXPECT_NE(badScalar.find("(n): \"value\" is not an integer"), std::string::npos) << badScalar;
  std::string noDirectory = buildError("/nonexistent/case");
  EXPECT_NE(noDirectory.find("/nonexistent/case/case.json: cannot open"), std::string::npos) << noDirectory;
}

// expect_report_counts pins the total of each kind (stored or only counted); it needs expect_reports beside it.
TEST(GoldenCase, ExpectedReportCounts) {
  const std::string args = R"("args": [{"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": [10007], "input": "x_ptr.npy"}])";
  CaseLoad load = loadGoldenCase(scratchCase("counts", R"({"entry": "k", "expect_reports": [{"kind": "out-of-bounds"}],
      "expect_report_counts": {"out-of-bounds": 2}, )" + args + "}"));
  ASSERT_TRUE(load.ok()) << load.error;
  ASSERT_EQ(load.goldenCase.expectReportCounts.size(), 1u);
  EXPECT_EQ(load.goldenCase.expectReportCounts[0], (std::pair<std::string, int64_t>{"out-of-bounds", 2}));

  LaunchResult result;
  Report report;
  report.kind = Report::Kind::OutOfBounds;
  report.op = "tt.load";
  result.reports = {report, report};
  result.totalByKind[static_cast<size_t>(Report::Kind::OutOfBounds)] = 2;
  EXPECT_TRUE(checkExpectedReports(load.goldenCase, result).empty());
  result.totalByKind[static_cast<size_t>(Report::Kind::OutOfBounds)] = 3;  // one more, only counted
  std::vector<std::string> problems = checkExpectedReports(load.goldenCase, result);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "expected 2 out-of-bounds reports, the launch made 3");

  CaseLoad unknown = loadGoldenCase(scratchCase("count_kind", R"({"expect_reports": [{"kind": "race"}],
      "expect_report_counts": {"races": 1}, )" + args + "}"));
  EXPECT_NE(unknown.error.find("expect_report_counts: unknown report kind \"races\""), std::string::npos) << unknown.error;
  CaseLoad alone = loadGoldenCase(scratchCase("count_alone", R"({"expect_report_counts": {"race": 1}, )" + args + "}"));
  EXPECT_NE(alone.error.find("needs \"expect_reports\" beside it"), std::string::npos) << alone.error;
}

// The captured embedding backward sums repeated tokens' rows with float atomic adds: its out_ptr2 changes with
// the program order (as on the GPU), so without "order_dependent" the determinism sweep rejects it; with it,
// every order must still be within its bound of the H200's result.
TEST(GoldenCase, OrderDependentOutputsPassInEveryOrder) {
  const fs::path source = fs::path(TILESIM_SOURCE_DIR) / "conformance/captured" /
      "triton_per_fused_add_embedding_dense_backward_native_layer_norm_native_layer_norm_backward_nll_loss_forward_view_12_c859f5ba_0";
  const fs::path copy = fs::temp_directory_path() / "tilesim_case_test_order_dependent";
  fs::remove_all(copy);
  fs::copy(source, copy, fs::copy_options::recursive);
  CaseOptions options;
  options.determinism = true;
  options.threads = 2;
  InterpreterEngine engine;
  CaseOutcome marked = runCase(copy.string(), options, engine);
  EXPECT_TRUE(marked.passed()) << marked.details();
  std::ifstream in(copy / "case.json");
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const std::string flag = "\"order_dependent\": true";
  ASSERT_NE(json.find(flag), std::string::npos);
  json.replace(json.find(flag), flag.size(), "\"order_dependent\": false");
  std::ofstream(copy / "case.json") << json;
  CaseOutcome unmarked = runCase(copy.string(), options, engine);
  EXPECT_FALSE(unmarked.passed());
  ASSERT_FALSE(unmarked.determinismProblems.empty());
  EXPECT_NE(unmarked.determinismProblems[0].find("out_ptr2 differs"), std::string::npos);
}

// Issue 19: case.json numbers that did not fit their field (num_warps 3 or 2^40, a uint64 line number) were cast
// silently; a case.json that is a FIFO hung the suite.
TEST(GoldenCase, CaseJsonFieldsAreRangeChecked) {
  const std::string args = R"("args": [{"name": "x", "kind": "tensor", "dtype": "float32", "shape": [4], "input": "x.npy"}])";
  EXPECT_NE(parseCaseJson(R"({"num_warps": 3, )" + args + "}", "/c").error.find("power of two"), std::string::npos);
  EXPECT_NE(parseCaseJson(R"({"num_warps": 1099511627776, )" + args + "}", "/c").error.find("power of two"), std::string::npos);
  EXPECT_NE(parseCaseJson(R"({"grid": [18446744073709551615], )" + args + "}", "/c").error.find("out of range"), std::string::npos);
  EXPECT_NE(parseCaseJson(R"({"expect_reports": [{"kind": "race", "ttir_line": 4294967297}], )" + args + "}", "/c").error.find("ttir_line"),
            std::string::npos);
  EXPECT_TRUE(parseCaseJson(R"({"num_warps": 8, )" + args + "}", "/c").ok());
  EXPECT_NE(parseCaseJson(R"({"num_stages": 0, )" + args + "}", "/c").error.find("num_stages"), std::string::npos);
  EXPECT_NE(parseCaseJson(R"({"num_stages": 9, )" + args + "}", "/c").error.find("from 1 to 8"), std::string::npos);
  EXPECT_NE(parseCaseJson(R"({"num_stages": "3", )" + args + "}", "/c").error.find("num_stages"), std::string::npos);
  const auto staged = parseCaseJson(R"({"num_stages": 5, )" + args + "}", "/c");
  ASSERT_TRUE(staged.ok());
  EXPECT_EQ(staged.goldenCase.numStages, 5);
  EXPECT_EQ(parseCaseJson("{" + args + "}", "/c").goldenCase.numStages, 3);  // Triton's default
  const std::string fifo = ::testing::TempDir() + "/fifo_case";
  std::filesystem::create_directories(fifo);
  std::filesystem::remove(fifo + "/case.json");
  ASSERT_EQ(::mkfifo((fifo + "/case.json").c_str(), 0600), 0);
  EXPECT_NE(loadGoldenCase(fifo).error.find("not a regular file (a FIFO)"), std::string::npos);
  std::filesystem::remove_all(fifo);
}

// Issue 21: fields the scripts read (gpu_differs_by_design: gpu_backend/tests/device_check.sh) and the
// informational ones (notes, made_by) load as before: the runner ignores what it does not judge.
TEST(GoldenCase, FieldsForScriptsAreIgnored) {
  const std::string args = R"("args": [{"name": "x", "kind": "tensor", "dtype": "float32", "shape": [4], "input": "x.npy"}])";
  const CaseLoad load = parseCaseJson(R"({"notes": "n", "made_by": "m", "gpu_differs_by_design": "the GPU traps", )" +
                                          args + "}", "/c");
  ASSERT_TRUE(load.ok()) << load.error;
  EXPECT_EQ(load.goldenCase.arguments.size(), 1u);
  for (const char* name : {"engine/control/assert_first_failing_lane", "engine/shape/gather_index_out_of_range"})
    EXPECT_TRUE(loadGoldenCase(std::string(TILESIM_SOURCE_DIR) + "/conformance/" + name).ok()) << name;
}

}  // namespace
}  // namespace tilesim
