// Parser throughput: generates one TTIR module of at least 1 MB in Triton's style (named values, loc aliases
// defined after the module and used before, tensor ops, scf.for, tt.reduce) and parses it several times; also
// parses every probe record's TTIR from conformance/probes/probes.json when it is there. Prints MB/s and times.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "ir/text/Parser.h"
#include "ir/text/Printer.h"

namespace {

std::string generateModule(size_t minimumBytes) {
  std::string body;
  int function = 0;
  int loc = 1;
  std::string aliases;
  while (body.size() < minimumBytes) {
    std::string f = "f" + std::to_string(function++);
    body += "  tt.func public @" + f + R"((%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("x_ptr"(#loc)), %n: i32 loc("n"(#loc))) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32 loc(#loc1)
    %c1_i32 = arith.constant 1 : i32 loc(#loc1)
    %cst = arith.constant dense<0.000000e+00> : tensor<1024xf32> loc(#loc1)
    %pid = tt.get_program_id x : i32 loc(#loc1)
    %offs = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32> loc(#loc1)
    %mask = tt.splat %n : i32 -> tensor<1024xi32> loc(#loc1)
    %mask_0 = arith.cmpi slt, %offs, %mask : tensor<1024xi32> loc(#loc1)
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>> loc(#loc1)
    %x_1 = tt.addptr %x, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32> loc(#loc1)
    %acc = tt.load %x_1, %mask_0, %cst : tensor<1024x!tt.ptr<f32>> loc(#loc1)
)";
    std::string last = "%acc";
    for (int i = 0; i < 40; ++i) {
      std::string v = "%v_" + std::to_string(i);
      int l = ++loc;
      body += "    " + v + " = arith.mulf " + last + ", " + last + " : tensor<1024xf32> loc(#loc" + std::to_string(l) + ")\n";
      body += "    " + v + "_a = arith.addf " + v + ", %cst : tensor<1024xf32> loc(#loc" + std::to_string(l) + ")\n";
      body += "    " + v + "_c = arith.cmpf ogt, " + v + "_a, %cst : tensor<1024xf32> loc(#loc" + std::to_string(l) + ")\n";
      body += "    " + v + "_s = arith.select " + v + "_c, " + v + "_a, %cst : tensor<1024xi1>, tensor<1024xf32> loc(#loc" + std::to_string(l) + ")\n";
      aliases += "#loc" + std::to_string(l) + " = loc(\"v\"(#loc" + std::to_string(l) + "_p))\n";
      aliases += "#loc" + std::to_string(l) + "_p = loc(\"kernel.py\":" + std::to_string(l) + ":12)\n";
      last = v + "_s";
    }
    body += "    %r = scf.for %k = %c0_i32 to %n step %c1_i32 iter_args(%a = " + last + R"() -> (tensor<1024xf32>)  : i32 {
      %a_2 = arith.addf %a, %a : tensor<1024xf32> loc(#loc1)
      scf.yield %a_2 : tensor<1024xf32> loc(#loc1)
    } loc(#loc1)
    %s = "tt.reduce"(%r) <{axis = 0 : i32}> ({
    ^bb0(%s_3: f32 loc(unknown), %s_4: f32 loc(unknown)):
      %s_5 = arith.addf %s_3, %s_4 : f32 loc(#loc1)
      tt.reduce.return %s_5 : f32 loc(#loc1)
    }) : (tensor<1024xf32>) -> f32 loc(#loc1)
    tt.store %x_1, %r, %mask_0 : tensor<1024x!tt.ptr<f32>> loc(#loc1)
    tt.return loc(#loc1)
  } loc(#loc)
)";
  }
  return "#loc = loc(\"kernel.py\":1:0)\nmodule {\n" + body + "} loc(#loc)\n#loc1 = loc(unknown)\n" + aliases;
}

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main() {
  std::string text = generateModule(1 << 20);
  double mb = static_cast<double>(text.size()) / (1 << 20);
  double best = 1e9;
  size_t ops = 0;
  for (int run = 0; run < 5; ++run) {
    auto start = std::chrono::steady_clock::now();
    tilesim::ParseResult result = tilesim::parseModule(text, "generated.ttir");
    double t = seconds(start);
    if (!result.module) {
      std::fprintf(stderr, "parse failed: %s\n", result.diagnostics[0].str().c_str());
      return 1;
    }
    if (t < best) best = t;
    ops = 0;
    for (const auto& f : result.module->functions) tilesim::walk(*f, [&](const tilesim::Operation&) { ++ops; });
  }
  std::printf("generated module: %.2f MB, %zu ops, best of 5 parses: %.1f ms, %.1f MB/s\n", mb, ops, best * 1e3, mb / best);

  tilesim::ParseResult result = tilesim::parseModule(text, "generated.ttir");
  auto start = std::chrono::steady_clock::now();
  std::string printed = tilesim::printModule(*result.module);
  double t = seconds(start);
  std::printf("printing it back: %.1f ms, %.1f MB/s\n", t * 1e3, static_cast<double>(printed.size()) / (1 << 20) / t);

#ifdef TILESIM_SOURCE_DIR
  std::ifstream in(std::string(TILESIM_SOURCE_DIR) + "/conformance/probes/probes.json");
  if (in) {
    // Pull out the "ttir" strings without a JSON library: probes.json has bare NaN numbers JSON forbids.
    std::ostringstream buffer;
    buffer << in.rdbuf();
    std::string json = buffer.str();
    std::vector<std::string> texts;
    for (size_t at = json.find("\"ttir\": \""); at != std::string::npos; at = json.find("\"ttir\": \"", at)) {
      at += 9;
      std::string s;
      for (; at < json.size() && json[at] != '"'; ++at) {
        if (json[at] == '\\' && at + 1 < json.size()) {
          char e = json[++at];
          s += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        } else {
          s += json[at];
        }
      }
      texts.push_back(std::move(s));
    }
    size_t bytes = 0;
    int failed = 0;
    start = std::chrono::steady_clock::now();
    for (const std::string& s : texts) {
      bytes += s.size();
      if (!tilesim::parseModule(s, "probe").module) ++failed;
    }
    t = seconds(start);
    std::printf("probes: %zu modules, %.2f MB, %.1f ms, %.1f MB/s, %d failed\n", texts.size(),
                static_cast<double>(bytes) / (1 << 20), t * 1e3, static_cast<double>(bytes) / (1 << 20) / t, failed);
  }
#endif
  return 0;
}
