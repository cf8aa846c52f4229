// Certification packages (see package.h), written and read with libarchive (libarchive-dev).
#include "mroce/campaign/package.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <array>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "mroce/campaign/sha256.h"
#include "mroce/campaign/tool_version.h"

namespace mroce::campaign {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr size_t kChunk = 64 * 1024;
constexpr uint64_t kMaxHeldBytes = 64ull << 20;  // manifest.json, report.json, SHA256SUMS
constexpr char kSuffix[] = ".tar.zst";

struct FileDigest {
  std::string path;  // Relative to the run directory, '/' separators.
  uint64_t size = 0;
  std::string sha256;
};

// j[key] when j is an object holding a value of T's JSON type there, else `otherwise` (a package or
// run directory is untrusted input: a wrong type is not an exception).
bool Bool(const Json& j, const char* key, bool otherwise) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : otherwise;
}
int Int(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number_integer() ? j[key].get<int>() : 0;
}
std::string Text(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}
const Json& Object(const Json& j, const char* key) {
  static const Json kEmpty = Json::object();
  return j.is_object() && j.contains(key) && j[key].is_object() ? j[key] : kEmpty;
}

// The claim a report.json makes, as the manifest copies it.
Json RunOf(const Json& report) {
  Json run = Json::object();
  for (const char* key : {"suite_digest", "suite_version", "tool_version", "dut", "seed", "selection", "incomplete", "summary"}) {
    if (report.contains(key)) run[key] = report[key];
  }
  return run;
}

// "2026-12-04T12:24:44Z" -> seconds since the epoch (0 when it is not one).
time_t ParseUtc(const std::string& s) {
  std::tm tm{};
  if (strptime(s.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) == nullptr) return 0;
  return timegm(&tm);
}

std::string Sums(const std::vector<FileDigest>& files) {
  std::string out;
  for (const FileDigest& f : files) out += f.sha256 + "  " + f.path + "\n";
  return out;
}

using ArchivePtr = std::unique_ptr<struct archive, int (*)(struct archive*)>;
using EntryPtr = std::unique_ptr<struct archive_entry, void (*)(struct archive_entry*)>;

class Writer {
 public:
  explicit Writer(time_t mtime) : a_(archive_write_new(), archive_write_free), mtime_(mtime) {}

  Status Open(const std::string& path) {
    if (archive_write_add_filter_zstd(a_.get()) != ARCHIVE_OK || archive_write_set_format_pax_restricted(a_.get()) != ARCHIVE_OK ||
        archive_write_open_filename(a_.get(), path.c_str()) != ARCHIVE_OK) {
      return Fail(path);
    }
    return {};
  }
  Status Dir(const std::string& name) { return Header(name + "/", AE_IFDIR, 0755, 0); }
  // A file of the run, streamed from disk and hashed on the way.
  Status File(const std::string& name, const fs::path& from, FileDigest* d) {
    std::ifstream in(from, std::ios::binary);
    if (!in) return MakeError("package.read", from.string() + ": cannot read");
    std::error_code ec;
    const uint64_t size = fs::file_size(from, ec);
    if (ec) return MakeError("package.read", from.string() + ": " + ec.message());
    if (Status s = Header(name, AE_IFREG, 0644, size); !s.ok()) return s;
    Sha256 h;
    std::array<char, kChunk> buf;
    uint64_t total = 0;
    while (in) {
      in.read(buf.data(), buf.size());
      const std::streamsize n = in.gcount();
      if (n <= 0) break;
      total += static_cast<uint64_t>(n);
      if (total > size) break;
      h.Update(std::string_view(buf.data(), static_cast<size_t>(n)));
      if (archive_write_data(a_.get(), buf.data(), static_cast<size_t>(n)) != n) return Fail(name);
    }
    if (total != size) return MakeError("package.read", from.string() + ": changed size while it was being packaged");
    d->size = size;
    d->sha256 = h.HexDigest();
    return {};
  }
  Status Bytes(const std::string& name, const std::string& bytes) {
    if (Status s = Header(name, AE_IFREG, 0644, bytes.size()); !s.ok()) return s;
    if (archive_write_data(a_.get(), bytes.data(), bytes.size()) != static_cast<la_ssize_t>(bytes.size())) return Fail(name);
    return {};
  }
  Status Close(const std::string& path) {
    if (archive_write_close(a_.get()) != ARCHIVE_OK) return Fail(path);
    return {};
  }

