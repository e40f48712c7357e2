"""Engine cases, family `control`: scf.while, scf.for, scf.if, tt.call, tt.assert."""
import numpy as np

from engine_case import Case, constants, module


def collatz_prologue(entry):
    """The start of both Collatz kernels (scf.while and cf blocks): the constants 0..3 and %n = x[pid]."""
    return """
module {
  tt.func public @""" + entry + """\
(%x_ptr: !tt.ptr<i32>, %y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
""" + constants("i32", 0, 1, 2, 3) + """\
    %pid = tt.get_program_id x : i32
    %0 = tt.addptr %x_ptr, %pid : !tt.ptr<i32>, i32
    %n = tt.load %0 : !tt.ptr<i32>
"""


def collatz_step(indent):
    """One Collatz step of both kernels: %n_1 = n / 2 or 3 n + 1, %count_2 = count + 1 (lines start with `indent`)."""
    return "".join(indent + line + "\n" for line in """\
%2 = arith.remsi %n_0, %c2_i32 : i32
%3 = arith.cmpi eq, %2, %c0_i32 : i32
%4 = arith.divsi %n_0, %c2_i32 : i32
%5 = arith.muli %n_0, %c3_i32 : i32
%6 = arith.addi %5, %c1_i32 : i32
%n_1 = arith.select %3, %4, %6 : i32
%count_2 = arith.addi %count, %c1_i32 : i32
""".splitlines())


