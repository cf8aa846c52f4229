// InterruptScope (see interrupt.h).
#include "mroce/campaign/interrupt.h"

#include <signal.h>

#include <atomic>
#include <mutex>

namespace mroce::campaign {
namespace {

static_assert(std::atomic<int>::is_always_lock_free, "the handler may only touch lock-free atomics");
std::atomic<int> g_signal{0};

std::mutex g_mu;  // guards the scope count and the saved handlers
int g_scopes = 0;
struct sigaction g_old_int {}, g_old_term {}, g_old_hup {};

extern "C" void OnStopSignal(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
}

}  // namespace

InterruptScope::InterruptScope() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_scopes++ > 0) return;
  g_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
  sigaction(SIGHUP, &sa, &g_old_hup);
}

InterruptScope::~InterruptScope() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (--g_scopes > 0) return;
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGHUP, &g_old_hup, nullptr);
}

bool InterruptScope::Interrupted() { return g_signal.load() != 0; }

int InterruptScope::Signal() { return g_signal.load(); }

}  // namespace mroce::campaign
