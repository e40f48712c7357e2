// Shared by SharedMemory.cpp and HopperOps.cpp: memory descriptor tiles, reading and writing a program's shared
// memory through them, and the async copies that write it later. Private to interpreter/.
#pragma once

#include <cstring>
#include <vector>

#include "interpreter/Executor.h"

namespace tilesim::shared {

const SharedMemoryView& viewOf(const Tile& tile);
TileRef viewTile(Type type, const SharedMemoryView& view);
TileRef tokenTile(uint64_t number);
// The allocation a view refers to; a use after ttg.local_dealloc traps (shared-memory) naming both lines.
SharedAllocation& liveAllocation(Executor& executor, const Operation& op, const SharedMemoryView& view);
// The allocation element of each lane of the view, row-major.
std::vector<int64_t> viewElements(const SharedMemoryView& view);
void writeElements(SharedAllocation& allocation, const std::vector<int64_t>& elements, const Tile& data);
// The tile the view holds; a lane an in-flight copy will still write is reported once (async-hazard).
TileRef readView(Executor& executor, const Operation& op, const Tile& memory, Type resultType);
// Records an async copy of `data` into `destination` (written by completeCopy); returns its index.
size_t issueCopy(Executor& executor, const Operation& op, const SharedMemoryView& destination, TileRef data);
void completeCopy(Executor& executor, size_t index);
// The second pipelining hazard: `op` is about to write (or start an async write of) these elements while an
// async warp_group_dot not yet retired by a wait reads them: one async-hazard report naming the dot's line.
void checkNoDotReads(Executor& executor, const Operation& op, int64_t allocation, const std::vector<int64_t>& elements);

}  // namespace tilesim::shared

namespace tilesim {
// ttg.global_scratch_alloc (HopperOps.cpp, with the tensor maps it holds).
void executeGlobalScratchAlloc(Executor& executor, const Operation& op, Executor::Frame& frame);
}  // namespace tilesim
