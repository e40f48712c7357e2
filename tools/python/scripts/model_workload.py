"""A real multi-kernel GPU workload for `python -m tilesim.capture` (needs CUDA, torch and Triton 3.6): two
training steps (forward and backward) of a small transformer block under `torch.compile` — layer norm,
softmax attention, GELU MLP, residuals, cross-entropy — plus hand-written @triton.jit kernels: the users'-style
kernels of tests/kernels.py (vector add with a tail, fused softmax over a strided view, layer norm forward and
backward with atomics, the autotuned K-loop matmul, online-softmax attention, bf16/fp8 copies, two views of one
storage), a fused bias+GELU kernel of our own, and that kernel called from inside a torch.compile'd function
(Inductor launches user kernels through its own launcher too).

    python -m tilesim.capture -o cases/ -- python tools/python/scripts/model_workload.py
    tilesim conformance cases/          # on any machine

Every result is checked against eager PyTorch on the GPU, so a recorded case is the output of a kernel that
did its job; a disagreement is printed and counted, the run goes on, and the exit status is 1.
"""
import math
import os
import sys
import time
from types import SimpleNamespace

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import capture_workload  # noqa: E402  (it puts tests/ on the path for kernels)
import kernels  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
start = time.time()


def say(text):
    print(f"model_workload [{time.time() - start:6.1f} s]: {text}", flush=True)


disagreements = []


def agree(what, actual, expected, **tolerance):
    """Checks a result against torch; a disagreement is printed and counted, and the workload goes on (the
    recorder keeps recording)."""
    try:
        torch.testing.assert_close(actual, expected, **tolerance)
    except AssertionError as error:
        disagreements.append(what)
        say(f"DISAGREES: {what}: {str(error).splitlines()[0]}")


# --- 1. a transformer block, forward and backward, under torch.compile ------------------------------------------
class Block(torch.nn.Module):
    def __init__(self, dim=64, heads=4, hidden=256, vocab=128):
        super().__init__()
        self.heads = heads
        self.embed = torch.nn.Embedding(vocab, dim)
        self.ln1 = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.ln2 = torch.nn.LayerNorm(dim)
        self.fc1 = torch.nn.Linear(dim, hidden)
        self.fc2 = torch.nn.Linear(hidden, dim)
        self.head = torch.nn.Linear(dim, vocab)

    def forward(self, tokens, targets):
        x = self.embed(tokens)
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        causal = torch.ones(t, t, device=x.device, dtype=torch.bool).tril()
        attn = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        x = x + self.proj((attn @ v).transpose(1, 2).reshape(b, t, d))
        x = x + self.fc2(F.gelu(self.fc1(self.ln2(x))))
        logits = self.head(x)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def training_steps():
    model = Block().to(dev)
    reference = Block().to(dev)
    reference.load_state_dict(model.state_dict())
    compiled = torch.compile(model)
    tokens = torch.randint(0, 128, (2, 32), device=dev)
    targets = torch.randint(0, 128, (2, 32), device=dev)
    for step in range(2):  # the second step launches the same kernels: the recorder keeps one case of each
        model.zero_grad(set_to_none=True)
        reference.zero_grad(set_to_none=True)
        loss = compiled(tokens, targets)
        loss.backward()
        ref_loss = reference(tokens, targets)
        ref_loss.backward()
        agree(f"loss, step {step}", loss, ref_loss, rtol=1e-4, atol=1e-4)
        for (name, p), q in zip(model.named_parameters(), reference.parameters()):
            agree(f"{name}.grad, step {step}", p.grad, q.grad, rtol=1e-3, atol=1e-4)
        with torch.no_grad():
            for p, q in zip(model.parameters(), reference.parameters()):
                p -= 0.1 * p.grad
                q -= 0.1 * q.grad
        say(f"torch.compile step {step}: loss {loss.item():.5f} (eager {ref_loss.item():.5f})")


# --- 2. a hand-written kernel, alone and from inside torch.compile ----------------------------------------------
@triton.jit
def bias_gelu_kernel(x_ptr, bias_ptr, out_ptr, n_elements, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask) + tl.load(bias_ptr + offs % n_cols, mask=mask)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offs, y, mask=mask)


