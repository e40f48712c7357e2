// Engine properties of tt.atomic_rmw and tt.atomic_cas that depend on the order programs run in, so no
// conformance case can pin them with one expected file: the old values a contended tt.atomic_rmw returns must form
// one serial order of the updates (and exch's final value is one of them), and of programs racing on one
// tt.atomic_cas lock exactly one wins. The order-independent outcomes (final values of contended int and float
// updates, float max/min by bit pattern, masked-off lanes, per-lane CAS) are conformance cases:
// conformance/engine/atomic/ (written by conformance/engine/make_cases.py).
#include <cmath>
#include <functional>
#include <optional>

#include "interpreter/tests/EngineSupport.h"

namespace tilesim::enginetest {
namespace {

// 4 programs x 8 lanes; every lane applies `op` with val[pid * 8 + lane] to acc[0] and stores what it got back.
std::string contendedKernel(const std::string& op, const std::string& element) {
  std::string ptr = "!tt.ptr<" + element + ">", tensor = "tensor<8x" + element + ">", ptrs = "tensor<8x" + ptr + ">";
  return R"(module {
  tt.func public @contended(%acc_ptr: )" + ptr + ", %val_ptr: " + ptr + ", %old_ptr: " + ptr +
         R"() attributes {noinline = false} {
    %c8_i32 = arith.constant 8 : i32
    %pid = tt.get_program_id x : i32
    %base = arith.muli %pid, %c8_i32 : i32
    %offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %idx = tt.splat %base : i32 -> tensor<8xi32>
    %idx_0 = arith.addi %idx, %offs : tensor<8xi32>
    %v = tt.splat %val_ptr : )" + ptr + " -> " + ptrs + R"(
    %v_0 = tt.addptr %v, %idx_0 : )" + ptrs + R"(, tensor<8xi32>
    %vals = tt.load %v_0 : )" + ptrs + R"(
    %a = tt.splat %acc_ptr : )" + ptr + " -> " + ptrs + R"(
    %old = tt.atomic_rmw )" + op + ", acq_rel, gpu, %a, %vals : (" + ptrs + ", " + tensor + ") -> " + tensor + R"(
    %o = tt.splat %old_ptr : )" + ptr + " -> " + ptrs + R"(
    %o_0 = tt.addptr %o, %idx_0 : )" + ptrs + R"(, tensor<8xi32>
    tt.store %o_0, %old : )" + ptrs + R"(
    tt.return
  }
}
)";
}

// Finds a serial order of the updates in which each one saw `olds[k]`; returns the final value, or nullopt when
// no order explains the old values. Updates that leave the value unchanged are placed first (they commute).
template <typename T>
std::optional<T> serialize(T init, const std::vector<T>& values, const std::vector<T>& olds,
                           const std::function<T(T, T)>& apply) {
  std::vector<bool> done(values.size(), false);
  T current = init;
  for (size_t placed = 0; placed < values.size(); ++placed) {
    std::optional<size_t> pick;
    for (size_t k = 0; k < values.size(); ++k) {
      if (done[k] || olds[k] != current) continue;
      if (!pick || apply(current, values[k]) == current) pick = k;
    }
    if (!pick) return std::nullopt;
    done[*pick] = true;
    current = apply(current, values[*pick]);
  }
  return current;
}

struct IntCase {
  const char* op;
  int32_t init;
  std::function<int32_t(int32_t, int32_t)> apply;
  std::function<int32_t(int)> value;  // value of update k
};

uint32_t asUnsigned(int32_t value) { return static_cast<uint32_t>(value); }

std::vector<IntCase> intCases() {
  auto mixed = [](int k) { return static_cast<int32_t>(static_cast<uint32_t>(k + 1) * 0x9E3779B9u); };
  return {
      {"add", 1000, [](int32_t a, int32_t b) { return a + b; }, [](int k) { return k + 1; }},
      {"and", -1, [](int32_t a, int32_t b) { return a & b; }, [](int k) { return static_cast<int32_t>(~(1u << k)); }},
      {"or", 0, [](int32_t a, int32_t b) { return a | b; }, [](int k) { return static_cast<int32_t>(1u << k); }},
      {"xor", 0x12345678, [](int32_t a, int32_t b) { return a ^ b; }, [](int k) { return static_cast<int32_t>(1u << k); }},
      {"max", -100, [](int32_t a, int32_t b) { return std::max(a, b); }, mixed},
      {"min", 100, [](int32_t a, int32_t b) { return std::min(a, b); }, mixed},
      {"umax", 5, [](int32_t a, int32_t b) { return static_cast<int32_t>(std::max(asUnsigned(a), asUnsigned(b))); }, mixed},
      {"umin", -5, [](int32_t a, int32_t b) { return static_cast<int32_t>(std::min(asUnsigned(a), asUnsigned(b))); }, mixed},
      {"exch", 7, [](int32_t, int32_t b) { return b; }, [](int k) { return 1000 + k; }},
  };
}

