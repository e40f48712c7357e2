// Which engines this binary has and whether this machine can run them. `--engine interp|gpu` on every command
// that runs kernels resolves here. An engine that is not built, or that needs a GPU the machine does not have, is
// reported as unavailable with the reason — the caller then skips visibly (exit code 4), never passes.
// It is also where a consumer asks what an engine does without running it (reduceOrderOf), so no consumer needs
// `#ifdef TILESIM_HAVE_GPU_BACKEND` or an engine's own header.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ir/launch/Engine.h"

namespace tilesim {

enum class EngineKind : uint8_t { Interpreter, Gpu };
const char* engineKindName(EngineKind kind);  // "interp" | "gpu"
std::optional<EngineKind> parseEngineKind(std::string_view name);

struct EngineChoice {
  std::unique_ptr<Engine> engine;  // null when unavailable
  std::string unavailable;         // why, in one sentence naming what is missing
};
EngineChoice createEngine(EngineKind kind);

// How `kind` associates the combines of each tt.reduce of the launch's kernel at launch.numWarps, as the layouts
// the interpreter follows to combine in that same order (LaunchOptions::reduceLayouts, docs/semantics.md
// "Reductions and scans"): the GPU backend's order (gpu::tritonReduceLayouts) for the GPU engine; empty for the
// interpreter (its contract order) and for an engine this build does not have. Needs no device, so a run recorded
// on a GPU can be replayed against the interpreter on a machine without one.
std::map<const Operation*, ReduceAxisLayout> reduceOrderOf(EngineKind kind, const Launch& launch);

}  // namespace tilesim
