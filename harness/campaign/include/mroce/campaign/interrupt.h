// InterruptScope: while one lives, SIGINT, SIGTERM and SIGHUP do not end the process; they ask the running
// campaigns to stop (take no new task, let the running ones finish, keep every result). The
// handlers in place before come back when the last scope ends.
#pragma once

namespace mroce::campaign {

class InterruptScope {
 public:
  // The first live scope installs the handlers and forgets any earlier signal; scopes that overlap
  // it (campaigns on other threads) share its state.
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  // SIGINT, SIGTERM or SIGHUP arrived while scopes were live (async-signal-safe to ask).
  [[nodiscard]] static bool Interrupted();
  // Which signal arrived first (0: none).
  [[nodiscard]] static int Signal();
};

}  // namespace mroce::campaign
