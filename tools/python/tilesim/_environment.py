"""The TILESIM_* environment variables, validated: a bad value is a BadEnvironment naming the variable, the value
and what it accepts (tilesim/__init__.py turns it into one line on stderr and exit status 2).

    TILESIM_INTERPRET   1: run every Triton launch of the process on tilesim (_dropin.py); 0 or unset: don't
    TILESIM_PROFILE     exact | triton            float profile
    TILESIM_THREADS     0..4096                   host threads (0: all cores)
    TILESIM_ENGINE      interp | gpu              engine
    TILESIM_CHECK       all | ub | none           checks: the default set, plus undefined behaviour, or none
    TILESIM_WAIVE       comma-separated report kinds that do not raise (see tilesim.REPORT_KINDS)
    TILESIM_AUTOTUNE    first | all               which configs of an autotuned kernel run
    TILESIM_MAX_REPORTS 1..100000                 reports stored per kind (all are counted)
"""
from __future__ import annotations

import os

# The report kinds the engines produce (ir/launch/Report.h), by the names reports carry.
REPORT_KINDS = ("out-of-bounds", "undefined-value", "race", "same-value-race", "assert", "undefined-behavior",
                "unsupported", "misaligned", "runaway", "assume", "async-hazard", "mbarrier", "shared-memory",
                "partition-race")


class BadEnvironment(ValueError):
    pass


def _get(name: str):
    value = os.environ.get(name)
    return None if value is None or value == "" else value


def _choice(name: str, choices):
    value = _get(name)
    if value is not None and value not in choices:
        raise BadEnvironment(f"{name}={value!r} is not one of {', '.join(choices)}")
    return value


def _integer(name: str, low: int, high: int):
    value = _get(name)
    if value is None:
        return None
    try:
        number = int(value, 10)
    except ValueError:
        raise BadEnvironment(f"{name}={value!r} is not an integer ({low} to {high})") from None
    if not low <= number <= high:
        raise BadEnvironment(f"{name}={value!r} is out of range ({low} to {high})")
    return number


def waived_kinds(text: str, source: str) -> frozenset:
    """'race, undefined-value' -> the set of kinds; unknown names are an error naming `source`."""
    kinds = frozenset(part.strip() for part in text.split(",") if part.strip())
    unknown = sorted(kinds - set(REPORT_KINDS))
    if unknown:
        raise BadEnvironment(f"{source}: unknown report kind(s) {', '.join(unknown)} (known: {', '.join(REPORT_KINDS)})")
    return kinds


def interpret_requested() -> bool:
    return _choice("TILESIM_INTERPRET", ("0", "1")) == "1"


def options() -> dict:
    """The interpret() options the environment asks for (validated)."""
    result = {}
    if (profile := _choice("TILESIM_PROFILE", ("exact", "triton"))) is not None:
        result["profile"] = profile
    if (threads := _integer("TILESIM_THREADS", 0, 4096)) is not None:
        result["threads"] = threads
    if (engine := _choice("TILESIM_ENGINE", ("interp", "gpu"))) is not None:
        result["engine"] = engine
    check = _choice("TILESIM_CHECK", ("all", "ub", "none"))
    if check == "ub":
        result["check_ub"] = True
    elif check == "none":
        result["checks"] = False
    if (waive := _get("TILESIM_WAIVE")) is not None:
        result["waive"] = waived_kinds(waive, "TILESIM_WAIVE")
    if (autotune := _choice("TILESIM_AUTOTUNE", ("first", "all"))) is not None:
        result["autotune"] = autotune
    if (max_reports := _integer("TILESIM_MAX_REPORTS", 1, 100000)) is not None:
        result["max_reports"] = max_reports
    return result
