// The JSON-lines control protocol between the harness and a process DUT (docs/process-protocol.md).
//
// One JSON object per line, UTF-8, in both directions over the process's stdin (requests) and
// stdout (replies and events):
//   request   {"id": 7, "op": "post_write", ...arguments}
//   reply     {"id": 7, "ok": true, ...results}  or  {"id": 7, "ok": false, "error": {"code", "message"}}
//   event     {"event": "completion", ...} / {"event": "conn", ...}   (unsolicited, any time)
// Numbers are exact unsigned integers (64-bit where the field is); buffer bytes are base64.
//
// Both ends use these codecs: the harness (ProcessDut) to encode requests and decode what the DUT
// says, mroce-refd to decode requests and encode replies. Every decoder reads untrusted bytes and
// names the field that is wrong ("completion.status: unknown status 'fine'").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mroce/dut/dut.h"

namespace mroce::dut::jsonl {

using nlohmann::json;

inline constexpr int kProtocolVersion = 1;
inline constexpr std::string_view kProtocolName = "mroce-dut-jsonl";
// Longest line either side accepts (a 16 MiB buffer read back in base64, plus slack).
inline constexpr size_t kMaxLineBytes = 32u << 20;

[[nodiscard]] std::string Base64Encode(std::span<const uint8_t> bytes);
[[nodiscard]] Result<std::vector<uint8_t>> Base64Decode(std::string_view text);

[[nodiscard]] std::string MacToString(const wire::MacAddress& mac);
[[nodiscard]] Result<wire::MacAddress> ParseMac(std::string_view text);
[[nodiscard]] std::string Ipv4ToString(const wire::Ipv4Address& ip);
[[nodiscard]] Result<wire::Ipv4Address> ParseIpv4(std::string_view text);

// Parses one line as a JSON object; errors say what is wrong and quote the start of the line.
[[nodiscard]] Result<json> ParseLine(std::string_view line);

// Reads typed fields of one object; the first problem is kept and names "<where>.<key>".
class Fields {
 public:
  Fields(const json& obj, std::string where);
  [[nodiscard]] uint64_t U64(const char* key, uint64_t max = UINT64_MAX);
  [[nodiscard]] std::optional<uint64_t> OptU64(const char* key, uint64_t max = UINT64_MAX);
  [[nodiscard]] std::string Str(const char* key);
  [[nodiscard]] bool Bool(const char* key, bool fallback);
  [[nodiscard]] const json* Obj(const char* key, bool required = true);
  [[nodiscard]] const json* Arr(const char* key, bool required = true);
  void Fail(const std::string& key, const std::string& what);
  [[nodiscard]] bool ok() const { return error_.empty(); }
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] Error ToError(std::string code = "dut.protocol") const { return MakeError(std::move(code), error_); }

 private:
  const json* Field(const char* key, bool required);
  const json& obj_;
  std::string where_;
  std::string error_;
};

[[nodiscard]] json CapsToJson(const Capabilities& caps);
[[nodiscard]] Result<Capabilities> CapsFromJson(const json& j);
[[nodiscard]] json HostConfigToJson(const HostConfig& c);
[[nodiscard]] Result<HostConfig> HostConfigFromJson(const json& j);
[[nodiscard]] json BufferToJson(const Buffer& b);
[[nodiscard]] Result<Buffer> BufferFromJson(const json& j);
[[nodiscard]] json AccessToJson(uint32_t access);
[[nodiscard]] Result<uint32_t> AccessFromJson(const json& j);
[[nodiscard]] json OobToJson(const OobInfo& oob);
[[nodiscard]] Result<OobInfo> OobFromJson(const json& j);
[[nodiscard]] json PeerToJson(const PeerInfo& p);
[[nodiscard]] Result<PeerInfo> PeerFromJson(const json& j);
// Events (with their "event" member).
[[nodiscard]] json CompletionEvent(const Completion& c);
[[nodiscard]] Result<Completion> CompletionFromJson(const json& j);
[[nodiscard]] json ConnEventToJson(const ConnEvent& e);
[[nodiscard]] Result<ConnEvent> ConnEventFromJson(const json& j);
[[nodiscard]] json CountersToJson(const std::vector<Counter>& counters);
[[nodiscard]] Result<std::vector<Counter>> CountersFromJson(const json& j);

[[nodiscard]] std::optional<OpKind> OpKindFromName(std::string_view name);
[[nodiscard]] std::optional<OpStatus> OpStatusFromName(std::string_view name);
[[nodiscard]] std::optional<ConnEventKind> ConnEventKindFromName(std::string_view name);

// A reply: {"id": id, "ok": true} merged with `results`, or the error form.
[[nodiscard]] json OkReply(uint64_t id, json results = json::object());
[[nodiscard]] json ErrorReply(uint64_t id, const Error& e);

}  // namespace mroce::dut::jsonl