 private:
  Status Header(const std::string& name, unsigned type, int perm, uint64_t size) {
    EntryPtr e(archive_entry_new(), archive_entry_free);
    archive_entry_set_pathname(e.get(), name.c_str());
    archive_entry_set_filetype(e.get(), type);
    archive_entry_set_perm(e.get(), static_cast<mode_t>(perm));
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(size));
    archive_entry_set_mtime(e.get(), mtime_, 0);
    archive_entry_set_uid(e.get(), 0);
    archive_entry_set_gid(e.get(), 0);
    if (archive_write_header(a_.get(), e.get()) != ARCHIVE_OK) return Fail(name);
    return {};
  }
  Status Fail(const std::string& what) {
    const char* why = archive_error_string(a_.get());
    return MakeError("package.write", what + ": " + (why != nullptr ? why : "libarchive error"));
  }

  ArchivePtr a_;
  time_t mtime_;
};

Result<Json> ReadJson(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return MakeError("package.report", p.string() + ": cannot read (a run directory holds report.json)");
  Json j = Json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return MakeError("package.report", p.string() + ": not a JSON object");
  return j;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool SafeRelative(const std::string& p) {
  if (p.empty() || p.front() == '/') return false;
  for (const auto& part : fs::path(p)) {
    if (part == "..") return false;
  }
  return true;
}

}  // namespace

Result<PackageSummary> WritePackage(const std::string& run_dir, const std::string& out, bool overwrite) {
  if (!EndsWith(out, kSuffix) || fs::path(out).filename().string().size() <= std::string(kSuffix).size()) {
    return MakeError("package.name", out + ": the package name must end in .tar.zst (e.g. vendor-rev.tar.zst)");
  }
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) return MakeError("package.run", run_dir + ": not a run directory");
  auto report = ReadJson(fs::path(run_dir) / "report.json");
  if (!report.ok()) return report.error();
  if (Text(*report, "schema") != "mroce-cts/report/v1") {
    return MakeError("package.report", (fs::path(run_dir) / "report.json").string() + ": schema is not mroce-cts/report/v1");
  }
  if (fs::exists(out, ec) && !overwrite) return MakeError("package.exists", out + ": exists (give --force to replace it)");
  const fs::path out_abs = fs::absolute(out, ec);

  // Every regular file of the run, sorted; anything else is refused by name.
  std::vector<std::string> files;
  std::set<std::string> dirs;
  for (auto it = fs::recursive_directory_iterator(run_dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path rel = fs::relative(it->path(), run_dir, ec);
    if (it->is_symlink(ec)) return MakeError("package.run", it->path().string() + ": a symbolic link (a package holds regular files only)");
    if (it->is_directory(ec)) {
      dirs.insert(rel.generic_string());
      continue;
    }
    if (!it->is_regular_file(ec)) return MakeError("package.run", it->path().string() + ": not a regular file");
    if (fs::equivalent(it->path(), out_abs, ec)) continue;  // the package itself, written into the run
    files.push_back(rel.generic_string());
  }
  if (ec) return MakeError("package.run", run_dir + ": " + ec.message());
  std::sort(files.begin(), files.end());

  PackageSummary sum;
  sum.path = out;
  sum.name = fs::path(out).filename().string();
  sum.name.resize(sum.name.size() - std::string(kSuffix).size());
  const Json& summary = Object(*report, "summary");
  sum.conformant = Bool(summary, "conformant", false);
  sum.partial = Bool(summary, "partial", false);
  sum.incomplete = Bool(*report, "incomplete", true);
  sum.suite_digest = Text(*report, "suite_digest");

  const std::string tmp = out + ".partial";
  Writer w(ParseUtc(Text(*report, "finished_at")));
  auto fail = [&](const Error& e) -> Result<PackageSummary> {
    fs::remove(tmp, ec);
    return e;
  };
  if (Status s = w.Open(tmp); !s.ok()) return fail(s.error());
  if (Status s = w.Dir(sum.name); !s.ok()) return fail(s.error());
  for (const std::string& d : dirs) {
    if (Status s = w.Dir(sum.name + "/" + d); !s.ok()) return fail(s.error());
  }
  std::vector<FileDigest> digests;
  for (const std::string& f : files) {
    FileDigest d;
    d.path = f;
    if (Status s = w.File(sum.name + "/" + f, fs::path(run_dir) / f, &d); !s.ok()) return fail(s.error());
    sum.bytes += d.size;
    digests.push_back(d);
  }
  Json manifest = {{"schema", kPackageSchema}, {"packaged_by", ToolVersion()}, {"run", RunOf(*report)}, {"files", Json::array()}};
  for (const FileDigest& d : digests) manifest["files"].push_back({{"path", d.path}, {"size", d.size}, {"sha256", d.sha256}});
  if (Status s = w.Bytes(sum.name + "/manifest.json", manifest.dump(2) + "\n"); !s.ok()) return fail(s.error());
  if (Status s = w.Bytes(sum.name + "/SHA256SUMS", Sums(digests)); !s.ok()) return fail(s.error());
  if (Status s = w.Close(tmp); !s.ok()) return fail(s.error());
  fs::rename(tmp, out, ec);
  if (ec) return fail(MakeError("package.write", out + ": " + ec.message()));
  sum.files = static_cast<int>(digests.size());
  return sum;
}

