// _tilesim: the native half of the Python package (tools/python/tilesim). It parses and verifies TTIR text into
// a Program, and runs a launch of it in-process through the Engine interface (the interpreter, or the GPU engine
// when this build has one and the machine a GPU) — no subprocess and no files.
//
// Memory crosses the boundary as (address, size) spans the Python side took from numpy's array interface or a
// torch tensor's storage and keeps alive for the call: each span is read once into the launch's host buffer and,
// after the run, written back to the caller's memory where the kernel changed it (the Launch contract owns its
// bytes, so that one copy each way is the whole cost; nothing is pickled or converted). Views that share storage
// arrive as one "buffer" span plus "alias" entries at byte offsets into it (ir/launch/Launch.h), so the engine
// sees one buffer with several pointers, as the GPU does. The GIL is released while the engine runs.
//
// Errors, three kinds, as Python exceptions: TtirError (the text does not parse or verify: file:line:col lines),
// LaunchError (the engine could not start: a missing or ill-typed argument, named), EngineUnavailable (the
// engine asked for is not built in or has no GPU: the reason in one sentence). Program outcomes are not
// exceptions here: reports come back as data and the Python side decides (tilesim.KernelError).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "interpreter/Interpreter.h"
#include "ir/text/Parser.h"
#include "ir/verify/Verifier.h"
#include "engines/EngineRegistry.h"

namespace py = pybind11;

namespace tilesim::python {
namespace {

struct TtirError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct LaunchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct EngineUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string joinDiagnostics(const Diagnostics& diagnostics) {
  std::string text;
  for (const Diagnostic& diagnostic : diagnostics) text += (text.empty() ? "" : "\n") + diagnostic.str();
  return text;
}

// A parsed, verified module; launches refer to its kernels by name.
struct Program {
  std::unique_ptr<Module> module;

  static std::shared_ptr<Program> parse(const std::string& text, const std::string& fileName) {
    ParseResult parsed = parseModule(text, fileName);
    if (!parsed.diagnostics.empty() || !parsed.module) throw TtirError(joinDiagnostics(parsed.diagnostics));
    if (Diagnostics problems = verifyModule(*parsed.module); !problems.empty())
      throw TtirError(joinDiagnostics(problems));
    auto program = std::make_shared<Program>();
    program->module = std::move(parsed.module);
    return program;
  }

  Function kernel(const std::string& entry) const {
    std::optional<Function> function = module->kernel(entry);
    if (!function) throw LaunchError("no kernel named '" + entry + "' in " + module->sourceName);
    return *function;
  }

  // (name, type) of each parameter of `entry`, in order: what Triton kept after specialisation.
  std::vector<std::pair<std::string, std::string>> parameters(const std::string& entry) const {
    Function function = kernel(entry);
    std::vector<std::pair<std::string, std::string>> result;
    for (size_t i = 0; i < function.numArguments(); ++i)
      result.emplace_back(function.argument(i)->name, function.argument(i)->type.str());
    return result;
  }
};

ScalarKind elementKindFromName(const std::string& name) {
  for (int i = 0; i < kNumScalarKinds; ++i)
    if (name == scalarKindName(static_cast<ScalarKind>(i))) return static_cast<ScalarKind>(i);
  throw LaunchError("unknown element type '" + name + "'");
}

// The engines are made once per kind and reused: a GPU engine owns a CUDA context.
Engine& engineFor(const std::string& name) {
  static std::mutex mutex;
  static std::map<EngineKind, std::unique_ptr<Engine>> engines;
  std::optional<EngineKind> kind = parseEngineKind(name);
  if (!kind) throw LaunchError("unknown engine '" + name + "' (expected 'interp' or 'gpu')");
  std::lock_guard<std::mutex> lock(mutex);
  auto it = engines.find(*kind);
  if (it != engines.end()) return *it->second;
  EngineChoice choice = createEngine(*kind);
  if (!choice.engine) throw EngineUnavailable("engine '" + name + "' is unavailable: " + choice.unavailable);
  return *(engines[*kind] = std::move(choice.engine));
}

// The launches' host buffers, kept for the next launch. A fresh vector of megabytes is fresh pages from the
// kernel, each faulted in and zeroed on first touch: for an elementwise kernel that cost more than the copy
// into it (perf: page faults and clear_page ~10% of a 2^20-element vadd). A buffer is reused for a request of
// at least half its capacity; at most kMaxBytes are kept (the largest buffers go first).
class BufferPool {
 public:
  std::vector<uint8_t> take(size_t bytes) {
    std::lock_guard<std::mutex> guard(mutex_);
    size_t best = free_.size();
    for (size_t i = 0; i < free_.size(); ++i) {
      const size_t capacity = free_[i].capacity();
      if (capacity >= bytes && capacity / 2 <= bytes && (best == free_.size() || capacity < free_[best].capacity()))
        best = i;
    }
    if (best == free_.size()) return {};
    std::vector<uint8_t> buffer = std::move(free_[best]);
    free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
    kept_ -= buffer.capacity();
    buffer.clear();
    return buffer;
  }
  void give(std::vector<uint8_t> buffer) {
    if (buffer.capacity() < (size_t{64} << 10) || buffer.capacity() > kMaxBytes) return;  // malloc reuses small ones
    std::lock_guard<std::mutex> guard(mutex_);
    free_.push_back(std::move(buffer));
    kept_ += free_.back().capacity();
    while (kept_ > kMaxBytes || free_.size() > kMaxBuffers) {
      auto largest = std::max_element(free_.begin(), free_.end(), [](const auto& a, const auto& b) {
        return a.capacity() < b.capacity();
      });
      kept_ -= largest->capacity();
      free_.erase(largest);
    }
  }

