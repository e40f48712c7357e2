// The steps of an interpreter launch before any program runs (LaunchSteps.h): the grid's check, the address
// space, the launch context (functions, the kernel's argument tiles from the shared binding, cached constants)
// and the thread count.
#include <omp.h>

#include <algorithm>

#include "interpreter/LaunchSteps.h"
#include "ir/OpAttributes.h"

namespace tilesim {
namespace {

// Constants and ranges are built once per launch, up to this many bytes in all; larger ones (a splat of a
// huge tensor) are built when executed, so a module of many big constants does not fill memory at launch.
constexpr int64_t kConstantCacheBytes = int64_t{64} << 20;

// More worker threads than this gain nothing and only cost memory (one executor and report sink each).
constexpr int64_t kMaxThreads = 256;

// Under the exact profile error bounds are tracked only for the two sources of values the GPU does not
// determine bit for bit: inline PTX (its approximate instructions run as written) and float atomic adds (their
// sum depends on the arrival order where several programs hit one address). Other kernels skip the tracking.
bool exactProfileNeedsBounds(const Module& module) {
  bool needed = false;
  for (const Function& function : module.allFunctions())
    walk(*function.op(), [&](const Operation& op) {
      if (op.kind == OpKind::TTElementwiseInlineAsm) needed = true;
      if (op.kind == OpKind::TTAtomicRMW && op.result()->type.isFloat() &&
          AtomicView{op}.rmwKind() == AtomicRmwKind::FAdd)
        needed = true;
    });
  return needed;
}

// A launch too small to pay for waking worker threads: straight-line programs (no loop, no branch) whose tiles
// add up to at most 2^17 elements over the grid, a unit test's kernel. It runs on the calling thread when the
// user did not ask for a thread count: on a busy machine a woken worker can wait milliseconds for a core, and the
// launch waits for it (16 programs of a 1024-element add: 0.39 ms on one thread, 1.3 ms on two at load 8).
bool smallLaunch(const Module& module, int64_t programs) {
  int64_t largestTile = 1;
  bool straightLine = true;
  for (const Function& function : module.allFunctions())
    walk(*function.op(), [&](const Operation& op) {
      const bool branches = op.kind == OpKind::CFBr || op.kind == OpKind::CFCondBr;
      straightLine = straightLine && (&op == function.op() || (op.regions.empty() && !branches));
      for (const auto& result : op.results) largestTile = std::max(largestTile, result->type.numElements());
    });
  return straightLine && programs * largestTile <= (int64_t{1} << 17);
}

// The tile a kernel parameter holds for the whole launch.
TileRef argumentTile(Type type, const BoundParameter& bound, const LaunchArgument& argument, uint64_t address) {
  MutableTileRef tile = makeTile(type);
  switch (bound.kind) {
    case BoundParameter::Kind::Pointer: tile->setBits(0, address); break;
    case BoundParameter::Kind::Scalar:
    case BoundParameter::Kind::DescriptorField: tile->setBits(0, bound.bits); break;
    case BoundParameter::Kind::TensorDescriptor: {
      TensorDescriptor& desc = *tile->as<TensorDescriptor>();
      desc.base = address;
      desc.rank = static_cast<int>(argument.descShape.size());
      desc.padding = argument.descPadding;
      for (size_t d = 0; d < argument.descShape.size(); ++d) {
        desc.shape[d] = argument.descShape[d];
        desc.strides[d] = argument.descStrides[d];
      }
      break;
    }
  }
  return tile;
}

void cacheConstants(LaunchContext& context, const Module& module) {
  int64_t constantBytes = 0;
  for (const Function& function : module.allFunctions())
    walk(*function.op(), [&](const Operation& op) {
      if (op.kind != OpKind::ArithConstant && op.kind != OpKind::TTMakeRange) return;
      Type type = op.result()->type;
      const int64_t bytes = (type.isTensor() ? type.numElements() : 1) * 8;
      if (constantBytes + bytes > kConstantCacheBytes) return;  // built when executed
      constantBytes += bytes;
      context.constantTiles[&op] = op.kind == OpKind::ArithConstant ? ops::constant(op) : ops::makeRange(op);
    });
}

}  // namespace

std::string checkGrid(const Launch& launch, int64_t& programs) {
  for (int64_t g : launch.grid)
    if (g < 1 || g > (int64_t{1} << 31) - 1) return "grid dimensions must be between 1 and 2^31-1";
  // The product is checked for overflow: a wrapped product would run no program at all.
  if (__builtin_mul_overflow(launch.grid[0], launch.grid[1], &programs) ||
      __builtin_mul_overflow(programs, launch.grid[2], &programs) || programs > (int64_t{1} << 30))
    return "grid " + std::to_string(launch.grid[0]) + "x" + std::to_string(launch.grid[1]) + "x" +
           std::to_string(launch.grid[2]) + " has more than 2^30 programs";
  return "";
}

std::string layOutMemory(Launch& launch, const LaunchOptions& options, Memory& memory, std::vector<Buffer*>& storageOf) {
  // One window per buffer that owns storage; an alias points into its storage's window at its offset.
  storageOf.assign(launch.arguments.size(), nullptr);
  for (size_t i = 0; i < launch.arguments.size(); ++i) {
    LaunchArgument& argument = launch.arguments[i];
    if (!argument.isBuffer() || argument.isAlias()) continue;
    storageOf[i] = &memory.addBuffer(argument.name, argument.elementKind, argument.bytes.data(), argument.bytes.size());
  }
  if (memory.buffers().size() >= (size_t{1} << (63 - kBufferWindowBits))) return "too many buffers";
  for (const auto& buffer : memory.buffers())  // the wild-pointer rule needs every buffer in its window's first half
    if (buffer->sizeBytes >= kMaxBufferBytes)
      return "argument '" + buffer->name + "': buffers of 512 GiB or more are not supported";
  if (options.profile == FloatProfile::Triton || exactProfileNeedsBounds(*launch.module)) memory.enableErrorBounds();
  return "";
}

void prepareContext(LaunchContext& context, const Launch& launch, const LaunchOptions& options, const ProgramTrace* trace,
                    const LaunchBinding& binding, Memory& memory, const std::vector<Buffer*>& storageOf) {
  context.module = launch.module;
  context.memory = &memory;
  context.options = options;
  context.grid = launch.grid;
  context.trace = trace;
  for (const Function& function : launch.module->allFunctions())
    context.functions[function.name()] = {function.op(), numberValues(function)};
  context.kernel = context.functions[launch.kernel->name()];
  for (size_t p = 0; p < binding.numParameters(); ++p) {
    const BoundParameter& bound = binding.parameter(p);
    const LaunchArgument& argument = launch.arguments[bound.argument];
    const bool addressed = bound.kind == BoundParameter::Kind::Pointer || bound.kind == BoundParameter::Kind::TensorDescriptor;
    const BufferPlacement& placement = binding.placement(bound.argument);
    const uint64_t address = addressed ? storageOf[placement.storage]->base + placement.offset : 0;
    context.kernelArguments.push_back(argumentTile(launch.kernel->argument(p)->type, bound, argument, address));
  }
  cacheConstants(context, *launch.module);
}

int chooseThreadCount(const Launch& launch, const LaunchOptions& options, int64_t programs) {
  const int threads = options.threads > 0                    ? options.threads
                      : smallLaunch(*launch.module, programs) ? 1
                                                              : omp_get_max_threads();
  return static_cast<int>(std::min<int64_t>({threads, kMaxThreads, std::max<int64_t>(programs, 1)}));
}

}  // namespace tilesim