def bias_gelu(x, bias):
    out = torch.empty_like(x)
    n = x.numel()
    bias_gelu_kernel[(triton.cdiv(n, 256),)](x, bias, out, n, x.shape[-1], BLOCK=256)
    return out


def hand_written_and_compiled():
    xg, bg = torch.randn(33, 80, device=dev), torch.randn(80, device=dev)
    agree("bias_gelu_kernel", bias_gelu(xg, bg), F.gelu(xg + bg), rtol=1e-5, atol=1e-5)
    compiled_user = torch.compile(lambda a, b: bias_gelu(a * 2, b) + 1)
    xu = torch.randn(17, 48, device=dev)
    bu = torch.randn(48, device=dev)
    agree("bias_gelu_kernel inside torch.compile", compiled_user(xu, bu), F.gelu(xu * 2 + bu) + 1, rtol=1e-5,
          atol=1e-5)
    compiled_bf16 = torch.compile(lambda a, b: F.gelu(a.float() + b).to(torch.bfloat16))
    xb = torch.randn(64, 96, device=dev).to(torch.bfloat16)
    bb = torch.randn(96, device=dev)
    agree("bf16 torch.compile pointwise", compiled_bf16(xb, bb), F.gelu(xb.float() + bb).to(torch.bfloat16))
    say("hand-written kernel and torch.compile pointwise done")


# --- 3. the users'-style kernels of tests/kernels.py, as examples/capture_workload.py launches them ---------------
def users_kernels():
    t = SimpleNamespace(**capture_workload.launch_users_kernels(dev))
    agree("add_kernel", t.out, t.x + t.y)
    agree("softmax_kernel", t.soft, torch.softmax(t.view, -1))
    agree("layernorm", t.ys, F.layer_norm(t.xs, (t.ncols,), t.w, t.b, 1e-5), rtol=1e-4, atol=1e-4)
    agree("matmul_kernel", t.c.float(), t.a @ t.bm, rtol=2e-2, atol=2e-2)
    agree("attention_fwd", t.o, torch.softmax(t.q @ t.k.T / math.sqrt(t.d), -1) @ t.v, rtol=1e-4, atol=1e-4)
    torch.cuda.synchronize()
    agree("copy_shifted bf16", t.h_out, t.h, rtol=0, atol=0)
    agree("copy_shifted fp8", t.f8_out.view(torch.uint8), t.f8.view(torch.uint8), rtol=0, atol=0)

    dy = torch.randn_like(t.xs)
    dx, dw, db = torch.empty_like(t.xs), torch.zeros(t.ncols, device=dev), torch.zeros(t.ncols, device=dev)
    kernels.layer_norm_bwd[(t.m,)](dx, dy, dw, db, t.xs, t.w, t.mean, t.rstd, t.xs.stride(0), t.ncols, BLOCK_SIZE=512)
    xr = t.xs.clone().requires_grad_(True)
    wr, br = t.w.clone().requires_grad_(True), t.b.clone().requires_grad_(True)
    F.layer_norm(xr, (t.ncols,), wr, br, 1e-5).backward(dy)
    agree("layer_norm_bwd dx", dx, xr.grad, rtol=1e-3, atol=1e-3)
    agree("layer_norm_bwd dw", dw, wr.grad, rtol=1e-3, atol=1e-3)
    agree("layer_norm_bwd db", db, br.grad, rtol=1e-3, atol=1e-3)


for part in (training_steps, hand_written_and_compiled, users_kernels):
    try:  # a part that fails (say, Inductor cannot compile here) is reported; the others still run and record
        part()
    except Exception as error:
        disagreements.append(f"{part.__name__} failed")
        say(f"FAILED: {part.__name__}: {type(error).__name__}: {error}")
    else:
        say(f"{part.__name__}: ran")
say(f"done: {len(disagreements)} disagreement(s) with torch"
    + (f": {', '.join(disagreements)}" if disagreements else ""))
sys.exit(1 if disagreements else 0)
