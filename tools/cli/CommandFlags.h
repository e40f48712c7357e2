// A subcommand whose options are stored in one Flags object: the object is shared between the options (CLI11 keeps
// their targets' addresses) and the callback (which runs the command on it after parsing), so it outlives both.
// Every `add...Command` starts with it (addLaunchCommand for those that run a launch: run, trace, diff); what is
// left in each is the command's own options.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <utility>

namespace tilesim::cli {

// Adds subcommand `name` to `app` with a fresh Flags; after parsing, its callback stores `run(flags)` in `exitCode`.
template <typename Flags>
std::pair<CLI::App*, std::shared_ptr<Flags>> addCommandWithFlags(CLI::App& app, const char* name,
                                                                 const char* description, int (*run)(const Flags&),
                                                                 int& exitCode) {
  auto flags = std::make_shared<Flags>();
  CLI::App* command = app.add_subcommand(name, description);
  command->callback([flags, run, &exitCode] { exitCode = run(*flags); });
  return {command, flags};
}

// addCommandWithFlags for a command that runs a launch (Flags has `LaunchFlags launch`): the launch's options
// (target, --grid, --arg, ..., --engine, default `engine`) come first.
template <typename Flags>
std::pair<CLI::App*, std::shared_ptr<Flags>> addLaunchCommand(CLI::App& app, const char* name, const char* description,
                                                              int (*run)(const Flags&), int& exitCode,
                                                              const char* engine = "interp") {
  auto [command, flags] = addCommandWithFlags(app, name, description, run, exitCode);
  flags->launch.engine = engine;
  flags->launch.addTo(*command);
  return {command, flags};
}

}  // namespace tilesim::cli
