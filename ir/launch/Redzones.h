// Redzones: how a device engine sees a write outside a buffer, and how that agrees with the interpreter.
//
// The interpreter checks every address (MemoryAccess.h) and reports an out-of-bounds write; a GPU writes wherever
// it is told, and a stray store that lands outside every compared buffer changes nothing the comparison looks at.
// So the GPU engine (gpu_backend/GpuEngine.cpp) gives every storage (a buffer that owns its bytes; an alias view
// shares its storage's redzones) an allocation laid out as
//
//   [ front redzone | the buffer's bytes | allocation padding + back redzone ]
//     `front` bytes   `size` bytes         up to the next 256-byte boundary, then `front` more
//
// filled with a known pattern (redzonePatternByte: neighbouring bytes differ, so a store of zeros or of one
// repeated byte always shows), and after the launch reads the redzones back: every run of changed
// bytes is a finding, an out-of-bounds Report naming the kernel, the buffer, the side, the byte offsets and the
// bytes written (redzoneReports). The front redzone is a multiple of the alignment the launch promises
// (kDeviceBufferAlignment: device buffers are 256-byte aligned, what tt.divisibility may assume), so the buffer
// inside the allocation keeps it.
//
// A write whose bytes equal the pattern is invisible (a 1-byte store: one value in 256), and one past the back
// redzone is not seen (it may fault, or land in another allocation). compareOutOfBoundsWrites judges the two
// engines only where the redzones can see: a device finding the interpreter does not report, or an interpreter
// out-of-bounds write into a redzone the device left unchanged, is a disagreement (fuzz check `oob-write`).
// Everything here is host code: the tests need no GPU (ir/launch/tests/RedzonesTest.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/launch/Launch.h"
#include "ir/launch/Report.h"

namespace tilesim {

// The alignment a device buffer's start has (cuMemAlloc gives at least this), which binding lets a kernel assume.
inline constexpr uint64_t kDeviceBufferAlignment = 256;
// The smallest redzone on either side.
inline constexpr uint64_t kMinRedzoneBytes = 256;
// Report::op of a redzone finding: no op or program is known, only the bytes that changed.
inline constexpr const char* kRedzoneCheckOp = "redzone check";

struct RedzoneLayout {
  uint64_t front = 0;  // bytes before the buffer
  uint64_t size = 0;   // the buffer's bytes
  uint64_t back = 0;   // bytes after it: padding to the next kDeviceBufferAlignment boundary, then `front`
  uint64_t total() const { return front + size + back; }
};

// The layout for a buffer of `bytes`; `alignment` (a power of two) is what the buffer's start must keep.
RedzoneLayout redzoneLayout(uint64_t bytes, uint64_t alignment = kDeviceBufferAlignment);

// The alignment a launch of `kernel` promises its buffers: kDeviceBufferAlignment, or the largest tt.divisibility
// of a parameter rounded up to a power of two when that is larger (a hand-written kernel may claim more than
// Triton's 16), so that the front redzone never breaks a claim binding accepted (checkSpecialisation, Launch.h).
uint64_t promisedAlignment(const Function& kernel);

// The pattern byte at `offset` into an allocation.
inline uint8_t redzonePatternByte(uint64_t offset) { return static_cast<uint8_t>(0xA7u + 0x3Bu * offset); }

// `bytes` placed in a new allocation image of layout.total() bytes, the redzones filled with the pattern.
std::vector<uint8_t> allocationWithRedzones(std::span<const uint8_t> bytes, const RedzoneLayout& layout);

// One run of consecutive redzone bytes the launch changed.
struct RedzoneWrite {
  bool before = false;      // in the front redzone (else the padding or back redzone)
  int64_t byteOffset = 0;   // of its first byte, from the buffer's start: negative before it, >= size after it
  std::vector<uint8_t> bytes;  // what is there now
};

// Every changed run in the redzones of `allocation` (layout.total() bytes, after the launch), in address order.
std::vector<RedzoneWrite> findRedzoneWrites(std::span<const uint8_t> allocation, const RedzoneLayout& layout);

// The findings as out-of-bounds Reports (kind OutOfBounds, op kRedzoneCheckOp, buffer, byteOffset, a message with
// the kernel, side, offsets and bytes; program unknown: -1).
std::vector<Report> redzoneReports(const std::string& kernel, const std::string& buffer, const RedzoneLayout& layout,
                                   const std::vector<RedzoneWrite>& writes);

// Where an out-of-bounds write of the interpreter lies, by the storage it is next to.
struct OutOfBoundsWriteSite {
  std::string buffer;      // the storage (owning buffer argument)
  int64_t byteOffset = 0;  // from its start: negative before it
  int64_t bytes = 0;       // written (0 when the report does not say)
};

// The interpreter's out-of-bounds writes among `reports` that a redzone of the launch's storages covers (the
// interpreter's windows: one per owning buffer argument, in argument order; interpreter/Memory.h), decoded to
// the storage they are next to. `arguments`: the launch's, with the sizes the launch ran with.
// `alignment`: the layouts' (promisedAlignment of the kernel).
std::vector<OutOfBoundsWriteSite> redzoneVisibleWrites(const std::vector<LaunchArgument>& arguments,
                                                       const std::vector<Report>& reports,
                                                       uint64_t alignment = kDeviceBufferAlignment);

// "" when the device's redzone findings (`device`, reports with op kRedzoneCheckOp) and the interpreter's
// out-of-bounds writes a redzone covers (`interpreter`) name the same storages and sides; else one line per
// disagreement, each starting with two spaces. `deviceName` names the device engine in the lines.
std::string compareOutOfBoundsWrites(const std::vector<LaunchArgument>& arguments, const std::vector<Report>& interpreter,
                                     const std::vector<Report>& device, const std::string& deviceName,
                                     uint64_t alignment = kDeviceBufferAlignment);

}  // namespace tilesim