def control_cases():
    x = np.array([1, 2, 3, 6, 7, 27], np.int32)
    steps = []
    for n in x.tolist():
        count = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            count += 1
        steps.append(count)
    assert steps[5] == 111
    Case("control", "while_collatz", "collatz", module(collatz_prologue("collatz") + """\
    %steps:2 = scf.while (%n_0 = %n, %count = %c0_i32) : (i32, i32) -> (i32, i32) {
      %1 = arith.cmpi ne, %n_0, %c1_i32 : i32
      scf.condition(%1) %n_0, %count : i32, i32
    } do {
    ^bb0(%n_0: i32, %count: i32):
""" + collatz_step("      ") + """\
      scf.yield %n_1, %count_2 : i32, i32
    }
    %7 = tt.addptr %y_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %7, %steps#1 : !tt.ptr<i32>
    tt.return
  }
}
"""), "scf.while with a data-dependent trip count: the Collatz steps of x[pid] until it reaches 1, one program "
          "per input (27 takes 111 steps).", grid=(6,)) \
        .tensor("x_ptr", "int32", x).tensor("y_ptr", "int32", np.full(6, -1), steps)

    Case("control", "cf_collatz_block_arguments", "collatz_cf", module(collatz_prologue("collatz_cf") + """\
    cf.br ^bb1(%n, %c0_i32 : i32, i32)
  ^bb1(%n_0: i32, %count: i32):  // 2 preds: ^bb0, ^bb2
    %1 = arith.cmpi ne, %n_0, %c1_i32 : i32
    cf.cond_br %1, ^bb2, ^bb3
  ^bb2:  // pred: ^bb1
""" + collatz_step("    ") + """\
    cf.br ^bb1(%n_1, %count_2 : i32, i32)
  ^bb3:  // pred: ^bb1
    %7 = tt.addptr %y_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %7, %count : !tt.ptr<i32>
    tt.return
  }
}
"""), "Unstructured control flow: the Collatz loop of while_collatz written with cf.br / cf.cond_br and block "
          "arguments (a back edge ^bb2 -> ^bb1), one program per input (27 takes 111 steps).", grid=(6,)) \
        .tensor("x_ptr", "int32", x).tensor("y_ptr", "int32", np.full(6, -1), steps)

    n_valid = 5
    early = np.full(8, -1, np.int32)
    early[:n_valid] = np.arange(n_valid, dtype=np.int32) * 10
    Case("control", "cf_early_return", "early_return", module("""
module {
  tt.func public @early_return(%y_ptr: !tt.ptr<i32>, %n: i32) attributes {noinline = false} {
    %c10_i32 = arith.constant 10 : i32
    %pid = tt.get_program_id x : i32
    %0 = arith.cmpi sge, %pid, %n : i32
    cf.cond_br %0, ^bb1, ^bb2
  ^bb1:  // pred: ^bb0
    tt.return
  ^bb2:  // pred: ^bb0
    %1 = arith.muli %pid, %c10_i32 : i32
    %2 = tt.addptr %y_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %2, %1 : !tt.ptr<i32>
    tt.return
  }
}
"""), "A `return` inside an `if` (Triton emits cf.cond_br to two returning blocks): programs pid >= n return "
          "before storing, so y[5..7] keep their -1.", grid=(8,)) \
        .tensor("y_ptr", "int32", np.full(8, -1), early).scalar("n", n_valid)

    acc = count = total = 0
    for i in range(2, 20, 3):
        acc, count, total = acc * 2 + i, count + 1, total + i
    assert count == 6
    Case("control", "for_iter_args_step_three", "loop", module("""
module {
  tt.func public @loop(%y_ptr: !tt.ptr<i32>, %lb: i32, %ub: i32) attributes {noinline = false} {
""" + constants("i32", 0, 1, 2, 3) + """\
    %offs = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %acc:3 = scf.for %i = %lb to %ub step %c3_i32 iter_args(%acc_0 = %c0_i32, %count = %c0_i32, %lanes = %offs) -> (i32, i32, tensor<4xi32>)  : i32 {
      %0 = arith.muli %acc_0, %c2_i32 : i32
      %acc_1 = arith.addi %0, %i : i32
      %count_2 = arith.addi %count, %c1_i32 : i32
      %1 = tt.splat %i : i32 -> tensor<4xi32>
      %lanes_3 = arith.addi %lanes, %1 : tensor<4xi32>
      scf.yield %acc_1, %count_2, %lanes_3 : i32, i32, tensor<4xi32>
    }
    tt.store %y_ptr, %acc#0 : !tt.ptr<i32>
    %2 = tt.addptr %y_ptr, %c1_i32 : !tt.ptr<i32>, i32
    tt.store %2, %acc#1 : !tt.ptr<i32>
    %3 = tt.addptr %y_ptr, %c2_i32 : !tt.ptr<i32>, i32
    %4 = tt.splat %3 : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %5 = tt.addptr %4, %offs : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    tt.store %5, %acc#2 : tensor<4x!tt.ptr<i32>>
    tt.return
  }
}
"""), "scf.for %i = 2 to 20 step 3 (6 trips) with three iter_args: acc = acc * 2 + i, a trip count, and a "
          "tensor<4xi32> that adds i to every lane of 0..3.") \
        .tensor("y_ptr", "int32", np.full(6, -1), [acc, count, total, total + 1, total + 2, total + 3]) \
        .scalar("lb", 2).scalar("ub", 20)

    Case("control", "nested_if_with_results", "nested", module("""
module {
  tt.func public @nested(%y_ptr: !tt.ptr<i32>) attributes {noinline = false} {
""" + constants("i32", 0, 2, 100, 200, 400) + """\
    %pid = tt.get_program_id x : i32
    %0 = arith.cmpi slt, %pid, %c2_i32 : i32
    %1 = scf.if %0 -> (i32) {
      %2 = arith.cmpi eq, %pid, %c0_i32 : i32
      %3 = scf.if %2 -> (i32) {
        scf.yield %c100_i32 : i32
      } else {
        scf.yield %c200_i32 : i32
      }
      scf.yield %3 : i32
    } else {
      %4 = arith.cmpi eq, %pid, %c2_i32 : i32
      %5 = scf.if %4 -> (i32) {
        %6 = arith.muli %pid, %c100_i32 : i32
        %7 = arith.addi %6, %c100_i32 : i32
        scf.yield %7 : i32
      } else {
        scf.yield %c400_i32 : i32
      }
      scf.yield %5 : i32
    }
    %8 = tt.addptr %y_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %8, %1 : !tt.ptr<i32>
    tt.return
  }
}
"""), "Nested scf.if with results, one branch path per program: pid 0 -> 100, 1 -> 200, 2 -> 2 * 100 + 100, "
          "3 -> 400.", grid=(4,)) \
        .tensor("y_ptr", "int32", np.full(4, -1), [100, 200, 300, 400])

    x = np.array([0.5, 1.5, -2.0, 0.25], np.float32)
    Case("control", "call_noinline_helper", "caller", module("""
module {
  tt.func public @caller(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %cst = arith.constant 1.000000e+00 : f32
    %pid = tt.get_program_id x : i32
    %0 = tt.addptr %x_ptr, %pid : !tt.ptr<f32>, i32
    %1 = tt.load %0 : !tt.ptr<f32>
    %2 = tt.call @helper(%pid, %1) : (i32, f32) -> f32
    %3 = arith.addf %2, %cst : f32
    %4 = tt.addptr %y_ptr, %pid : !tt.ptr<f32>, i32
    tt.store %4, %3 : !tt.ptr<f32>
    tt.return
  }
  tt.func private @helper(%i: i32, %s: f32) -> f32 attributes {noinline = true} {
    %0 = arith.sitofp %i : i32 to f32
    %1 = arith.mulf %0, %s : f32
    tt.return %1 : f32
  }
}
"""), "tt.call of a noinline helper: y[pid] = helper(pid, x[pid]) + 1 with helper(i, s) = float(i) * s "
          "(every product and sum is exact in f32).", grid=(4,)) \
        .tensor("x_ptr", "float32", x) \
        .tensor("y_ptr", "float32", np.zeros(4), np.arange(4, dtype=np.float32) * x + np.float32(1))

    x = np.ones(32, np.int32)
    x[16 + 5] = 12  # program 1, lanes 5 and 9 fail
    x[16 + 9] = 10
    Case("control", "assert_first_failing_lane", "check", module("""
module {
  tt.func public @check(%x_ptr: !tt.ptr<i32>) attributes {noinline = false} {
    %c16_i32 = arith.constant 16 : i32
    %cst = arith.constant dense<10> : tensor<16xi32>
    %pid = tt.get_program_id x : i32
    %0 = arith.muli %pid, %c16_i32 : i32
    %1 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %2 = tt.splat %0 : i32 -> tensor<16xi32>
    %3 = arith.addi %2, %1 : tensor<16xi32>
    %4 = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
    %5 = tt.addptr %4, %3 : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
    %6 = tt.load %5 : tensor<16x!tt.ptr<i32>>
    %7 = arith.cmpi slt, %6, %cst : tensor<16xi32>
    tt.assert %7, "x must stay below 10" : tensor<16xi1>
    tt.return
  }
}
"""), "tt.assert fails in program 1 at lanes 5 and 9 (x = 12 and 10, not below 10): exactly one assert "
          "report, at the first failing lane (5).", grid=(2,)) \
        .tensor("x_ptr", "int32", x) \
        .expect_report("assert", op="tt.assert", program=[1, 0, 0], lane=[5]).expect_counts({"assert": 1}) \
        .differs_on_gpu_by_design("the kernel's tt.assert fails: the GPU traps (the launch fails), where the "
                                  "interpreter reports the first failing lane and goes on (docs/gpu-backend.md)")

    sizes = np.array([128 * 4 - 128 * pid for pid in range(4)], np.int32)  # n - pid * 128 with n = 512
    Case("control", "assume_violated", "assume_k", module("""
module {
  tt.func public @assume_k(%out_ptr: !tt.ptr<i32>, %n: i32) attributes {noinline = false} {
""" + constants("i32", 256, 128) + """\
    %pid = tt.get_program_id x : i32
    %size = arith.muli %pid, %c128_i32 : i32
    %size_0 = arith.subi %n, %size : i32
    %0 = arith.cmpi sge, %size_0, %c256_i32 : i32
    llvm.intr.assume %0 : i1
    %1 = tt.addptr %out_ptr, %pid : !tt.ptr<i32>, i32
    tt.store %1, %size_0 : !tt.ptr<i32>
    tt.return
  }
}
"""), "llvm.intr.assume (what tl.assume(size >= 256) emits) with n = 512 over 4 programs: size = n - 128 pid is "
          "512, 384, 256, 128, so the promise is false in program 3 only. LLVM may compile as if it held, so the "
          "interpreter reports it (kind assume, one report) and goes on: every program still stores its size.",
         grid=(4,)) \
        .tensor("out_ptr", "int32", np.zeros(4, np.int32), sizes).scalar("n", 512) \
        .expect_report("assume", op="llvm.intr.assume", program=[3, 0, 0]).expect_counts({"assume": 1})
