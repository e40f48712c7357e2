// Engine semantics of tt.atomic_rmw and tt.atomic_cas (SEMANTICS.md §3.4): every lane is one atomic, all lanes of
// all programs may hit one address, the returned old values must form one serial order of the updates, float
// max/min order by bit pattern, masked-off lanes return 0 and touch nothing, and atomics are never races.
#include <functional>
#include <limits>
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

TEST(EngineAtomic, IntegerRmwOnOneAddressFromManyLanesAndPrograms) {
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
    if (std::string(c.op) != "exch") {  // order-independent: the fold of all values
      int32_t fold = c.init;
      for (int32_t v : values) fold = c.apply(fold, v);
      EXPECT_EQ(acc, fold);
    } else {
      EXPECT_GE(acc, 1000);
      EXPECT_LT(acc, 1032);
    }
  }
}

TEST(EngineAtomic, FloatAddOfIntegerValuedFloatsIsExact) {
  KernelRun run(contendedKernel("fadd", "f32"));
  std::vector<float> values(32);
  for (int k = 0; k < 32; ++k) values[k] = static_cast<float>(k + 1);
  run.buffer("acc_ptr", ScalarKind::F32, std::vector<float>{0.5f})
      .buffer("val_ptr", ScalarKind::F32, values)
      .buffer("old_ptr", ScalarKind::F32, std::vector<float>(32, -1.0f))
      .grid(4);
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  EXPECT_EQ(run.values<float>("acc_ptr")[0], 528.5f);
  std::optional<float> final =
      serialize<float>(0.5f, values, run.values<float>("old_ptr"), [](float a, float b) { return a + b; });
  ASSERT_TRUE(final);
  EXPECT_EQ(*final, 528.5f);
}

// One lane per address: acc[k] = op(acc[k], val[k]); old[k] gets acc[k]'s previous value. With `masked`,
// lanes k >= n are masked off, and acc_ptr holds only n elements (their addresses are past its end).
std::string perLaneKernel(const std::string& op, const std::string& element, bool masked) {
  std::string ptr = "!tt.ptr<" + element + ">", tensor = "tensor<8x" + element + ">", ptrs = "tensor<8x" + ptr + ">";
  std::string text = R"(module {
  tt.func public @per_lane(%acc_ptr: )" + ptr + ", %val_ptr: " + ptr + ", %old_ptr: " + ptr +
                     R"(, %n: i32) attributes {noinline = false} {
    %offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %m = tt.splat %n : i32 -> tensor<8xi32>
    %mask = arith.cmpi slt, %offs, %m : tensor<8xi32>
    %v = tt.splat %val_ptr : )" + ptr + " -> " + ptrs + R"(
    %v_0 = tt.addptr %v, %offs : )" + ptrs + R"(, tensor<8xi32>
    %vals = tt.load %v_0 : )" + ptrs + R"(
    %a = tt.splat %acc_ptr : )" + ptr + " -> " + ptrs + R"(
    %a_0 = tt.addptr %a, %offs : )" + ptrs + R"(, tensor<8xi32>
)";
  if (masked)
    text += "    %old = tt.atomic_rmw " + op + ", acq_rel, gpu, %a_0, %vals, %mask : (" + ptrs + ", " + tensor +
            ", tensor<8xi1>) -> " + tensor + "\n";
  else
    text += "    %old = tt.atomic_rmw " + op + ", relaxed, gpu, %a_0, %vals : (" + ptrs + ", " + tensor + ") -> " + tensor + "\n";
  return text + R"(    %o = tt.splat %old_ptr : )" + ptr + " -> " + ptrs + R"(
    %o_0 = tt.addptr %o, %offs : )" + ptrs + R"(, tensor<8xi32>
    tt.store %o_0, %old : )" + ptrs + R"(
    tt.return
  }
}
)";
}

