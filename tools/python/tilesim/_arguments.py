"""A bound Triton call -> the argument tuples of `_tilesim.launch`, bound to the kernel's parameters by position.

A GPU launch passes arguments in the order of the kernel's signature, and so does this: Triton's TTIR need not
keep the Python names (it may print parameter `M` as `%b_desc`), so names serve only in messages. The walk
follows Triton's own flattening of a signature (`JITFunction._pack_args`): tuples and NamedTuples are flattened
leaf by leaf in order, constexpr leaves (including `@triton.jit` functions held in a tuple, and `None`) are
folded into the TTIR and take no parameter, and a host `TensorDescriptor` takes one `!tt.tensordesc` parameter
followed by its shape (i32 each) and strides (i64 each), which the engine fills itself.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import _memory


@dataclass
class Leaf:
    label: str      # for messages: `x`, `t[1]`, `cfg.ptr`
    value: object
    type: str       # Triton's type string: "*fp32", "i32", "fp32", "tensordesc<fp32[16, 16]>"


def flatten(bound: dict, signature: dict):
    """The leaves of a bound call that become kernel parameters, in parameter order."""
    leaves = []
    for name, value in bound.items():
        if name in signature:
            _walk(leaves, name, value, signature[name])
    return leaves


# A module-level function, not a closure over itself: a recursive closure is a reference cycle that keeps every
# launch's leaves (and the arrays they hold) alive until Python's cycle collector runs.
def _walk(leaves: list, label: str, value, kind):
    if isinstance(kind, tuple):
        fields = getattr(type(kind), "_fields", None)
        for index, (item, item_kind) in enumerate(zip(value, kind)):
            _walk(leaves, f"{label}.{fields[index]}" if fields else f"{label}[{index}]", item, item_kind)
    elif kind != "constexpr" and value is not None:
        leaves.append(Leaf(label, value, kind))


def _is_descriptor(kind: str) -> bool:
    return kind.startswith("tensordesc")


def _scalar(leaf: Leaf, kernel: str):
    value = leaf.value
    if isinstance(value, bool):
        return ("int", leaf.label, int(value))
    if isinstance(value, int):
        return ("int", leaf.label, value)
    if isinstance(value, float):
        return ("float", leaf.label, value)
    if hasattr(value, "item") and callable(value.item):  # numpy / torch scalars
        item = value.item()
        return ("float" if isinstance(item, float) else "int", leaf.label, item)
    raise TypeError(f"tilesim: {kernel}: argument '{leaf.label}' of type {type(value).__name__} cannot be passed to "
                    "a kernel (arrays, tensor descriptors, ints, floats, bools and tuples of them can)")


def _descriptor_facts(leaf: Leaf, kernel: str) -> dict:
    desc = leaf.value
    padding = getattr(desc, "padding", "zero")
    if padding not in ("zero", "nan"):
        raise ValueError(f"tilesim: {kernel}: tensor descriptor '{leaf.label}': padding must be 'zero' or 'nan', "
                         f"not {padding!r}")
    return {"desc_shape": [int(s) for s in desc.shape], "desc_strides": [int(s) for s in desc.strides],
            "desc_block_shape": [int(s) for s in desc.block_shape], "desc_padding": padding}


def launch_arguments(bound: dict, signature: dict, parameter_count: int, kernel: str) -> list:
    """The argument tuples for `_tilesim.launch`: arrays grouped into buffers by the storage they share
    (_memory.plan_buffers), each leaf carrying the position of its parameter."""
    views, facts, scalars = {}, {}, []
    position = 0
    for leaf in flatten(bound, signature):
        facts[leaf.label] = {"parameter": position}
        if _is_descriptor(leaf.type):
            base = getattr(leaf.value, "base", None)
            view = _memory.view_of(base)
            if view is None:
                raise TypeError(f"tilesim: {kernel}: tensor descriptor '{leaf.label}' has no array as its base "
                                f"({type(base).__name__})")
            views[leaf.label] = view
            facts[leaf.label].update(_descriptor_facts(leaf, kernel))
            position += 1 + 2 * len(leaf.value.shape)
            continue
        position += 1
        if leaf.type.startswith("*"):
            view = _memory.view_of(leaf.value)
            if view is None:
                raise TypeError(f"tilesim: {kernel}: argument '{leaf.label}' is a pointer parameter but a "
                                f"{type(leaf.value).__name__} was passed")
            views[leaf.label] = view
        else:
            scalars.append(_scalar(leaf, kernel))
    if position != parameter_count:
        raise TypeError(f"tilesim: {kernel}: the call's arguments fill {position} kernel parameters but the TTIR has "
                        f"{parameter_count}")
    tuples = _memory.plan_buffers(views).arguments + scalars
    return [entry + (facts[entry[1]],) if entry[1] in facts else entry for entry in tuples]
