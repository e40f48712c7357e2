"""tilesim as the interpreter a suite sees (TILESIM_INTERPRET=1), arguments bound by position (tuples, NamedTuples,
host tensor descriptors), waivers, KernelError's order, buffers by the memory views cover, per-thread options,
validated options and environment, the TTIR disk cache. Oracles: NumPy, and the documented behaviour of Triton's
own launcher (what a GPU launch binds, what it raises)."""
import gc
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import warnings
from typing import NamedTuple

import numpy as np
import pytest
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

import tilesim
from tilesim import _frontend, _memory

THREADS = int(os.environ.get("TILESIM_TEST_THREADS", "0"))
HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)


def run_python(code: str, env_extra: dict, cwd=None):
    """Runs `code` as a script file (kernels need a source file) in a fresh Python with `env_extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TILESIM_INTERPRET", "TRITON_INTERPRET"))}
    env["PYTHONPATH"] = os.pathsep.join([PACKAGE, HERE, env.get("PYTHONPATH", "")])
    env.update(env_extra)
    with tempfile.TemporaryDirectory() as directory:
        script = os.path.join(directory, "script.py")
        with open(script, "w") as file:
            file.write(textwrap.dedent(code))
        return subprocess.run([sys.executable, script], env=env, cwd=cwd, capture_output=True, text=True,
                              timeout=300)


# --- TILESIM_INTERPRET=1 -------------------------------------------------------------------------------------------
# The .pth hook is not installed in the test's interpreter, so the child imports tilesim first, as the hook does.
def dropin(code: str) -> str:
    return "import tilesim\n" + textwrap.dedent(code)


def test_dropin_routes_launches_to_tilesim_and_answers_is_interpreter():
    code = dropin("""
        import numpy as np, triton, triton.language as tl
        import os
        from triton.runtime.jit import JITFunction
        @triton.jit
        def oob(x_ptr, out_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs) + 1)
        assert os.environ["TRITON_INTERPRET"] == "1"   # what triton._internal_testing.is_interpreter() reads
        assert isinstance(oob, JITFunction), type(oob)
        assert isinstance(triton.language.standard.cdiv, JITFunction)
        x, out = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
        oob[(1,)](x, out, BLOCK=8)
        assert (out == x + 1).all()
        try:
            oob[(1,)](x[:4], out, BLOCK=8)   # reads 4 elements past x[:4]: Triton's interpreter reads on silently
        except tilesim.KernelError as error:
            print("KernelError", error.kind)
        """)
    # With and without TRITON_INTERPRET=1 (the suite's own switch): tilesim runs the launches either way.
    for extra in ({}, {"TRITON_INTERPRET": "1"}):
        result = run_python(code, {"TILESIM_INTERPRET": "1", **extra})
        assert result.returncode == 0, result.stderr
        assert "KernelError out-of-bounds" in result.stdout
        said = "Triton launches run on tilesim" in result.stderr
        assert said == bool(extra), result.stderr  # said once, and only when TRITON_INTERPRET=1 was set


def test_dropin_runs_kernels_whose_source_was_execd():
    # What Triton's test_core.patch_kernel does in interpreter mode: exec() the edited source of a kernel.
    code = dropin("""
        import numpy as np, triton, triton.language as tl
        source = '''
        @triton.jit
        def twice(x_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)
        '''
        namespace = {}
        exec(source.replace("* 2", "* 3"), globals(), namespace)
        # exec keeps its own rules: no __future__ feature of tilesim's leaks into the text (annotations stay
        # evaluated), and exec(text) alone runs in the caller's namespace.
        exec("def annotated(x: int): pass\\nassert annotated.__annotations__['x'] is int")
        exec("hook_local = 5")
        assert globals()["hook_local"] == 5
        x = np.arange(16, dtype=np.float32)
        namespace["twice"][(1,)](x, BLOCK=16)
        assert (x == np.arange(16) * 3).all(), x
        print("ran")
        """)
    result = run_python(code, {"TILESIM_INTERPRET": "1"})
    assert result.returncode == 0, result.stderr
    assert "ran" in result.stdout


def test_memoised_sources_and_cache_keys_follow_what_the_kernel_names():
    # _source_memo: kernels made again from the same text share their source lines and cache key; a changed
    # global, a callee whose source was replaced (Triton's _unsafe_update_src) or other text gives a new key.
    # Oracles: Triton's own cache_key computed with the memo bypassed, and the values the kernels store.
    code = dropin('''
        import numpy as np, triton, triton.language as tl
        from tilesim import _source_memo
        FACTOR = tl.constexpr(2)
        @triton.jit
        def helper(x):
            return x + 1
        template = """
        @triton.jit
        def kernel(x_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, helper(tl.load(x_ptr + offs)) * FACTOR)
        """
        def make(text=template):
            namespace = {}
            exec(text, globals(), namespace)
            return namespace["kernel"]
        def run(kernel):
            x = np.arange(8, dtype=np.float32)
            kernel[(1,)](x, BLOCK=8)
            return x.tolist()
        def unmemoised_key():
            fresh = make()
            return _source_memo.computed_cache_key(fresh)
        first, second = make(), make()
        assert first is not second and first.cache_key == second.cache_key == unmemoised_key()
        assert first.raw_src == second.raw_src and first.starting_line_number == second.starting_line_number
        assert run(first) == [(i + 1) * 2 for i in range(8)]
        FACTOR = tl.constexpr(3)
        third = make()
        assert third.cache_key != first.cache_key and third.cache_key == unmemoised_key()
        assert run(third) == [(i + 1) * 3 for i in range(8)]
        helper._unsafe_update_src(helper.src.replace("x + 1", "x + 5"))
        fourth = make()
        assert fourth.cache_key not in (first.cache_key, third.cache_key)
        assert fourth.cache_key == unmemoised_key()
        assert run(fourth) == [(i + 5) * 3 for i in range(8)]
        assert run(make(template.replace("* FACTOR", "- FACTOR"))) == [(i + 5) - 3 for i in range(8)]
        print("memo ok")
        ''')
    result = run_python(code, {"TILESIM_INTERPRET": "1"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "memo ok" in result.stdout


@pytest.mark.parametrize("name, value", [("TILESIM_THREADS", "two"), ("TILESIM_PROFILE", "fast"),
                                         ("TILESIM_INTERPRET", "yes"), ("TILESIM_WAIVE", "races")])
def test_bad_environment_is_one_line_and_exit_2(name, value):
    result = run_python("import tilesim\nprint('started')", {"TILESIM_INTERPRET": "1", name: value})
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "started" not in result.stdout
    assert "Traceback" not in result.stderr
    assert name in result.stderr and value in result.stderr


# --- arguments by position -------------------------------------------------------------------------------------------
@triton.jit
def tuple_kernel(out_ptr, pair, scale, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a, b = pair
    tl.store(out_ptr + offs, offs * a + b * scale)


@triton.jit
def double(x):
    return x * 2


class Config(NamedTuple):
    fn: tl.constexpr
    add: int
    ptr: object


@triton.jit
def named_tuple_kernel(x_ptr, cfg, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(cfg.ptr + offs, cfg.fn(tl.load(x_ptr + offs)) + cfg.add)


def test_tuple_and_named_tuple_arguments():
    out = np.zeros(16, np.int32)
    with tilesim.interpret(threads=THREADS):
        tuple_kernel[(1,)](out, (3, 5), 7, BLOCK=16)
    np.testing.assert_array_equal(out, np.arange(16) * 3 + 35)
    x, y = np.arange(16, dtype=np.int32), np.zeros(16, np.int32)
    with tilesim.interpret(threads=THREADS):
        named_tuple_kernel[(1,)](x, Config(double, 11, y), BLOCK=16)
    np.testing.assert_array_equal(y, np.arange(16) * 2 + 11)


def test_a_repeated_launch_leaves_no_reference_cycles():
    # Cycles are freed only by Python's cycle collector, whose full collections walk every object of the process
    # (tens of ms once torch is imported): a suite of small launches that each left a few spent more time in the
    # collector than in the interpreter (the argument walks were recursive closures, one cycle per launch).
    x, y = np.arange(16, dtype=np.int32), np.zeros(16, np.int32)
    config = Config(double, 11, y)
    with tilesim.interpret(threads=THREADS):
        named_tuple_kernel[(1,)](x, config, BLOCK=16)  # compiled before counting
        gc.collect()
        gc.disable()
        try:
            for _ in range(20):
                named_tuple_kernel[(1,)](x, config, BLOCK=16)
            assert gc.collect() == 0
        finally:
            gc.enable()
    np.testing.assert_array_equal(y, np.arange(16) * 2 + 11)


@triton.jit
def descriptor_kernel(desc, out_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    block = desc.load([tl.program_id(0) * BLOCK_M, 0])
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    tl.store(out_ptr + rows * BLOCK_N + cols, block + 1)
    desc.store([tl.program_id(0) * BLOCK_M, 0], block * 2)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.float32])
def test_host_tensor_descriptor(dtype):
    # 20 x 16 array, 8-row blocks: the last block is 4 rows past the end (zero padding; stores there dropped).
    source = (np.arange(320) % 100).astype(dtype).reshape(20, 16)
    original = source.copy()
    out = np.zeros((24, 16), dtype)
    # Triton's TensorDescriptor asks its base for data_ptr(): torch tensors have it; a numpy array goes through
    # the view tilesim makes of it (what a launch passes Triton's binder).
    desc = TensorDescriptor(_memory.view_of(source), list(source.shape), [16, 1], [8, 16])
    with tilesim.interpret(threads=THREADS):
        descriptor_kernel[(3,)](desc, out, BLOCK_M=8, BLOCK_N=16)
    padded = np.zeros((24, 16), dtype)
    padded[:20] = original
    np.testing.assert_array_equal(out, (padded + 1).astype(dtype))
    np.testing.assert_array_equal(source, (original * 2).astype(dtype))


@triton.jit
def bad_block_shape(ptr):
    desc = tl.make_tensor_descriptor(ptr, [128, 128], [128, 1], [8, 4])  # 4 x 2 bytes: under TMA's 16
    desc.store([0, 0], tl.zeros([8, 4], dtype=tl.int16))


def test_compile_error_is_also_what_tritons_interpreter_raises():
    from triton.compiler.errors import CompilationError
    from triton.runtime.errors import InterpreterError
    x = np.zeros((128, 128), np.int16)
    with tilesim.interpret(threads=THREADS), pytest.raises(CompilationError) as error:
        bad_block_shape[(1,)](x)
    assert isinstance(error.value, InterpreterError)
    assert "at least 16 bytes" in str(error.value.__cause__)


# --- waivers and KernelError's order ----------------------------------------------------------------------------------
@triton.jit
def flag_kernel(flag_ptr):
    tl.store(flag_ptr, 1)  # every program stores the same value to one address


@triton.jit
def program_id_kernel(out_ptr):
    tl.store(out_ptr, tl.program_id(0))  # every program stores a different value to one address


def test_same_value_race_is_its_own_kind_and_waivable():
    flag = np.zeros(1, np.int32)
    with tilesim.interpret(threads=THREADS), pytest.raises(tilesim.KernelError) as error:
        flag_kernel[(4,)](flag)
    assert error.value.kind == "same-value-race"
    out = np.zeros(1, np.int32)
    with tilesim.interpret(threads=THREADS), pytest.raises(tilesim.KernelError) as error:
        program_id_kernel[(4,)](out)
    assert error.value.kind == "race"
    with tilesim.interpret(threads=THREADS, waive={"same-value-race"}), pytest.warns(tilesim.KernelWarning):
        flag_kernel[(4,)](flag)
    assert flag[0] == 1
    with tilesim.interpret(threads=THREADS), tilesim.waive("same-value-race"), pytest.warns(tilesim.KernelWarning):
        flag_kernel[(4,)](flag)
    with tilesim.interpret(threads=THREADS, waive={"same-value-race"}), pytest.raises(tilesim.KernelError):
        program_id_kernel[(4,)](out)  # a waiver of one kind leaves the others


def test_waive_decorator_on_a_kernel():
    @tilesim.waive("race")
    @triton.jit
    def last_writer_wins(out_ptr):
        tl.store(out_ptr, tl.program_id(0))

    out = np.zeros(1, np.int32)
    with tilesim.interpret(threads=THREADS), pytest.warns(tilesim.KernelWarning):
        last_writer_wins[(4,)](out)
    with pytest.raises(ValueError, match="unknown report kind"):
        tilesim.waive("races")


@triton.jit
def read_then_write_oob(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)            # reads past x's end
    tl.store(out_ptr + offs + 4, x)      # writes past out's end


def test_kernel_error_leads_with_the_out_of_bounds_write():
    x, out = np.zeros(8, np.float32), np.zeros(8, np.float32)
    with tilesim.interpret(threads=THREADS), pytest.raises(tilesim.KernelError) as error:
        read_then_write_oob[(1,)](x[:4], out, BLOCK=8)
    lines = str(error.value).splitlines()
    assert "(tt.store)" in lines[0], lines[0]
    assert "tt.store" in lines[1] and "tt.load" in lines[2], lines
    assert error.value.reports[0]["op"] == "tt.store"


# --- memory, threads, options --------------------------------------------------------------------------------------
@triton.jit
def shift_copy(src_ptr, dst_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs))


def test_views_made_by_as_strided_or_frombuffer_are_one_buffer():
    base = np.arange(64, dtype=np.float32)
    src = np.lib.stride_tricks.as_strided(base, shape=(32,), strides=(4,))
    dst = np.lib.stride_tricks.as_strided(base[16:], shape=(32,), strides=(4,))
    with tilesim.interpret(threads=THREADS), pytest.raises(tilesim.KernelError) as error:
        shift_copy[(2,)](src, dst, BLOCK=16)  # program 1 reads what program 0 writes: a race on one memory
    assert error.value.kind == "race"
    raw = bytearray(256)
    a, b = np.frombuffer(raw, np.float32)[:32], np.frombuffer(raw, np.float32)[16:48]
    with tilesim.interpret(threads=THREADS), pytest.raises(tilesim.KernelError) as error:
        shift_copy[(2,)](a, b, BLOCK=16)
    assert error.value.kind == "race"


def test_interpret_blocks_are_per_thread():
    seen = {}
    barrier = threading.Barrier(2)

    def worker(name, **options):
        with tilesim.interpret(**options):
            barrier.wait()
            seen[name] = tilesim._interpret.current()
            barrier.wait()

    threads = [threading.Thread(target=worker, args=("a",), kwargs={"checks": False}),
               threading.Thread(target=worker, args=("b",), kwargs={"profile": "triton"})]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen["a"].checks is False and seen["a"].profile == "exact"
    assert seen["b"].checks is True and seen["b"].profile == "triton"


@pytest.mark.parametrize("options, message", [({"max_reports": 0}, "max_reports"), ({"threads": -1}, "threads"),
                                              ({"profile": "fast"}, "profile"), ({"checks": "yes"}, "checks")])
def test_bad_options_are_clear_errors(options, message):
    with pytest.raises((ValueError, TypeError), match=message):
        with tilesim.interpret(**options):
            pass


SCALE = tl.constexpr(2)


@triton.jit
def global_scale(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * SCALE)


def test_changed_global_constexpr_is_an_error_as_in_triton():
    global SCALE
    x = np.ones(8, np.float32)
    with tilesim.interpret(threads=THREADS):
        global_scale[(1,)](x, BLOCK=8)
        SCALE = tl.constexpr(3)
        try:
            with pytest.raises(RuntimeError, match="Global variable SCALE has changed"):
                global_scale[(1,)](x, BLOCK=8)
        finally:
            SCALE = tl.constexpr(2)
    assert (x == 2).all()


def test_ttir_disk_cache_serves_a_second_process(tmp_path):
    code = """
        import numpy as np, tilesim, kernels
        from tilesim import _frontend, _memory
        x = np.arange(64, dtype=np.float32); out = np.zeros_like(x)
        with tilesim.interpret():
            kernels.add_kernel[(1,)](x, x, out, 64, BLOCK_SIZE=64)
        assert (out == 2 * x).all()
        print(_frontend.stats)
        """
    env = {"TRITON_CACHE_DIR": str(tmp_path)}
    first = run_python(code, env)
    second = run_python(code, env)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert "'compiled': 1" in first.stdout and "'disk': 0" in first.stdout, first.stdout
    assert "'compiled': 0" in second.stdout and "'disk': 1" in second.stdout, second.stdout
    off = run_python(code, {**env, "TILESIM_TTIR_CACHE": "0"})
    assert "'compiled': 1" in off.stdout, off.stdout


# --- the pytest plugin -----------------------------------------------------------------------------------------------
PLUGIN_SUITE = '''
import numpy as np, pytest, triton, triton.language as tl, tilesim

@triton.jit
def flag_kernel(flag_ptr):
    tl.store(flag_ptr, 1)

def test_skipped_for_the_interpreter():
    pytest.skip("bfloat16 is not supported in the interpreter")
    flag = np.zeros(1, np.int32)
    with pytest.warns(tilesim.KernelWarning):
        flag_kernel[(2,)](flag)   # waived by the file
    assert flag[0] == 1

def test_skipped_for_another_reason():
    pytest.skip("needs a GPU")

@pytest.mark.tilesim_waive("same-value-race")
def test_marker():
    flag = np.zeros(1, np.int32)
    with pytest.warns(tilesim.KernelWarning):
        flag_kernel[(2,)](flag)
'''


def test_pytest_plugin_runs_interpreter_skips_and_reads_waivers(tmp_path):
    (tmp_path / "test_suite.py").write_text(PLUGIN_SUITE)
    (tmp_path / "waivers.txt").write_text("*test_skipped_for_the_interpreter  same-value-race  # every program "
                                          "stores the same flag\n")
    command = "import sys, pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', 'test_suite.py']))"
    env = {"TILESIM_INTERPRET": "1", "TILESIM_WAIVE_FILE": str(tmp_path / "waivers.txt")}
    plain = run_python(dropin(command), env, cwd=tmp_path)
    assert "1 passed, 2 skipped" in plain.stdout, plain.stdout + plain.stderr
    unskipped = run_python(dropin(command), {**env, "TILESIM_RUN_INTERPRETER_SKIPS": "1"}, cwd=tmp_path)
    assert "2 passed, 1 skipped" in unskipped.stdout, unskipped.stdout + unskipped.stderr
    (tmp_path / "waivers.txt").write_text("*test_marker  same-value-race\n")  # no reason
    bad = run_python(dropin(command), env, cwd=tmp_path)
    assert bad.returncode != 0 and "waivers.txt:1" in bad.stdout + bad.stderr


def test_a_second_recording_never_replaces_the_first(tmp_path):
    from tilesim import _cases
    first = _cases._new_case_directory(str(tmp_path), "add_kernel_1a2b_0")
    (tmp_path / "add_kernel_1a2b_0" / "case.json").write_text("{}")
    second = _cases._new_case_directory(str(tmp_path), "add_kernel_1a2b_0")
    assert first != second and second.endswith("add_kernel_1a2b_0.2")
    assert (tmp_path / "add_kernel_1a2b_0" / "case.json").read_text() == "{}"



def test_ctrl_c_stops_a_long_launch_and_leaves_the_arrays():
    code = """
        import os, signal, threading, time
        import numpy as np, triton, triton.language as tl, tilesim

        @triton.jit
        def spin(x_ptr, out_ptr, n):
            acc = 0.0
            for i in range(n):
                acc += tl.load(x_ptr)
            tl.store(out_ptr + tl.program_id(0), acc)

        x, out = np.ones(1, np.float32), np.zeros(64, np.float32)
        with tilesim.interpret():
            spin[(64,)](x, np.zeros(64, np.float32), 16)  # compiled first (16 specialises as 1 << 20 does)
        threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        start = time.monotonic()
        try:
            with tilesim.interpret():
                spin[(64,)](x, out, 1 << 20)   # 64 programs of about a quarter second each
            print("finished")
        except KeyboardInterrupt:
            print(f"interrupted after {time.monotonic() - start:.2f} s; untouched: {bool((out == 0).all())}")
        """
    result = run_python(code, {})
    assert "interrupted after" in result.stdout, result.stdout + result.stderr
    assert "untouched: True" in result.stdout
    seconds = float(result.stdout.split("after ")[1].split(" s")[0])
    assert seconds < 3.0, result.stdout
