// A libFuzzer-compatible driver for compilers without -fsanitize=fuzzer (GCC): runs LLVMFuzzerTestOneInput on
// every seed, then on mutations of them (bit flips, byte changes, insertions, deletions, duplicated and repeated
// chunks, tokens taken from the seeds, extreme numbers, splices of two seeds) until a time or run limit.
// Deterministic for a given --seed. A crash under ASan/UBSan (or a failed property) writes the input that
// caused it to --crash-file (default fuzz-crash.bin) before the process dies; `DRIVER FILE` replays one file.
//   ttgir_fuzz --seconds 10 [--runs N] [--seed S] [--max-len BYTES] [--crash-file F] SEED_FILE_OR_DIR...
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/targets/FuzzTarget.h"

extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace {

std::string currentInput;
std::string crashFile = "fuzz-crash.bin";

void dumpCurrentInput() {
  const int fd = ::open(crashFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  size_t done = 0;
  while (done < currentInput.size()) {
    const ssize_t n = ::write(fd, currentInput.data() + done, currentInput.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  const char note[] = "fuzz driver: the failing input was written to the --crash-file\n";
  (void)!::write(2, note, sizeof note - 1);
}

void onSignal(int signal) {
  dumpCurrentInput();
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Tokens of the seeds (runs of letters/digits/_.#%$, and punctuation pairs) to insert as they are.
std::vector<std::string> dictionaryOf(const std::vector<std::string>& seeds) {
  std::vector<std::string> tokens;
  for (const std::string& seed : seeds) {
    size_t i = 0;
    while (i < seed.size() && tokens.size() < 20000) {
      size_t start = i;
      while (i < seed.size() && (std::isalnum(static_cast<unsigned char>(seed[i])) || std::strchr("_.#%$", seed[i]))) ++i;
      if (i > start) tokens.push_back(seed.substr(start, i - start));
      else tokens.push_back(seed.substr(i++, 1));
    }
  }
  for (const char* extreme : {"0", "-1", "-0", "4294967296", "2147483648", "9223372036854775807", "9223372036854775808",
                              "-9223372036854775809", "99999999999999999999999", "1e309", "nan", "inf", "{}", "[]",
                              "<>", "()", "\"", "\\", "\n", "\0", ",", ";", "$0", "$99", "{{{{", "[[[["})
    tokens.emplace_back(extreme, std::strlen(extreme) == 0 ? 1 : std::strlen(extreme));
  return tokens;
}

struct Mutator {
  std::mt19937_64 random;
  const std::vector<std::string>& seeds;
  const std::vector<std::string>& tokens;
  size_t maxLength;

  size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(random() % n); }

  void mutateOnce(std::string& text) {
    const size_t at = below(text.size() + 1);
    switch (below(10)) {
      case 0: if (!text.empty()) text[below(text.size())] ^= static_cast<char>(1u << below(8)); break;
      case 1: if (!text.empty()) text[below(text.size())] = static_cast<char>(random()); break;
      case 2: text.insert(at, 1 + below(8), static_cast<char>(random())); break;
      case 3: if (!text.empty()) text.erase(below(text.size()), 1 + below(std::min<size_t>(text.size(), 64))); break;
      case 4: {  // duplicate a chunk
        if (text.empty()) break;
        const size_t from = below(text.size()), length = 1 + below(std::min<size_t>(text.size() - from, 256));
        text.insert(at, text.substr(from, length));
        break;
      }
      case 5: case 6: text.insert(at, tokens[below(tokens.size())]); break;
      case 7: {  // replace a number with a token
        size_t digit = text.find_first_of("0123456789", below(text.size() + 1));
        if (digit == std::string::npos) break;
        size_t end = text.find_first_not_of("0123456789", digit);
        text.replace(digit, (end == std::string::npos ? text.size() : end) - digit, tokens[tokens.size() - 1 - below(26)]);
        break;
      }
      case 8: {  // repeat a small chunk many times: long lines, deep nesting, many declarations
        if (text.empty()) break;
        const size_t from = below(text.size()), length = 1 + below(std::min<size_t>(text.size() - from, 32));
        const std::string chunk = text.substr(from, length);
        const size_t times = 1 + below(1 + maxLength / (4 * chunk.size() + 1));
        std::string repeated;
        for (size_t i = 0; i < times && repeated.size() < maxLength; ++i) repeated += chunk;
        text.insert(at, repeated);
        break;
      }
      case 9: {  // splice with another seed, or truncate
        if (below(2) == 0) text.resize(at);
        else {
          const std::string& other = seeds[below(seeds.size())];
          text = text.substr(0, at) + other.substr(below(other.size() + 1));
        }
        break;
      }
    }
    if (text.size() > maxLength) text.resize(maxLength);
  }
};

void runOne(const std::string& input) {
  currentInput = input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(currentInput.data()), currentInput.size());
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10;
  long long runs = -1;
  uint64_t seed = 1;
  size_t maxLength = 1 << 16;
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--seconds") seconds = std::atof(value().c_str());
    else if (arg == "--runs") runs = std::atoll(value().c_str());
    else if (arg == "--seed") seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (arg == "--max-len") maxLength = std::strtoull(value().c_str(), nullptr, 10);
    else if (arg == "--crash-file") crashFile = value();
    else inputs.emplace_back(arg);
  }
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(dumpCurrentInput);
  for (int signal : {SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT}) std::signal(signal, onSignal);

  std::vector<std::string> seeds;
  for (const auto& input : inputs) {
    std::error_code error;
    if (std::filesystem::is_directory(input, error)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::recursive_directory_iterator(input, error))
        if (entry.is_regular_file()) files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      for (const auto& file : files) seeds.push_back(readFile(file));
    } else {
      seeds.push_back(readFile(input));
    }
  }
  if (seeds.empty()) seeds.emplace_back();
  for (const std::string& input : seeds) runOne(input);
  // A single file and no limits: replay it and stop.
  if (inputs.size() == 1 && !std::filesystem::is_directory(inputs[0]) && runs < 0 && seconds <= 0) return 0;

  const std::vector<std::string> tokens = dictionaryOf(seeds);
  Mutator mutator{std::mt19937_64(seed), seeds, tokens, maxLength};
  const auto start = std::chrono::steady_clock::now();
  long long done = 0;
  std::vector<std::string> pool = seeds;  // seeds and a window of recent mutants, so mutations stack
  for (; runs < 0 || done < runs; ++done) {
    if (runs < 0 && (done & 63) == 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= seconds)
      break;
    std::string text = pool[mutator.below(pool.size())];
    const size_t steps = 1 + mutator.below(4);
    for (size_t s = 0; s < steps; ++s) mutator.mutateOnce(text);
    runOne(text);
    if (pool.size() < seeds.size() + 256) pool.push_back(std::move(text));
    else pool[seeds.size() + mutator.below(256)] = std::move(text);
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: %lld inputs (%zu seeds + %lld mutants) in %.1f s, no failure\n", argv[0], done + static_cast<long long>(seeds.size()),
              seeds.size(), done, elapsed);
  return 0;
}