 private:
  static constexpr size_t kMaxBytes = size_t{512} << 20;
  static constexpr size_t kMaxBuffers = 64;
  std::mutex mutex_;
  std::vector<std::vector<uint8_t>> free_;
  size_t kept_ = 0;
};

BufferPool& bufferPool() {
  static BufferPool* pool = new BufferPool;  // never destroyed: no teardown order problems at exit
  return *pool;
}

// Where a buffer argument's bytes came from in the caller's memory (owners only).
struct HostSpan {
  size_t argument = 0;
  uintptr_t address = 0;
  bool writable = true;
};

py::dict reportDict(const Report& report) {
  py::dict entry;
  entry["kind"] = reportKindName(report.kind);
  entry["program"] = py::make_tuple(report.program[0], report.program[1], report.program[2]);
  entry["lane"] = py::cast(report.lane);
  entry["op"] = report.op;
  entry["ttir"] = report.ttirPos.known() ? report.ttirPos.str() : std::string();
  entry["source"] = report.sourceLoc;
  entry["buffer"] = report.buffer;
  entry["byte_offset"] = report.byteOffset;
  entry["message"] = report.message;
  entry["text"] = report.str();
  return entry;
}

// args: a list of tuples, in any order (aliases may name any buffer):
//   ("buffer", name, element, address, nbytes, writable)   owns storage: nbytes read from address
//   ("alias",  name, element, target, offset, nbytes)      a view into `target`'s storage at a byte offset
//   ("int", name, value)  ("float", name, value)
// Each may end with a dict of binding facts: "parameter" (bind to the kernel parameter at that position, not by
// name), and for a buffer or alias passed as a host TensorDescriptor "desc_shape", "desc_strides",
// "desc_block_shape" (lists of ints) and "desc_padding" ("zero" or "nan").
// The optional last element of an argument tuple (see launch below).
void applyBindingFacts(LaunchArgument& argument, const py::dict& facts) {
  if (facts.contains("parameter")) argument.parameter = facts["parameter"].cast<int>();
  if (!facts.contains("desc_shape")) return;
  if (!argument.isBuffer()) throw LaunchError("argument '" + argument.name + "': only an array can be a tensor descriptor");
  argument.descShape = facts["desc_shape"].cast<std::vector<int64_t>>();
  argument.descStrides = facts["desc_strides"].cast<std::vector<int64_t>>();
  argument.descBlockShape = facts["desc_block_shape"].cast<std::vector<int64_t>>();
  const std::string padding = facts.contains("desc_padding") ? facts["desc_padding"].cast<std::string>() : "zero";
  if (padding != "zero" && padding != "nan")
    throw LaunchError("tensor descriptor '" + argument.name + "': padding must be 'zero' or 'nan', not '" + padding + "'");
  argument.descPadding = padding == "nan" ? 2 : 1;
  const size_t rank = argument.descShape.size();
  if (rank == 0 || rank > 5 || argument.descStrides.size() != rank || argument.descBlockShape.size() != rank)
    throw LaunchError("tensor descriptor '" + argument.name + "': shape, strides and block shape need the same rank (1 to 5)");
}

py::dict launch(const Program& program, const std::string& entry, const py::list& args,
                const std::vector<int64_t>& grid, int numWarps, const std::string& profileName, bool checks,
                bool checkUB, int threads, const std::string& engineName, int maxReports, bool echoPrints,
                uint64_t scheduleSeed) {
  Launch launch;
  launch.module = program.module.get();
  launch.kernel = program.kernel(entry);
  if (grid.empty() || grid.size() > 3) throw LaunchError("a grid has 1 to 3 dimensions");
  for (size_t i = 0; i < grid.size(); ++i) launch.grid[i] = grid[i];
  launch.numWarps = numWarps;

  LaunchOptions options;
  std::optional<FloatProfile> profile = parseFloatProfile(profileName);
  if (!profile) throw LaunchError("unknown float profile '" + profileName + "' (expected 'exact' or 'triton')");
  options.profile = *profile;
  options.checks = checks;
  options.checkUB = checkUB;
  options.threads = threads;
  options.maxReportsPerKind = maxReports;
  options.echoPrints = echoPrints;
  options.scheduleSeed = scheduleSeed;  // ttg.warp_specialize's interleaving (0: round robin)
  // Ctrl-C while the engine runs (the GIL released): the interpreter asks on this thread about every 50 ms;
  // a KeyboardInterrupt stops the launch, the arrays stay as they were, and the interrupt is raised.
  bool interrupted = false;
  options.interrupted = [&interrupted] {
    py::gil_scoped_acquire gil;
    interrupted = interrupted || PyErr_CheckSignals() != 0;
    return interrupted;
  };
  Engine& engine = engineFor(engineName);

  std::vector<HostSpan> spans;
  struct PendingCopy {
    size_t argument;
    uintptr_t address;
    size_t bytes;
  };
  std::vector<PendingCopy> reads;
  for (const py::handle& item : args) {
    py::tuple tuple = py::reinterpret_borrow<py::tuple>(item);
    const std::string what = tuple[0].cast<std::string>(), name = tuple[1].cast<std::string>();
    if (what == "buffer") {
      const size_t bytes = tuple[4].cast<size_t>();
      launch.arguments.push_back(
          LaunchArgument::buffer(name, elementKindFromName(tuple[2].cast<std::string>()), {}));
      // The caller's memory stays as it was until the write-back below: the interpreter's race rerun reads the
      // inputs from there (no copy of its own).
      launch.arguments.back().pristine = reinterpret_cast<const uint8_t*>(tuple[3].cast<uintptr_t>());
      reads.push_back({launch.arguments.size() - 1, tuple[3].cast<uintptr_t>(), bytes});
      spans.push_back({launch.arguments.size() - 1, tuple[3].cast<uintptr_t>(), tuple[5].cast<bool>()});
    } else if (what == "alias") {
      launch.arguments.push_back(LaunchArgument::alias(name, elementKindFromName(tuple[2].cast<std::string>()),
                                                       tuple[3].cast<std::string>(), tuple[4].cast<uint64_t>(),
                                                       tuple[5].cast<uint64_t>()));
    } else if (what == "int") {
      launch.arguments.push_back(LaunchArgument::integer(name, tuple[2].cast<int64_t>()));
    } else if (what == "float") {
      launch.arguments.push_back(LaunchArgument::floating(name, tuple[2].cast<double>()));
    } else {
      throw LaunchError("argument '" + name + "': unknown kind '" + what + "'");
    }
    if (py::isinstance<py::dict>(tuple[tuple.size() - 1]))
      applyBindingFacts(launch.arguments.back(), py::reinterpret_borrow<py::dict>(tuple[tuple.size() - 1]));
  }

  LaunchOutcome outcome;
  std::vector<std::string> readOnlyWritten;
  {
    py::gil_scoped_release release;
    for (const PendingCopy& copy : reads) {
      const auto* host = reinterpret_cast<const uint8_t*>(copy.address);
      std::vector<uint8_t>& bytes = launch.arguments[copy.argument].bytes;
      bytes = bufferPool().take(copy.bytes);
      bytes.assign(host, host + copy.bytes);  // one pass: no zero-fill first (and no reallocation from the pool)
    }
    outcome = engine.run(launch, options);
    if (outcome.started() && !interrupted) {
      for (const HostSpan& span : spans) {
        const std::vector<uint8_t>& bytes = launch.arguments[span.argument].bytes;
        void* host = reinterpret_cast<void*>(span.address);
        if (bytes.empty() || std::memcmp(host, bytes.data(), bytes.size()) == 0) continue;
        if (span.writable)
          std::memcpy(host, bytes.data(), bytes.size());
        else
          readOnlyWritten.push_back(launch.arguments[span.argument].name);
      }
    }
    for (const HostSpan& span : spans) bufferPool().give(std::move(launch.arguments[span.argument].bytes));
  }
  if (interrupted) throw py::error_already_set();  // the KeyboardInterrupt PyErr_CheckSignals raised
  if (!outcome.started()) throw LaunchError(joinDiagnostics(outcome.diagnostics));

  const LaunchResult& result = outcome.result;
  py::list reports, groups;
  for (const Report& report : result.reports) reports.append(reportDict(report));
  for (const ReportGroup& group : result.groups) {
    py::dict entry = reportDict(group.first);
    entry["count"] = group.count;
    entry["last_lane"] = py::cast(group.lastLane);
    entry["min_byte_offset"] = group.minByteOffset;
    entry["max_byte_offset"] = group.maxByteOffset;
    entry["text"] = group.str();
    groups.append(entry);
  }
  py::dict totals;
  for (size_t i = 0; i < kReportKindCount; ++i)
    if (result.totalByKind[i]) totals[reportKindName(static_cast<Report::Kind>(i))] = result.totalByKind[i];
  py::dict answer;
  answer["reports"] = reports;
  answer["groups"] = groups;
  answer["totals"] = totals;
  answer["total"] = result.totalReports();
  answer["unused"] = py::cast(result.unusedArguments);
  answer["printed"] = py::cast(result.printed);
  answer["read_only_written"] = py::cast(readOnlyWritten);
  answer["engine"] = engine.description();
  return answer;
}

}  // namespace
}  // namespace tilesim::python

