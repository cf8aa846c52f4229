// `mroce-cts list [--suite DIR] [--filter GLOB] [--json]`: the cases of a suite, sorted by id.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "command.h"
#include "mroce/harness/expectations.h"

namespace mroce::cli {
namespace {

class ListCommand : public Command {
 public:
  void Configure(CLI::App& sub) override {
    suite_ = DefaultSuite();
    sub.add_option("--suite", suite_, "Suite directory (or one case file)")->capture_default_str();
    sub.add_option("--filter", filter_, "Only cases whose id matches this glob");
    sub.add_option("--catalog", catalog_, "Clause catalog (clauses.json); found next to the suite by default");
    sub.add_flag("--json", json_, "Print a JSON array instead of a table");
  }

  int Run(std::ostream& out, std::ostream& err) override {
    harness::Catalog catalog;
    auto cases = LoadSuite(suite_, catalog_, &catalog, err);
    if (!cases) return harness::kExitUsage;
    std::vector<const harness::Case*> selected;
    for (const harness::Case& c : *cases) {
      if (filter_.empty() || harness::GlobMatch(filter_, c.id)) selected.push_back(&c);
    }
    if (json_) {
      nlohmann::ordered_json arr = nlohmann::ordered_json::array();
      for (const harness::Case* c : selected) {
        nlohmann::ordered_json clauses = nlohmann::ordered_json::array();
        for (const auto& ref : c->clauses) clauses.push_back({{"id", ref.id}, {"level", std::string(harness::ToString(ref.level))}});
        arr.push_back({{"id", c->id},
                       {"title", c->title},
                       {"level", std::string(harness::ToString(c->level()))},
                       {"style", std::string(harness::ToString(c->style))},
                       {"clauses", clauses},
                       {"requires", c->requires_caps},
                       {"features", c->FeaturesUsed()},
                       {"tags", c->tags},
                       {"file", c->where.file}});
      }
      out << arr.dump(2) << "\n";
      return harness::kExitOk;
    }
    size_t width = 2;
    for (const harness::Case* c : selected) width = std::max(width, c->id.size());
    for (const harness::Case* c : selected) {
      std::string level(harness::ToString(c->level()));
      std::string style(harness::ToString(c->style));
      out << c->id << std::string(width - c->id.size() + 2, ' ') << level << std::string(8 - level.size(), ' ')
          << style << std::string(12 - style.size(), ' ') << c->title << "\n";
    }
    out << selected.size() << " case(s)\n";
    return harness::kExitOk;
  }

 private:
  std::string suite_;
  std::string filter_;
  std::string catalog_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<Command> MakeListCommand() { return std::make_unique<ListCommand>(); }

}  // namespace mroce::cli
