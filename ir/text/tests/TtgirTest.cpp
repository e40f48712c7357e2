// TTGIR text (issue 23): every kernel.ttgir recorded under conformance/ parses, verifies, prints, re-parses to an
// equal module, and printing again gives identical text; the printed text is Triton's own (aliases, encodings,
// memory descriptors as Triton 3.6 prints them). Encodings are typed attributes: their parameters read back as
// numbers, equal encodings are one object, and the verifier checks them against the module's warps.
#include <gtest/gtest.h>

#include <filesystem>

#include "ir/text/Equality.h"
#include "ir/text/Parser.h"
#include "ir/text/Printer.h"
#include "ir/text/tests/ReadFile.h"
#include "ir/verify/Verifier.h"

namespace tilesim {
namespace {

std::vector<std::filesystem::path> recordedTtgirFiles() {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path root = std::filesystem::path(TILESIM_SOURCE_DIR) / "conformance";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root))
    if (entry.is_regular_file() && entry.path().filename() == "kernel.ttgir") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Triton printed two f32 constants of this kernel with 9 digits (-0.899999976); tilesim prints the shortest text
// that reads back to the same bits (-9.000000e-01), as it does for the same kernel's TTIR.
const char* kFloatSpellingDiffers = "liger_cross_entropy_f32_liger_cross_entropy_kernel_0";

TEST(Ttgir, EveryRecordedKernelParsesVerifiesAndRoundTrips) {
  int count = 0, sameAsTriton = 0, floatSpelling = 0;
  for (const std::filesystem::path& path : recordedTtgirFiles()) {
    SCOPED_TRACE(path.string());
    const std::string text = readFile(path);
    ParseResult first = parseModule(text, path.string());
    ASSERT_TRUE(first.module) << first.diagnostics.at(0).str();
    Diagnostics problems = verifyModule(*first.module);
    ASSERT_TRUE(problems.empty()) << problems[0].str();
    const std::string printed = printModule(*first.module);
    ParseResult second = parseModule(printed, path.string() + ".printed");
    ASSERT_TRUE(second.module) << second.diagnostics.at(0).str();
    std::string difference;
    EXPECT_TRUE(modulesEqual(*first.module, *second.module, &difference)) << difference;
    EXPECT_EQ(printModule(*second.module), printed) << "printing is not idempotent";
    if (path.parent_path().filename() == kFloatSpellingDiffers) ++floatSpelling;
    else EXPECT_EQ(printed, text) << "not printed as Triton prints it";
    sameAsTriton += printed == text ? 1 : 0;
    ++count;
  }
  std::cout << "[ Ttgir ] recorded kernel.ttgir files round-tripped: " << count << ", printed as Triton's text: "
            << sameAsTriton << "\n";
  EXPECT_GE(count, 88);
  EXPECT_EQ(floatSpelling, 1);
}

const char* kSmall = R"(#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%p: !tt.ptr<f32>) {
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %m = ttg.local_alloc : () -> !ttg.memdesc<2x16x16xf32, #shared, #smem, mutable>
    tt.return
  }
}
)";

TEST(Ttgir, EncodingsAreTypedAttributes) {
  ParseResult parsed = parseModule(kSmall, "small.ttgir");
  ASSERT_TRUE(parsed.module) << parsed.diagnostics.at(0).str();
  const Module& module = *parsed.module;
  ASSERT_EQ(module.encodingAliases.size(), 3u);
  Encoding blocked = module.encodingAliases[0].encoding;
  EXPECT_EQ(blocked.kind(), EncodingKind::Blocked);
  EXPECT_EQ(blocked.ints("sizePerThread"), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(blocked.ints("order"), (std::vector<int64_t>{1, 0}));
  const Block& body = module.functions[0]->region(0).front();
  Type range = body.operations[0]->result()->type;
  EXPECT_EQ(range.encoding().kind(), EncodingKind::Slice);
  EXPECT_EQ(range.encoding().parent(), blocked);  // interned: the alias and the nested reference are one object
  EXPECT_EQ(range.encoding().integer("dim", -1), 1);
  EXPECT_EQ(range.withoutEncoding(), Type::tensor({16}, Type::i32()));
  Type memory = body.operations[1]->result()->type;
  ASSERT_TRUE(memory.isMemDesc());
  EXPECT_TRUE(memory.isMutableMemory());
  EXPECT_EQ(memory.memDescTensor().withoutEncoding(), Type::tensor({2, 16, 16}, Type::f32()));
  EXPECT_EQ(memory.encoding().kind(), EncodingKind::SwizzledShared);
  EXPECT_EQ(memory.memorySpace().kind(), EncodingKind::SharedMemory);
  EXPECT_TRUE(verifyModule(module).empty());
  // Outside a printer, an encoding prints in full.
  EXPECT_EQ(range.str(), "tensor<16xi32, #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = "
                         "[4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>>");
}

TEST(Ttgir, VerifierChecksEncodingsAgainstTheModule) {
  std::string text = kSmall;
  text.replace(text.find("\"ttg.num-warps\" = 4"), 19, "\"ttg.num-warps\" = 8");
  ParseResult parsed = parseModule(text, "small.ttgir");
  ASSERT_TRUE(parsed.module);
  Diagnostics problems = verifyModule(*parsed.module);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("warpsPerCTA multiply to 4, the module has 8 warps"), std::string::npos) << problems[0].str();
}