Result<PackageCheck> CheckPackage(const std::string& path) {
  ArchivePtr a(archive_read_new(), archive_read_free);
  archive_read_support_filter_zstd(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), kChunk) != ARCHIVE_OK) {
    const char* why = archive_error_string(a.get());
    return MakeError("package.open", path + ": " + (why != nullptr ? why : "cannot open"));
  }
  PackageCheck out;
  std::map<std::string, FileDigest> seen;  // relative path -> what the archive holds
  std::map<std::string, std::string> held;  // manifest.json, report.json, SHA256SUMS
  std::vector<std::string>& problems = out.problems;
  struct archive_entry* e = nullptr;
  int r = ARCHIVE_OK;
  std::array<char, kChunk> buf;
  while ((r = archive_read_next_header(a.get(), &e)) == ARCHIVE_OK) {
    std::string name = archive_entry_pathname(e) != nullptr ? archive_entry_pathname(e) : "";
    const bool dir = archive_entry_filetype(e) == AE_IFDIR;
    if (dir && !name.empty() && name.back() == '/') name.pop_back();
    if (!SafeRelative(name)) {
      problems.push_back(name + ": an absolute or '..' path (a package's files lie below its top directory)");
      continue;
    }
    const size_t slash = name.find('/');
    const std::string top = name.substr(0, slash);
    if (out.name.empty()) out.name = top;
    if (top != out.name) {
      problems.push_back(name + ": outside the package's top directory " + out.name + "/");
      continue;
    }
    if (dir) continue;
    const std::string rel = slash == std::string::npos ? "" : name.substr(slash + 1);
    if (archive_entry_filetype(e) != AE_IFREG || rel.empty()) {
      problems.push_back(name + ": not a regular file (a package holds regular files only)");
      continue;
    }
    if (seen.count(rel)) {
      problems.push_back(rel + ": in the package twice");
      continue;
    }
    const bool hold = rel == "manifest.json" || rel == "report.json" || rel == "SHA256SUMS";
    Sha256 h;
    FileDigest d;
    d.path = rel;
    std::string bytes;
    la_ssize_t n = 0;
    while ((n = archive_read_data(a.get(), buf.data(), buf.size())) > 0) {
      h.Update(std::string_view(buf.data(), static_cast<size_t>(n)));
      d.size += static_cast<uint64_t>(n);
      if (hold && d.size <= kMaxHeldBytes) bytes.append(buf.data(), static_cast<size_t>(n));
    }
    if (n < 0) {
      const char* why = archive_error_string(a.get());
      return MakeError("package.read", path + ": " + name + ": " + (why != nullptr ? why : "cannot read"));
    }
    d.sha256 = h.HexDigest();
    if (hold) {
      if (d.size > kMaxHeldBytes) return MakeError("package.read", path + ": " + rel + " is larger than 64 MiB");
      held[rel] = std::move(bytes);
    }
    seen[rel] = d;
  }
  if (r != ARCHIVE_EOF) {
    const char* why = archive_error_string(a.get());
    return MakeError("package.read", path + ": " + (why != nullptr ? why : "not a zstd-compressed tar"));
  }
  if (!held.count("manifest.json")) return MakeError("package.manifest", path + ": no manifest.json in the package's top directory");
  const Json manifest = Json::parse(held["manifest.json"], nullptr, false);
  if (manifest.is_discarded() || !manifest.is_object() || Text(manifest, "schema") != kPackageSchema ||
      !manifest.contains("files") || !manifest["files"].is_array()) {
    return MakeError("package.manifest", path + ": manifest.json is not a " + std::string(kPackageSchema) + " manifest");
  }

  // Every listed file present with its size and digest; nothing unlisted.
  std::vector<FileDigest> listed;
  std::set<std::string> names;
  for (const Json& f : manifest["files"]) {
    FileDigest d;
    if (!f.is_object() || !f.contains("path") || !f["path"].is_string() || !f.contains("size") ||
        !f["size"].is_number_unsigned() || !f.contains("sha256") || !f["sha256"].is_string()) {
      return MakeError("package.manifest", path + ": manifest.json: a files entry without path, size and sha256");
    }
    d.path = f["path"].get<std::string>();
    d.size = f["size"].get<uint64_t>();
    d.sha256 = f["sha256"].get<std::string>();
    listed.push_back(d);
    names.insert(d.path);
    ++out.files;
    out.bytes += d.size;
    auto it = seen.find(d.path);
    if (it == seen.end()) {
      problems.push_back(d.path + ": listed in the manifest, missing from the package");
    } else if (it->second.size != d.size) {
      problems.push_back(d.path + ": " + std::to_string(it->second.size) + " bytes, the manifest says " + std::to_string(d.size));
    } else if (it->second.sha256 != d.sha256) {
      problems.push_back(d.path + ": SHA-256 " + it->second.sha256 + ", the manifest says " + d.sha256);
    }
  }
  for (const auto& [rel, d] : seen) {
    if (rel != "manifest.json" && rel != "SHA256SUMS" && !names.count(rel)) problems.push_back(rel + ": in the package, not in the manifest");
  }
  if (!held.count("SHA256SUMS")) {
    problems.push_back("SHA256SUMS: missing");
  } else if (held["SHA256SUMS"] != Sums(listed)) {
    problems.push_back("SHA256SUMS: does not list the manifest's files and digests");
  }

  // The claim, from report.json (and the manifest's copy of it).
  if (!held.count("report.json")) {
    problems.push_back("report.json: missing (a package holds a run directory)");
    return out;
  }
  const Json report = Json::parse(held["report.json"], nullptr, false);
  if (report.is_discarded() || !report.is_object()) {
    problems.push_back("report.json: not a JSON object");
    return out;
  }
  if (!manifest.contains("run") || manifest["run"] != RunOf(report)) {
    problems.push_back("manifest.json: its \"run\" is not what report.json says");
  }
  const Json& summary = Object(report, "summary");
  out.conformant = Bool(summary, "conformant", false);
  out.partial = Bool(summary, "partial", false);
  if (summary.contains("partial_reasons") && summary["partial_reasons"].is_array()) {
    for (const Json& why : summary["partial_reasons"]) {
      if (why.is_string()) out.partial_reasons.push_back(why.get<std::string>());
    }
  }
  out.must_pass = Int(summary, "must_pass");
  out.must_total = Int(summary, "must_total");
  out.total = Int(summary, "total");
  out.incomplete = Bool(report, "incomplete", true);
  out.suite_digest = Text(report, "suite_digest");
  out.tool_version = Text(report, "tool_version");
  out.dut = Text(Object(report, "dut"), "identity");
  return out;
}

}  // namespace mroce::campaign
