//===- tool/ToolHost.h - One loaded tool: its options, hooks and globals --===//
#ifndef LOOM_TOOL_TOOLHOST_H
#define LOOM_TOOL_TOOLHOST_H

#include "loom/instrument/Tool.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <mutex>
#include <optional>

namespace loom::tool {

/// LOOM_TOOL_ARGS: whitespace-separated NAME=VALUE (every tool) or
/// TOOL:NAME=VALUE (only the tool registered as TOOL).
class ToolOptions {
public:
  /// Parses \p Text; malformed words are reported through \p Warn.
  static ToolOptions parse(llvm::StringRef Text,
                           llvm::function_ref<void(llvm::StringRef)> Warn);
  std::optional<std::string> get(llvm::StringRef Tool,
                                 llvm::StringRef Name) const;

private:
  /// "" for options of every tool.
  std::map<std::string, std::map<std::string, std::string, std::less<>>,
           std::less<>>
      Values;
};

class ToolHost final : public instrument::ToolContext {
public:
  ToolHost(std::string Name, std::unique_ptr<instrument::Tool> T,
           std::string Library, const ToolOptions &Options)
      : Name(std::move(Name)), Library(std::move(Library)), T(std::move(T)),
        Options(Options) {}

  llvm::StringRef name() const { return Name; }

  /// Runs \p Fn(tool, context): the calls into one tool never overlap, so
  /// a tool needs no locks of its own (callbacks come from the program's
  /// threads, every queue's packet processor and the async handler thread).
  template <typename Fn> decltype(auto) call(Fn &&F) {
    std::lock_guard<std::recursive_mutex> L(CallLock);
    return F(*T, static_cast<instrument::ToolContext &>(*this));
  }

  /// The tool's hooks for \p Agent: compiled from its embedded bitcode for
  /// the agent's processor and loaded there (once per agent), with the
  /// addresses of its globals.
  llvm::Expected<const instrument::HookLibrary &> hooks(hsa_agent_t Agent);

  /// Destroys the executables of the hooks (at the runtime's end).
  void unloadHooks();

  /// The channel the tool opened in init, if it did.
  const std::optional<instrument::ChannelOptions> &channel() const {
    return Channel;
  }
  /// init has returned: the tool's channel is settled.
  void initialized() { Initialized = true; }

  // ToolContext.
  std::optional<std::string> option(llvm::StringRef Name) const override;
  using ToolContext::option;
  llvm::Expected<uint64_t> globalAddress(hsa_agent_t Agent,
                                         llvm::StringRef Global) override;
  llvm::Error readGlobal(hsa_agent_t Agent, llvm::StringRef Global,
                         uint64_t Offset, void *Out, size_t Bytes) override;
  llvm::Error writeGlobal(hsa_agent_t Agent, llvm::StringRef Global,
                          uint64_t Offset, const void *In,
                          size_t Bytes) override;
  using ToolContext::readGlobal;
  using ToolContext::writeGlobal;
  llvm::Error openChannel(const instrument::ChannelOptions &Options) override;

private:
  struct AgentHooks {
    instrument::HookLibrary Library;
    llvm::StringMap<uint64_t> Sizes; ///< of the globals, in bytes
    hsa_executable_t Exec{};
    std::string Error; ///< why there are none, once tried
  };
  /// The agent's hooks, loaded on first use; Lock held.
  llvm::Expected<AgentHooks &> agentHooks(hsa_agent_t Agent);
  llvm::Error loadHooks(hsa_agent_t Agent, AgentHooks &H);
  /// The embedded bitcode for \p Processor.
  llvm::Expected<llvm::StringRef> bitcodeFor(llvm::StringRef Processor);
  llvm::Expected<uint64_t> sizedGlobal(hsa_agent_t Agent,
                                       llvm::StringRef Global, size_t Bytes);

  std::string Name;
  std::string Library; ///< the tool's shared library, for its bitcode
  std::unique_ptr<instrument::Tool> T;
  const ToolOptions &Options;
  /// Recursive: a callback may call the HSA API, which may call back.
  std::recursive_mutex CallLock;
  std::mutex Lock; ///< PerAgent
  std::map<uint64_t, AgentHooks> PerAgent;
  std::optional<instrument::ChannelOptions> Channel;
  bool Initialized = false;
};

} // namespace loom::tool

#endif // LOOM_TOOL_TOOLHOST_H
