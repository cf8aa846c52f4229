#include "mroce/impairment/stage.h"

#include <cstdio>

namespace mroce::impairment {

const char* PositionName(Position p) {
  switch (p) {
    case Position::kBlackhole: return "blackhole";
    case Position::kTargetedDrop: return "targeted-drop";
    case Position::kLoss: return "loss";
    case Position::kCorrupt: return "corrupt";
    case Position::kDuplicate: return "duplicate";
    case Position::kRateLimit: return "rate-limit";
    case Position::kDelay: return "delay";
    case Position::kReorder: return "reorder";
  }
  return "?";
}

bool Match::Matches(const Packet& p) const {
  if (direction && p.direction != *direction) return false;
  if (plane && p.plane != *plane) return false;
  if (IsAnyHeaderField()) {
    const PacketInfo& i = p.Info();
    if (sport && (!i.ip || i.sport != *sport)) return false;
    const bool need_meta = metaroce_only || path_id || opcode || stream_id || psn || rtx;
    if (need_meta && !i.meta) return false;
    if (path_id && i.path_id != *path_id) return false;
    if (opcode && i.opcode != *opcode) return false;
    if (stream_id && (!i.has_stream || i.stream_id != *stream_id)) return false;
    if (psn && i.psn != *psn) return false;
    if (rtx && ((i.flags & (1u << 14)) != 0) != *rtx) return false;
  }
  return true;
}

bool Match::IsAnyHeaderField() const {
  return sport || metaroce_only || path_id || opcode || stream_id || psn || rtx;
}

bool Match::IsAny() const { return !direction && !plane && !IsAnyHeaderField(); }

std::string Match::ToString() const {
  if (IsAny()) return "any";
  std::string s;
  auto add = [&s](const std::string& kv) { s += (s.empty() ? "" : " ") + kv; };
  if (direction) add(std::string("dir=") + DirectionName(*direction));
  if (plane) add("plane=" + std::to_string(*plane));
  if (path_id) add("path=" + std::to_string(*path_id));
  if (sport) add("sport=" + std::to_string(*sport));
  if (opcode) add("opcode=" + std::to_string(*opcode));
  if (stream_id) add("stream=" + std::to_string(*stream_id));
  if (psn) add("psn=" + std::to_string(*psn));
  if (rtx) add(std::string("rtx=") + (*rtx ? "1" : "0"));
  if (metaroce_only) add("metaroce");
  return s;
}

static std::string FormatValue(double v, const std::string& unit) {
  char buf[64];
  if (unit == "%") std::snprintf(buf, sizeof buf, "%.2f%%", v * 100.0);
  else if (unit.empty()) std::snprintf(buf, sizeof buf, "%.3g", v);
  else std::snprintf(buf, sizeof buf, "%.6g %s", v, unit.c_str());
  return buf;
}

std::string StageStats::ToString() const {
  std::string s = stage + " (" + kind + "): ";
  bool first = true;
  for (const StatLine& l : lines) {
    if (!first) s += "; ";
    first = false;
    if (l.has_configured) s += "configured " + l.metric + " " + FormatValue(l.configured, l.unit) + ", achieved ";
    else s += l.metric + " ";
    s += FormatValue(l.achieved, l.unit);
  }
  s += (lines.empty() ? "" : " ") + std::string("over ") + std::to_string(considered) + " packets";
  s += " (in " + std::to_string(packets_in) + ", out " + std::to_string(packets_out) + ", dropped " +
       std::to_string(dropped);
  if (marked) s += ", marked " + std::to_string(marked);
  if (duplicated) s += ", duplicated " + std::to_string(duplicated);
  if (corrupted) s += ", corrupted " + std::to_string(corrupted);
  s += ")";
  return s;
}

const StatLine* StageStats::Line(const std::string& metric) const {
  for (const StatLine& l : lines)
    if (l.metric == metric) return &l;
  return nullptr;
}

StageStats Stage::Stats() const {
  StageStats s;
  s.stage = name_;
  s.packets_in = packets_in_;
  s.considered = considered_;
  s.packets_out = packets_out_;
  s.dropped = dropped_;
  s.marked = marked_;
  s.duplicated = duplicated_;
  s.corrupted = corrupted_;
  FillStats(s);
  return s;
}

}  // namespace mroce::impairment
