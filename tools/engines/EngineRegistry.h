// Which engines this binary has and whether this machine can run them. `--engine interp|gpu` on every command
// that runs kernels resolves here. An engine that is not built, or that needs a GPU the machine does not have, is
// reported as unavailable with the reason — the caller then skips visibly (exit code 4), never passes.
#pragma once

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

}  // namespace tilesim