TEST(EngineAtomic, ContendedRmwReturnsOneSerialOrderOfOldValues) {
  for (const IntCase& c : intCases()) {
    SCOPED_TRACE(c.op);
    KernelRun run(contendedKernel(c.op, "i32"));
    std::vector<int32_t> values(32);
    for (int k = 0; k < 32; ++k) values[k] = c.value(k);
    run.buffer("acc_ptr", ScalarKind::I32, std::vector<int32_t>{c.init})
        .buffer("val_ptr", ScalarKind::I32, values)
        .buffer("old_ptr", ScalarKind::I32, std::vector<int32_t>(32, 0))
        .grid(4);
    LaunchResult result = run.run();
    EXPECT_TRUE(result.ok()) << describe(result);  // atomics are not races
    int32_t acc = run.values<int32_t>("acc_ptr")[0];
    std::optional<int32_t> final = serialize<int32_t>(c.init, values, run.values<int32_t>("old_ptr"), c.apply);
    ASSERT_TRUE(final) << "the returned old values are not a serial order of the updates";
    EXPECT_EQ(acc, *final);
    if (std::string(c.op) == "exch") {  // the last exchange in that order wins: one of the 32 values
      EXPECT_GE(acc, 1000);
      EXPECT_LT(acc, 1032);
    }
  }
}

TEST(EngineAtomic, ScalarCompareAndSwapHasOneWinner) {
  // 8 programs race to take a lock (0 -> pid + 1): exactly one sees 0, all others see the winner's value.
  KernelRun run(R"(module {
  tt.func public @lock(%lock_ptr: !tt.ptr<i32>, %old_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %pid = tt.get_program_id x : i32
    %0 = arith.addi %pid, %c1_i32 : i32
    %1 = tt.atomic_cas acq_rel, gpu, %lock_ptr, %c0_i32, %0 : (!tt.ptr<i32>, i32, i32) -> i32
    %2 = tt.addptr %old_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %2, %1 : !tt.ptr<i32>
    tt.return
  }
}
)");
  run.buffer("lock_ptr", ScalarKind::I32, std::vector<int32_t>{0})
      .buffer("old_ptr", ScalarKind::I32, std::vector<int32_t>(8, -1))
      .grid(8);
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  int32_t lock = run.values<int32_t>("lock_ptr")[0];
  ASSERT_GE(lock, 1);
  ASSERT_LE(lock, 8);
  std::vector<int32_t> old = run.values<int32_t>("old_ptr");
  for (int p = 0; p < 8; ++p) EXPECT_EQ(old[p], p + 1 == lock ? 0 : lock) << "program " << p;
}

}  // namespace
}  // namespace tilesim::enginetest

namespace tilesim::enginetest {
namespace {

// Exact profile (docs/semantics.md "Atomics"): an element's float adds get an arrival-order bound only when two
// unordered adds reached it. Every program adds v[pid] to acc[0] (4 programs: contended) and then twice to
// acc[1 + pid] (one program, two executions in program order: exact); acc[5] is never touched.
TEST(EngineAtomic, ExactProfileBoundsOnlyContendedFloatAdds) {
  KernelRun run(R"(module {
  tt.func public @adds(%acc: !tt.ptr<f32>, %v: !tt.ptr<f32>) attributes {noinline = false} {
    %pid = tt.get_program_id x : i32
    %c1 = arith.constant 1 : i32
    %vp = tt.addptr %v, %pid : !tt.ptr<f32>, i32
    %x = tt.load %vp : !tt.ptr<f32>
    %0 = tt.atomic_rmw fadd, relaxed, gpu, %acc, %x : (!tt.ptr<f32>, f32) -> f32
    %i = arith.addi %pid, %c1 : i32
    %own = tt.addptr %acc, %i : !tt.ptr<f32>, i32
    %1 = tt.atomic_rmw fadd, relaxed, gpu, %own, %x : (!tt.ptr<f32>, f32) -> f32
    %2 = tt.atomic_rmw fadd, relaxed, gpu, %own, %x : (!tt.ptr<f32>, f32) -> f32
    tt.return
  }
}
)");
  const float u = 0x1p-24f;
  run.buffer("acc", ScalarKind::F32, std::vector<float>(6, 0.0f))
      .buffer("v", ScalarKind::F32, std::vector<float>{1.0f, u, u, -1.0f})
      .grid(4);
  LaunchOptions options = testOptions();
  options.profile = FloatProfile::Exact;
  LaunchResult result = run.run(options);
  ASSERT_TRUE(result.ok()) << describe(result);
  const std::vector<double> bounds = run.errorBounds("acc");
  ASSERT_EQ(bounds.size(), 6u);
  // In the reverse order the four adds give 2^-23, in program order 0: the bound covers the difference.
  const float acc0 = run.values<float>("acc")[0];
  EXPECT_GE(bounds[0], std::fabs(0x1p-23f - acc0));
  EXPECT_GT(bounds[0], 0.0);
  for (int e = 1; e < 6; ++e) EXPECT_EQ(bounds[static_cast<size_t>(e)], 0.0) << "acc[" << e << "]";
}

}  // namespace
}  // namespace tilesim::enginetest
