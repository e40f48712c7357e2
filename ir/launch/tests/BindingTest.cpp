// bindLaunch (ir/launch/Binding.h): the one parameter binding both engines use. By position or by name, kinds
// checked against the parameters' types, host tensor descriptors expanded into the parameters after them, and
// the arguments no parameter took listed. Expected values come from the contract in Binding.h and Triton 3.6's
// launcher (a descriptor, then its shape as i32, then its strides as i64), never from an engine.
#include <gtest/gtest.h>

#include "ir/launch/Binding.h"
#include "ir/text/Parser.h"

namespace tilesim {
namespace {

constexpr const char* kKernel = R"(
module {
  tt.func public @k(%x_ptr: !tt.ptr<f32>, %n: i32, %d: !tt.tensordesc<tensor<4x8xf32>>, %s0: i32, %s1: i32, %t0: i64, %t1: i64) {
    tt.return
  }
}
)";

class BindingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ParseResult parsed = parseModule(kKernel, "binding_test.ttir");
    for (const Diagnostic& diagnostic : parsed.diagnostics) ADD_FAILURE() << diagnostic.str();
    module_ = std::move(parsed.module);
    ASSERT_TRUE(module_);
    launch_.module = module_.get();
    launch_.kernel = module_->kernel();
  }

  static LaunchArgument descriptor(std::string name) {
    LaunchArgument d = LaunchArgument::buffer(std::move(name), ScalarKind::F32, std::vector<uint8_t>(4 * 64));
    d.descShape = {8, 8};
    d.descStrides = {8, 1};
    d.descPadding = 2;
    return d;
  }

  std::unique_ptr<Module> module_;
  Launch launch_;
};

TEST_F(BindingTest, BindsByNameAndExpandsTheDescriptor) {
  launch_.arguments = {descriptor("d"), LaunchArgument::integer("n", -3),
                       LaunchArgument::buffer("x_ptr", ScalarKind::F32, std::vector<uint8_t>(16)),
                       LaunchArgument::integer("spare", 1)};
  LaunchBinding binding = bindLaunch(launch_);
  ASSERT_TRUE(binding.ok()) << binding.diagnostics().front().message;
  ASSERT_EQ(binding.numParameters(), 7u);
  EXPECT_EQ(binding.parameter(0).kind, BoundParameter::Kind::Pointer);
  EXPECT_EQ(binding.parameter(0).argument, 2u);
  EXPECT_EQ(binding.parameter(1).kind, BoundParameter::Kind::Scalar);
  EXPECT_EQ(binding.parameter(1).bits, static_cast<uint64_t>(int64_t{-3}));
  EXPECT_EQ(binding.parameter(2).kind, BoundParameter::Kind::TensorDescriptor);
  EXPECT_EQ(binding.parameter(2).argument, 0u);
  const uint64_t expanded[] = {8, 8, 8, 1};  // shape, then strides
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(binding.parameter(3 + k).kind, BoundParameter::Kind::DescriptorField);
    EXPECT_EQ(binding.parameter(3 + k).argument, 0u);
    EXPECT_EQ(binding.parameter(3 + k).bits, expanded[k]);
  }
  EXPECT_EQ(binding.placement(2).storage, 2u);
  EXPECT_EQ(binding.unusedArguments(), std::vector<std::string>{"spare"});
}

TEST_F(BindingTest, PositionWinsOverName) {
  LaunchArgument n = LaunchArgument::integer("renamed_by_triton", 7);
  n.parameter = 1;
  LaunchArgument wrongName = LaunchArgument::integer("n", 99);  // a name match, but the position is taken
  launch_.arguments = {LaunchArgument::buffer("x_ptr", ScalarKind::F32, std::vector<uint8_t>(16)), n, descriptor("d"),
                       wrongName};
  LaunchBinding binding = bindLaunch(launch_);
  ASSERT_TRUE(binding.ok()) << binding.diagnostics().front().message;
  EXPECT_EQ(binding.parameter(1).argument, 1u);
  EXPECT_EQ(binding.parameter(1).bits, 7u);
  EXPECT_EQ(binding.unusedArguments(), std::vector<std::string>{"n"});
}

TEST_F(BindingTest, DiagnosesKindsRangesAndMissingArguments) {
  auto firstProblem = [&](std::vector<LaunchArgument> arguments) {
    launch_.arguments = std::move(arguments);
    LaunchBinding binding = bindLaunch(launch_);
    EXPECT_FALSE(binding.ok());
    EXPECT_EQ(binding.numParameters(), 0u);
    return binding.ok() ? std::string() : binding.diagnostics().front().message;
  };
  const LaunchArgument x = LaunchArgument::buffer("x_ptr", ScalarKind::F32, std::vector<uint8_t>(16));
  EXPECT_EQ(firstProblem({x, LaunchArgument::integer("n", 1)}),
            "missing argument for parameter %d (!tt.tensordesc<tensor<4x8xf32>>)");
  EXPECT_EQ(firstProblem({LaunchArgument::integer("x_ptr", 0), LaunchArgument::integer("n", 1), descriptor("d")}),
            "argument 'x_ptr' is a scalar but parameter %x_ptr is a pointer (!tt.ptr<f32>)");
  EXPECT_EQ(firstProblem({x, LaunchArgument::integer("n", int64_t{1} << 40), descriptor("d")}),
            "argument 'n' = 1099511627776 does not fit parameter %n of type i32");
  EXPECT_EQ(firstProblem({x, LaunchArgument::floating("n", 1.5), descriptor("d")}),
            "argument 'n' is a float but parameter %n is i32");
  EXPECT_EQ(firstProblem({x, LaunchArgument::integer("n", 1),
                          LaunchArgument::buffer("d", ScalarKind::F32, std::vector<uint8_t>(16))}),
            "argument 'd' is not a tensor descriptor but parameter %d is !tt.tensordesc<tensor<4x8xf32>>");
  launch_.kernel.reset();
  EXPECT_EQ(firstProblem({}), "no kernel to launch");
}

}  // namespace
}  // namespace tilesim