PYBIND11_MODULE(_tilesim, module) {
  using namespace tilesim::python;
  module.doc() = "tilesim's engines, in-process: parse TTIR, run launches (see tools/python/tilesim)";
  py::register_exception<TtirError>(module, "TtirError", PyExc_ValueError);
  py::register_exception<LaunchError>(module, "LaunchError", PyExc_ValueError);
  py::register_exception<EngineUnavailable>(module, "EngineUnavailable", PyExc_RuntimeError);

  py::class_<Program, std::shared_ptr<Program>>(module, "Program")
      .def_static("parse", &Program::parse, py::arg("text"), py::arg("file_name") = "<ttir>",
                  "Parses and verifies TTIR text; raises TtirError with file:line:col lines.")
      .def("parameters", &Program::parameters, py::arg("entry") = "",
           "(name, type) of each parameter of the kernel `entry` (the only public one when empty).")
      .def("kernel_name", [](const Program& program, const std::string& entry) {
        return program.kernel(entry).name();
      }, py::arg("entry") = "");
  module.def("launch", &launch, py::arg("program"), py::arg("entry"), py::arg("args"), py::arg("grid"),
             py::arg("num_warps") = 4, py::arg("profile") = "exact", py::arg("checks") = true,
             py::arg("check_ub") = false, py::arg("threads") = 0, py::arg("engine") = "interp",
             py::arg("max_reports") = 10, py::arg("echo_prints") = true, py::arg("schedule_seed") = 0,
             "Runs one launch; returns a dict of reports, groups, totals, unused arguments and printed lines.");
  module.def("engine_available", [](const std::string& name) -> py::object {
    try {
      engineFor(name);
      return py::none();
    } catch (const EngineUnavailable& error) {
      return py::str(error.what());
    }
  }, py::arg("engine"), "None when the engine can run here, else the reason it cannot.");
}