TEST(EngineAtomic, FloatMaxMinOrderByBitPattern) {
  const float nan = floatFromBits(0x7FC00000u), negativeNaN = floatFromBits(0xFFC00000u);
  struct Case { float memory, value; uint32_t maxBits, minBits; };
  // SEMANTICS §3.4: signed-int max on non-negative values, unsigned-int min on negative ones, so -0.0 < +0.0,
  // a positive NaN beats everything and a negative NaN loses (and mirrored for min).
  const std::vector<Case> cases = {
      {-0.0f, 0.0f, floatBits(0.0f), floatBits(-0.0f)},
      {0.0f, -0.0f, floatBits(0.0f), floatBits(-0.0f)},
      {-1.0f, -3.0f, floatBits(-1.0f), floatBits(-3.0f)},
      {-3.0f, -1.0f, floatBits(-1.0f), floatBits(-3.0f)},
      {-2.0f, 5.0f, floatBits(5.0f), floatBits(-2.0f)},
      {5.0f, -2.0f, floatBits(5.0f), floatBits(-2.0f)},
      {3.0f, nan, 0x7FC00000u, floatBits(3.0f)},
      {3.0f, negativeNaN, floatBits(3.0f), 0xFFC00000u},
  };
  for (const char* op : {"max", "min"}) {
    SCOPED_TRACE(op);
    std::vector<float> memory, values;
    for (const Case& c : cases) {
      memory.push_back(c.memory);
      values.push_back(c.value);
    }
    KernelRun run(perLaneKernel(op, "f32", false));
    run.buffer("acc_ptr", ScalarKind::F32, memory)
        .buffer("val_ptr", ScalarKind::F32, values)
        .buffer("old_ptr", ScalarKind::F32, std::vector<float>(8, 0.0f))
        .integer("n", 8);
    LaunchResult result = run.run();
    EXPECT_TRUE(result.ok()) << describe(result);
    std::vector<uint32_t> acc = run.values<uint32_t>("acc_ptr"), old = run.values<uint32_t>("old_ptr");
    for (size_t k = 0; k < cases.size(); ++k) {
      EXPECT_EQ(acc[k], std::string(op) == "max" ? cases[k].maxBits : cases[k].minBits) << "case " << k;
      EXPECT_EQ(old[k], floatBits(cases[k].memory)) << "case " << k;
    }
  }
}

TEST(EngineAtomic, MaskedOffLanesReturnZeroAndDoNotTouchMemory) {
  KernelRun run(perLaneKernel("add", "i32", true));
  run.buffer("acc_ptr", ScalarKind::I32, std::vector<int32_t>{0, 10, 20, 30, 40})
      .buffer("val_ptr", ScalarKind::I32, std::vector<int32_t>(8, 1))
      .buffer("old_ptr", ScalarKind::I32, std::vector<int32_t>(8, 77))
      .integer("n", 5);
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);  // masked-off addresses past the end are never touched
  EXPECT_EQ(run.values<int32_t>("acc_ptr"), (std::vector<int32_t>{1, 11, 21, 31, 41}));
  EXPECT_EQ(run.values<int32_t>("old_ptr"), (std::vector<int32_t>{0, 10, 20, 30, 40, 0, 0, 0}));
}

TEST(EngineAtomic, CompareAndSwapPerLane) {
  // mem[k] = k; cmp matches on even lanes only; val = 50 + k. Returns the old value on every lane.
  KernelRun run(R"(module {
  tt.func public @cas(%mem_ptr: !tt.ptr<i32>, %cmp_ptr: !tt.ptr<i32>, %old_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %cst = arith.constant dense<50> : tensor<8xi32>
    %offs = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %c = tt.splat %cmp_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %c_0 = tt.addptr %c, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    %cmp = tt.load %c_0 : tensor<8x!tt.ptr<i32>>
    %val = arith.addi %offs, %cst : tensor<8xi32>
    %m = tt.splat %mem_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %m_0 = tt.addptr %m, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    %old = tt.atomic_cas acq_rel, gpu, %m_0, %cmp, %val : (tensor<8x!tt.ptr<i32>>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %o = tt.splat %old_ptr : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
    %o_0 = tt.addptr %o, %offs : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
    tt.store %o_0, %old : tensor<8x!tt.ptr<i32>>
    tt.return
  }
}
)");
  std::vector<int32_t> memory(8), compare(8);
  for (int k = 0; k < 8; ++k) {
    memory[k] = k;
    compare[k] = k % 2 == 0 ? k : k + 100;
  }
  run.buffer("mem_ptr", ScalarKind::I32, memory).buffer("cmp_ptr", ScalarKind::I32, compare)
      .buffer("old_ptr", ScalarKind::I32, std::vector<int32_t>(8, -1));
  LaunchResult result = run.run();
  EXPECT_TRUE(result.ok()) << describe(result);
  std::vector<int32_t> expected(8);
  for (int k = 0; k < 8; ++k) expected[k] = k % 2 == 0 ? 50 + k : k;
  EXPECT_EQ(run.values<int32_t>("mem_ptr"), expected);
  EXPECT_EQ(run.values<int32_t>("old_ptr"), memory);
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