// Every prefix of a pipelined Hopper kernel (TMA, mbarriers, wgmma) is one clean diagnostic, never a crash; a
// prefix cut inside an encoding, a memory descriptor type or a ttng op included.
// A rank-1 tensor descriptor: Triton's tma_lowering writes `[%box], [%dim], [], [%elementStride]` (no global
// stride), five operands; `tilesim fuzz --engine triton-passes` found that the op table wanted six.
TEST(Ttgir, TensormapCreateOfRankOne) {
  const std::string text = R"(#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 64}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%arg0: !tt.ptr<f64> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %c1_i32 = arith.constant 1 : i32
    %c32_i32 = arith.constant 32 : i32
    %c82_i32 = arith.constant 82 : i32
    %0 = ttg.global_scratch_alloc {alignment = 128 : i32, nbytes = 128 : i32} : !tt.ptr<i8>
    ttng.tensormap_create %0, %arg0, [%c32_i32], [%c82_i32], [], [%c1_i32] {elem_type = 9 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 0 : i32} : (!tt.ptr<i8>, !tt.ptr<f64>, i32, i32, i32) -> ()
    ttng.tensormap_fenceproxy_acquire %0 : !tt.ptr<i8>
    %1 = ttng.reinterpret_tensor_descriptor %0 : !tt.ptr<i8> to !tt.tensordesc<tensor<32xf64, #shared>>
    tt.return
  }
}
)";
  ParseResult parsed = parseModule(text, "rank1.ttgir");
  ASSERT_TRUE(parsed.module) << (parsed.diagnostics.empty() ? "" : parsed.diagnostics.front().str());
  EXPECT_TRUE(verifyModule(*parsed.module).empty());
  const std::string printed = printModule(*parsed.module);
  EXPECT_NE(printed.find("ttng.tensormap_create %0, %arg0, [%c32_i32], [%c82_i32], [], [%c1_i32]"), std::string::npos)
      << printed;
  ParseResult again = parseModule(printed, "printed.ttgir");
  ASSERT_TRUE(again.module);
  EXPECT_EQ(printModule(*again.module), printed);
}

TEST(Ttgir, EveryPrefixOfAPipelinedKernelFailsCleanly) {
  const std::filesystem::path path =
      std::filesystem::path(TILESIM_SOURCE_DIR) / "conformance/corpus10/matmul_hostdesc_persistent_f16/kernel.ttgir";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is not in this checkout";
  const std::string text = readFile(path);
  const size_t end = text.find("\n#loc1 = ");  // the body; the trailing loc table is plain TTIR text
  ASSERT_NE(end, std::string::npos);
  const size_t moduleStart = text.find("\nmodule ");  // before it, a prefix of whole alias lines is a valid empty file
  ASSERT_NE(moduleStart, std::string::npos);
  int prefixes = 0;
  for (size_t length = 1; length < end; length += 7, ++prefixes) {
    ParseResult parsed = parseModule(text.substr(0, length), "prefix.ttgir");
    if (length <= moduleStart && parsed.module) continue;
    ASSERT_TRUE(parsed.module == nullptr && parsed.diagnostics.size() == 1) << "prefix of " << length << " bytes";
  }
  EXPECT_GT(prefixes, 100);
}

}  // namespace
}  // namespace tilesim
