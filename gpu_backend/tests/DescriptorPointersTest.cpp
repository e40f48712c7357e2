// Descriptor accesses as pointer tensors (gpu_backend/DescriptorPointers.h), checked on the CPU with the
// interpreter as the oracle: every descriptor case of the conformance suite (Triton 3.6's own kernels among them:
// tutorial-style persistent matmuls with device and host descriptors, an attention forward with rank-3
// descriptors) is run twice by the interpreter, as written and rewritten, and the two runs must leave every buffer
// bit for bit the same and report the same findings. A host descriptor's rewritten launch passes its buffer, its
// padding and its shape and strides as plain arguments, as the GPU engine's parameters do.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/runner/GoldenCase.h"
#include "gpu_backend/DescriptorPointers.h"
#include "gpu_backend/Pipeline.h"
#include "interpreter/Interpreter.h"
#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"

namespace tilesim::gpu {
namespace {

struct Loaded {
  std::unique_ptr<Module> module;
  Launch launch;
};

Loaded loadCase(const std::string& relative) {
  const std::string directory = std::string(TILESIM_SOURCE_DIR) + "/" + relative;
  CaseLoad load = loadGoldenCase(directory);
  EXPECT_TRUE(load.ok()) << load.error;
  ParseResult parsed = parseModuleFile(directory + "/kernel.ttir");
  EXPECT_TRUE(parsed.module) << relative;
  Loaded loaded{std::move(parsed.module), {}};
  CaseLaunch caseLaunched = caseLaunch(load.goldenCase, *loaded.module);
  EXPECT_TRUE(caseLaunched.error.empty()) << caseLaunched.error;
  loaded.launch = std::move(caseLaunched.launch);
  return loaded;
}

// The launch of the rewritten kernel: each rewritten host descriptor's argument becomes a plain buffer at its
// parameter, then its padding, shape and strides as scalars at the parameters after it. Every argument binds by
// position (the rewritten kernel's parameter numbers).
Launch pointerLaunch(const Launch& original, const LaunchBinding& binding, const Module& rewritten) {
  Launch launch = original;
  launch.module = &rewritten;
  launch.kernel = rewritten.findFunction(original.kernel->name());
  launch.arguments.clear();
  size_t shift = 0;  // padding slots inserted before the parameter at hand
  std::vector<bool> taken(original.arguments.size(), false);
  for (size_t p = 0; p < binding.numParameters(); ++p) {
    const BoundParameter& bound = binding.parameter(p);
    const LaunchArgument& argument = original.arguments[bound.argument];
    const bool rewrittenHere = bound.kind == BoundParameter::Kind::TensorDescriptor &&
                               launch.kernel->argument(p + shift)->type.isPointer();
    if (rewrittenHere) {
      LaunchArgument buffer = argument;
      buffer.descShape.clear();
      buffer.descStrides.clear();
      buffer.descBlockShape.clear();
      buffer.parameter = static_cast<int>(p + shift);
      launch.arguments.push_back(buffer);
      LaunchArgument padding = LaunchArgument::integer(argument.name + "_padding", argument.descPadding);
      padding.parameter = static_cast<int>(p + shift + 1);
      launch.arguments.push_back(padding);
      const size_t rank = argument.descShape.size();
      for (size_t k = 0; k < 2 * rank; ++k) {
        LaunchArgument field = LaunchArgument::integer(argument.name + "_field" + std::to_string(k),
                                                       k < rank ? argument.descShape[k] : argument.descStrides[k - rank]);
        field.parameter = static_cast<int>(p + shift + 2 + k);
        launch.arguments.push_back(field);
      }
      ++shift;
      p += 2 * rank;
      taken[bound.argument] = true;
      continue;
    }
    if (bound.kind == BoundParameter::Kind::DescriptorField || taken[bound.argument]) continue;
    LaunchArgument copy = argument;
    copy.parameter = static_cast<int>(p + shift);
    launch.arguments.push_back(copy);
    taken[bound.argument] = true;
  }
  for (size_t a = 0; a < original.arguments.size(); ++a)  // aliases' targets and unused arguments, by name
    if (!taken[a]) launch.arguments.push_back(original.arguments[a]);
  return launch;
}

const LaunchArgument* named(const Launch& launch, const std::string& name) {
  for (const LaunchArgument& argument : launch.arguments)
    if (argument.name == name && argument.isBuffer()) return &argument;
  return nullptr;
}

// Runs `relative` as written and rewritten (when `expectRewrite`; otherwise checks nothing is rewritten).
void expectSameRuns(const std::string& relative, bool expectRewrite) {
  SCOPED_TRACE(relative);
  Loaded loaded = loadCase(relative);
  ASSERT_TRUE(loaded.module && loaded.launch.kernel);
  const LaunchBinding binding = bindLaunch(loaded.launch);
  ASSERT_TRUE(binding.ok());
  // The interpreter's buffers start 16-byte aligned at offset 0 of their storage: the placement offset decides.
  const std::vector<HostDescriptorFacts> facts = hostDescriptorFacts(
      loaded.launch, binding, [&](size_t argument) { return binding.placement(argument).offset; });
  std::unique_ptr<Module> rewritten = descriptorsAsPointers(*loaded.module, loaded.launch.kernel->name(), facts);
  ASSERT_EQ(rewritten != nullptr, expectRewrite);
  if (!rewritten) return;
  const Diagnostics problems = verifyModule(*rewritten);
  ASSERT_TRUE(problems.empty()) << problems.front().message;

  Launch asPointers = pointerLaunch(loaded.launch, binding, *rewritten);
  LaunchOptions options;
  options.threads = 1;
  LaunchOutcome original = runLaunch(loaded.launch, options);
  LaunchOutcome pointers = runLaunch(asPointers, options);
  ASSERT_TRUE(original.started()) << original.diagnostics.front().message;
  ASSERT_TRUE(pointers.started()) << pointers.diagnostics.front().message;
  EXPECT_EQ(original.result.totalByKind, pointers.result.totalByKind);
  for (const LaunchArgument& argument : loaded.launch.arguments) {
    if (!argument.isBuffer() || argument.isAlias()) continue;
    const LaunchArgument* other = named(asPointers, argument.name);
    ASSERT_NE(other, nullptr) << argument.name;
    EXPECT_TRUE(argument.bytes == other->bytes) << argument.name << " differs after the rewritten run";
  }
}

TEST(DescriptorPointers, TritonsPersistentMatmulWithDeviceDescriptors) {
  expectSameRuns("conformance/corpus10/matmul_desc_persistent_f16", true);
}
TEST(DescriptorPointers, TritonsPersistentMatmulWithHostDescriptors) {
  expectSameRuns("conformance/corpus10/matmul_hostdesc_persistent_f16", true);
}
TEST(DescriptorPointers, TritonsAttentionForwardWithRankThreeDescriptors) {
  expectSameRuns("conformance/corpus10/attn_fwd_desc_f16", true);
}
TEST(DescriptorPointers, PaddingZeroAndNaN) { expectSameRuns("conformance/engine/descriptor/desc_load_padding", true); }
TEST(DescriptorPointers, RankThree) { expectSameRuns("conformance/engine/descriptor/desc_rank3", true); }
TEST(DescriptorPointers, ShapePastTheBuffer) {
  expectSameRuns("conformance/engine/descriptor/desc_shape_past_buffer", true);
}
TEST(DescriptorPointers, StoresDropWhatIsOutside) {
  expectSameRuns("conformance/engine/descriptor/desc_store_drops", true);
}
TEST(DescriptorPointers, HostDescriptorArgument) {
  expectSameRuns("conformance/engine/descriptor/host_descriptor_argument", true);
}
// Gathers and scatters, and blocks of signed or unsigned elements, stay descriptor accesses.
TEST(DescriptorPointers, GathersStayDescriptorAccesses) {
  expectSameRuns("conformance/engine/descriptor/desc_gather_scatter", false);
}

// A kernel whose rewritten copy fails to compile where the kernel as written fails differently: the conformance
// case fp8e4b15_roundtrip (packed inline asm the GPU engine does not lower) with its load made a descriptor load
// of an aligned base. As pointers the load gives each thread consecutive elements and the asm fails on its
// constraints; as written, on its layout. The user is told about the kernel they wrote, at its own position.
TEST(DescriptorPointers, ACopyThatDoesNotCompileFallsBackToTheKernelAsWritten) {
  std::ifstream file(std::string(TILESIM_SOURCE_DIR) + "/conformance/engine/cast/fp8e4b15_roundtrip/kernel.ttir");
  std::stringstream text;
  text << file.rdbuf();
  std::string source = text.str();
  auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = source.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    source.replace(at, from.size(), to);
  };
  replace("%x_ptr: !tt.ptr<f16>", "%x_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}");
  replace("    %x_5 = tt.load %x_4 : tensor<1024x!tt.ptr<f16>>",
          "    %c1_i64 = arith.constant 1 : i64\n"
          "    %xd = tt.make_tensor_descriptor %x_ptr, [%c1024_i32], [%c1_i64] : <f16>, <tensor<1024xf16>>\n"
          "    %x_5 = tt.descriptor_load %xd[%offs_0] : !tt.tensordesc<tensor<1024xf16>> -> tensor<1024xf16>");
  ParseResult parsed = parseModule(source, "descriptor_asm.ttir");
  ASSERT_TRUE(parsed.module) << parsed.diagnostics.front().str();
  const Function kernel = *parsed.module->kernel();
  ASSERT_TRUE(descriptorsAsPointers(*parsed.module, kernel.name(), {}));  // the copy exists
  CompileOptions asWritten;
  asWritten.descriptorsAsPointers = false;
  const CompileResult expected = compileKernel(*parsed.module, kernel, asWritten);
  const CompileResult got = compileKernel(*parsed.module, kernel, CompileOptions{});
  ASSERT_EQ(expected.diagnostics.size(), 1u);
  ASSERT_EQ(got.diagnostics.size(), 1u);
  EXPECT_EQ(got.diagnostics.front().str(), expected.diagnostics.front().str());
  EXPECT_NE(got.diagnostics.front().message.find("packed_element 4 on a layout"), std::string::npos)
      << got.diagnostics.front().str();
  EXPECT_EQ(got.diagnostics.front().pos.line, 16);  // the asm's line in the edited text (two lines added above it)
}

}  // namespace
}  // namespace tilesim::gpu
