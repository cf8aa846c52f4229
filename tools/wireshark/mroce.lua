-- Wireshark dissector for MetaRoCE v1 (RDMA over lossy multipath Ethernet), UDP port 4797.
--
-- Written from docs/spec/wire-format-decisions.md. Decodes the common header (CH), every opcode
-- header (MEH, ACKH, NAKH, CMH, PRH), the payload and the CRC-32 trailer, which it verifies
-- (field mroce.crc.status, expert info mroce.crc.bad on mismatch).
--
-- Use:  tshark -X lua_script:tools/wireshark/mroce.lua -r trace.pcap -V
--   or: copy to ~/.local/lib/wireshark/plugins/ (Wireshark >= 3.x, Lua 5.2).
-- The UDP port is a preference (Edit > Preferences > Protocols > MROCE, or -o mroce.udp_port:N).

local mroce = Proto("mroce", "MetaRoCE")

local OPCODES = {
  [0x01] = "WRITE", [0x02] = "WRITE_IMM", [0x03] = "SEND", [0x04] = "SEND_IMM",
  [0x05] = "READ_REQ", [0x06] = "READ_RESP",
  [0x10] = "ACK", [0x11] = "NACK",
  [0x20] = "CONNECT_REQ", [0x21] = "CONNECT_ACK", [0x22] = "CONNECT_REJ",
  [0x23] = "DISCONNECT", [0x24] = "DISCONNECT_ACK",
  [0x30] = "PROBE", [0x31] = "PROBE_ACK",
}
local NACK_CODES = {
  [0x01] = "PSN_OUT_OF_WINDOW", [0x02] = "INVALID_CONN", [0x03] = "RNR",
  [0x04] = "REMOTE_ACCESS", [0x05] = "INVALID_REQUEST", [0x06] = "RESOURCE",
  [0x07] = "REMOTE_OP_ERROR",
}
local CM_REASONS = {
  [0x00] = "none", [0x01] = "VERSION_UNSUPPORTED", [0x02] = "NO_RESOURCES",
  [0x03] = "INVALID_PARAMS", [0x10] = "NORMAL", [0x11] = "ERROR",
}
local CRC_STATUS = { [0] = "Bad", [1] = "Good", [2] = "Unverified" }

local CH_LEN, CRC_LEN = 16, 4
-- Opcode header length by opcode.
local EXT_LEN = {}
for op = 0x01, 0x06 do EXT_LEN[op] = 40 end
EXT_LEN[0x10] = 48
EXT_LEN[0x11] = 16
for op = 0x20, 0x24 do EXT_LEN[op] = 32 end
EXT_LEN[0x30] = 16
EXT_LEN[0x31] = 16

local F = ProtoField
local f = {
  -- Common header
  ch = F.none("mroce.ch", "Common Header"),
  ver = F.uint8("mroce.ch.ver", "Version", base.DEC, nil, 0xF0),
  rsvd0 = F.uint8("mroce.ch.rsvd0", "Reserved (rsvd0)", base.HEX, nil, 0x0F),
  opcode = F.uint8("mroce.ch.opcode", "Opcode", base.HEX, OPCODES),
  flags = F.uint16("mroce.ch.flags", "Flags", base.HEX),
  f_ar = F.bool("mroce.ch.flags.ar", "AR (ack requested)", 16, nil, 0x8000),
  f_rtx = F.bool("mroce.ch.flags.rtx", "RTX (retransmission)", 16, nil, 0x4000),
  f_first = F.bool("mroce.ch.flags.first", "FIRST (first packet of message)", 16, nil, 0x2000),
  f_last = F.bool("mroce.ch.flags.last", "LAST (last packet of message)", 16, nil, 0x1000),
  f_imm = F.bool("mroce.ch.flags.imm", "IMM (immediate valid)", 16, nil, 0x0800),
  f_se = F.bool("mroce.ch.flags.se", "SE (solicited event)", 16, nil, 0x0400),
  f_ece = F.bool("mroce.ch.flags.ece", "ECE (trigger was CE-marked)", 16, nil, 0x0200),
  f_trtx = F.bool("mroce.ch.flags.trtx", "TRTX (trigger was a retransmission)", 16, nil, 0x0100),
  f_rsvd = F.uint16("mroce.ch.flags.rsvd", "Reserved (rsvd_flags)", base.HEX, nil, 0x00FF),
  dst_conn_id = F.uint32("mroce.ch.dst_conn_id", "Destination connection id", base.HEX),
  path_id = F.uint8("mroce.ch.path_id", "Path id", base.DEC),
  path_epoch = F.uint8("mroce.ch.path_epoch", "Path epoch", base.DEC),
  payload_len = F.uint16("mroce.ch.payload_len", "Payload length", base.DEC),
  psn = F.uint32("mroce.ch.psn", "PSN", base.DEC),
  -- Message extension header
  meh = F.none("mroce.meh", "Message Extension Header"),
  meh_stream_id = F.uint16("mroce.meh.stream_id", "Stream id", base.DEC),
  meh_rsvd1 = F.uint8("mroce.meh.rsvd1", "Reserved (rsvd1)", base.HEX),
  meh_rsvd2 = F.uint8("mroce.meh.rsvd2", "Reserved (rsvd2)", base.HEX),
  meh_msn = F.uint32("mroce.meh.msn", "Message sequence number", base.DEC),
  meh_msg_len = F.uint32("mroce.meh.msg_len", "Message length", base.DEC),
  meh_msg_offset = F.uint32("mroce.meh.msg_offset", "Message offset", base.DEC),
  meh_recv_seq = F.uint32("mroce.meh.recv_seq", "Receive sequence", base.DEC),
  meh_imm = F.uint32("mroce.meh.imm", "Immediate data", base.HEX),
  meh_rkey = F.uint32("mroce.meh.rkey", "Remote key", base.HEX),
  meh_rsvd3 = F.uint32("mroce.meh.rsvd3", "Reserved (rsvd3)", base.HEX),
  meh_va = F.uint64("mroce.meh.va", "Virtual address", base.HEX),
  -- ACK header
  ack = F.none("mroce.ack", "ACK Header"),
  ack_epsn = F.uint32("mroce.ack.epsn", "Expected PSN", base.DEC),
  ack_trigger_psn = F.uint32("mroce.ack.trigger_psn", "Trigger PSN", base.DEC),
  ack_rate_hint = F.uint32("mroce.ack.rate_hint", "Rate hint (Mb/s)", base.DEC,
                           { [0xFFFFFFFF] = "unlimited" }),
  ack_ce_count = F.uint16("mroce.ack.ce_count", "CE count", base.DEC),
  ack_ack_delay = F.uint16("mroce.ack.ack_delay", "ACK delay (64 ns units)", base.DEC),
  ack_sack = F.bytes("mroce.ack.sack", "SACK bitvector"),
  ack_sack_count = F.uint16("mroce.ack.sack.count", "SACK bits set", base.DEC),
  ack_sack_bit = F.uint16("mroce.ack.sack.bit", "SACK bit", base.DEC),
  ack_sack_psn = F.uint32("mroce.ack.sack.psn", "SACKed PSN", base.DEC),
  -- NACK header
  nack = F.none("mroce.nack", "NACK Header"),
  nack_code = F.uint8("mroce.nack.code", "Code", base.HEX, NACK_CODES),
  nack_rsvd = F.uint8("mroce.nack.rsvd", "Reserved", base.HEX),
  nack_stream_id = F.uint16("mroce.nack.stream_id", "Stream id", base.DEC),
  nack_psn = F.uint32("mroce.nack.psn", "Refused PSN", base.DEC),
  nack_msn = F.uint32("mroce.nack.msn", "Message sequence number", base.DEC),
  nack_info = F.uint32("mroce.nack.info", "Info", base.DEC),
  -- Connection management header
  cm = F.none("mroce.cmh", "Connection Management Header"),
  cm_ver_min = F.uint8("mroce.cmh.ver_min", "Minimum version", base.DEC),
  cm_ver_max = F.uint8("mroce.cmh.ver_max", "Maximum version", base.DEC),
  cm_reason = F.uint8("mroce.cmh.reason", "Reason", base.HEX, CM_REASONS),
  cm_num_paths = F.uint8("mroce.cmh.num_paths", "Number of paths", base.DEC),
  cm_src_conn_id = F.uint32("mroce.cmh.src_conn_id", "Source connection id", base.HEX),
  cm_mtu = F.uint16("mroce.cmh.mtu", "MTU (payload bytes)", base.DEC),
  cm_max_streams = F.uint16("mroce.cmh.max_streams", "Maximum streams", base.DEC),
  cm_num_planes = F.uint8("mroce.cmh.num_planes", "Number of planes", base.DEC),
  cm_rsvd4 = F.uint8("mroce.cmh.rsvd4", "Reserved (rsvd4)", base.HEX),
  cm_rsvd5 = F.uint16("mroce.cmh.rsvd5", "Reserved (rsvd5)", base.HEX),
  cm_max_rate = F.uint32("mroce.cmh.max_rate", "Maximum rate (Mb/s)", base.DEC,
                         { [0] = "unspecified" }),
  cm_rsvd6 = F.uint32("mroce.cmh.rsvd6", "Reserved (rsvd6)", base.HEX),
  cm_nonce = F.uint64("mroce.cmh.nonce", "Nonce", base.HEX),
  -- Probe header
  probe = F.none("mroce.prh", "Probe Header"),
  probe_seq = F.uint32("mroce.prh.probe_seq", "Probe sequence", base.DEC),
  probe_rsvd7 = F.uint32("mroce.prh.rsvd7", "Reserved (rsvd7)", base.HEX),
  probe_tx_time = F.uint64("mroce.prh.tx_time", "Transmit time (ns)", base.DEC),
  -- Payload and trailer
  payload = F.bytes("mroce.payload", "Payload"),
  crc = F.uint32("mroce.crc", "CRC", base.HEX),
  crc_computed = F.uint32("mroce.crc.computed", "Computed CRC", base.HEX),
  crc_status = F.uint8("mroce.crc.status", "CRC status", base.DEC, CRC_STATUS),
}
local field_list = {}
for _, v in pairs(f) do field_list[#field_list + 1] = v end
mroce.fields = field_list

local e = {
  bad_crc = ProtoExpert.new("mroce.crc.bad", "Bad MetaRoCE CRC", expert.group.CHECKSUM,
                            expert.severity.ERROR),
  truncated = ProtoExpert.new("mroce.truncated", "MetaRoCE packet truncated",
                              expert.group.MALFORMED, expert.severity.ERROR),
  bad_len = ProtoExpert.new("mroce.payload_len.bad",
                            "payload_len disagrees with the UDP length",
                            expert.group.MALFORMED, expert.severity.ERROR),
  unknown_opcode = ProtoExpert.new("mroce.opcode.unknown", "Unknown MetaRoCE opcode",
                                   expert.group.PROTOCOL, expert.severity.WARN),
  bad_version = ProtoExpert.new("mroce.ch.ver.unsupported", "Unsupported MetaRoCE version",
                                expert.group.PROTOCOL, expert.severity.WARN),
  reserved = ProtoExpert.new("mroce.reserved.nonzero", "Reserved field not zero",
                             expert.group.PROTOCOL, expert.severity.NOTE),
  unexpected_payload = ProtoExpert.new("mroce.payload.unexpected",
                                       "Payload on an opcode that carries none",
                                       expert.group.PROTOCOL, expert.severity.WARN),
}
mroce.experts = { e.bad_crc, e.truncated, e.bad_len, e.unknown_opcode, e.bad_version, e.reserved,
                  e.unexpected_payload }
-- Opcodes with a data payload (READ_REQ and the control opcodes carry none).
local HAS_PAYLOAD = { [0x01] = true, [0x02] = true, [0x03] = true, [0x04] = true, [0x06] = true }

mroce.prefs.udp_port = Pref.uint("UDP port", 4797, "UDP destination port of MetaRoCE")

-- CRC-32 (IEEE 802.3, reflected 0xEDB88320, init and final xor 0xFFFFFFFF), as zlib.
local bitlib = bit32 or bit
local band, bxor, rshift = bitlib.band, bitlib.bxor, bitlib.rshift
local crc_table = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do
    if band(c, 1) ~= 0 then c = bxor(rshift(c, 1), 0xEDB88320) else c = rshift(c, 1) end
  end
  crc_table[i] = c
end
local function crc32(bytes)   -- bytes: ByteArray
  local c = 0xFFFFFFFF
  for i = 0, bytes:len() - 1 do
    c = bxor(crc_table[band(bxor(c, bytes:get_index(i)), 0xFF)], rshift(c, 8))
  end
  c = bxor(c, 0xFFFFFFFF)
  if c < 0 then c = c + 0x100000000 end   -- LuaBitOp returns signed results
  return c
end

-- Adds a reserved field and a note when it is not zero.
local function add_reserved(tree, field, range)
  local item = tree:add(field, range)
  if range:uint() ~= 0 then item:add_proto_expert_info(e.reserved) end
  return item
end

local function dissect_meh(tvb, tree)
  local t = tree:add(f.meh, tvb(0, 40))
  t:add(f.meh_stream_id, tvb(0, 2))
  add_reserved(t, f.meh_rsvd1, tvb(2, 1))
  add_reserved(t, f.meh_rsvd2, tvb(3, 1))
  t:add(f.meh_msn, tvb(4, 4))
  t:add(f.meh_msg_len, tvb(8, 4))
  t:add(f.meh_msg_offset, tvb(12, 4))
  t:add(f.meh_recv_seq, tvb(16, 4))
  t:add(f.meh_imm, tvb(20, 4))
  t:add(f.meh_rkey, tvb(24, 4))
  add_reserved(t, f.meh_rsvd3, tvb(28, 4))
  t:add(f.meh_va, tvb(32, 8))
  return string.format(" stream=%d msn=%d off=%d/%d", tvb(0, 2):uint(), tvb(4, 4):uint(),
                       tvb(12, 4):uint(), tvb(8, 4):uint())
end

local function dissect_ack(tvb, tree)
  local t = tree:add(f.ack, tvb(0, 48))
  local epsn = tvb(0, 4):uint()
  t:add(f.ack_epsn, tvb(0, 4))
  t:add(f.ack_trigger_psn, tvb(4, 4))
  t:add(f.ack_rate_hint, tvb(8, 4))
  t:add(f.ack_ce_count, tvb(12, 2))
  t:add(f.ack_ack_delay, tvb(14, 2))
  local st = t:add(f.ack_sack, tvb(16, 32))
  -- Bit i lives in byte i/8 with mask 0x80 >> (i % 8) and covers PSN epsn + 1 + i (mod 2^32).
  local set, shown = 0, {}
  for i = 0, 255 do
    local byte = tvb(16 + math.floor(i / 8), 1)
    if band(byte:uint(), rshift(0x80, i % 8)) ~= 0 then
      set = set + 1
      st:add(f.ack_sack_bit, byte, i)
      st:add(f.ack_sack_psn, byte, (epsn + 1 + i) % 0x100000000)
      shown[#shown + 1] = tostring(i)
    end
  end
  st:append_text(" (bits set: " .. (set > 0 and table.concat(shown, ",") or "none") .. ")")
  t:add(f.ack_sack_count, tvb(16, 32), set):set_generated()
  return string.format(" epsn=%d sack=%d", epsn, set)
end

local function dissect_nack(tvb, tree)
  local t = tree:add(f.nack, tvb(0, 16))
  t:add(f.nack_code, tvb(0, 1))
  add_reserved(t, f.nack_rsvd, tvb(1, 1))
  t:add(f.nack_stream_id, tvb(2, 2))
  t:add(f.nack_psn, tvb(4, 4))
  t:add(f.nack_msn, tvb(8, 4))
  t:add(f.nack_info, tvb(12, 4))
  return string.format(" %s psn=%d", NACK_CODES[tvb(0, 1):uint()] or "code?", tvb(4, 4):uint())
end

local function dissect_cm(tvb, tree)
  local t = tree:add(f.cm, tvb(0, 32))
  t:add(f.cm_ver_min, tvb(0, 1))
  t:add(f.cm_ver_max, tvb(1, 1))
  t:add(f.cm_reason, tvb(2, 1))
  t:add(f.cm_num_paths, tvb(3, 1))
  t:add(f.cm_src_conn_id, tvb(4, 4))
  t:add(f.cm_mtu, tvb(8, 2))
  t:add(f.cm_max_streams, tvb(10, 2))
  t:add(f.cm_num_planes, tvb(12, 1))
  add_reserved(t, f.cm_rsvd4, tvb(13, 1))
  add_reserved(t, f.cm_rsvd5, tvb(14, 2))
  t:add(f.cm_max_rate, tvb(16, 4))
  add_reserved(t, f.cm_rsvd6, tvb(20, 4))
  t:add(f.cm_nonce, tvb(24, 8))
  return string.format(" src_conn=0x%08x", tvb(4, 4):uint())
end

local function dissect_probe(tvb, tree)
  local t = tree:add(f.probe, tvb(0, 16))
  t:add(f.probe_seq, tvb(0, 4))
  add_reserved(t, f.probe_rsvd7, tvb(4, 4))
  t:add(f.probe_tx_time, tvb(8, 8))
  return string.format(" seq=%d", tvb(0, 4):uint())
end

local EXT_DISSECTOR = {}
for op = 0x01, 0x06 do EXT_DISSECTOR[op] = dissect_meh end
EXT_DISSECTOR[0x10] = dissect_ack
EXT_DISSECTOR[0x11] = dissect_nack
for op = 0x20, 0x24 do EXT_DISSECTOR[op] = dissect_cm end
EXT_DISSECTOR[0x30] = dissect_probe
EXT_DISSECTOR[0x31] = dissect_probe

function mroce.dissector(tvb, pinfo, tree)
  local len = tvb:len()
  pinfo.cols.protocol = "MetaRoCE"
  local root = tree:add(mroce, tvb())
  if len < CH_LEN + CRC_LEN then
    root:add_proto_expert_info(e.truncated,
      string.format("%d bytes: shorter than common header + CRC (%d)", len, CH_LEN + CRC_LEN))
    return len
  end

  local opcode = tvb(1, 1):uint()
  local ch = root:add(f.ch, tvb(0, CH_LEN))
  local ver_item = ch:add(f.ver, tvb(0, 1))
  if tvb(0, 1):bitfield(0, 4) ~= 1 then ver_item:add_proto_expert_info(e.bad_version) end
  local r0 = ch:add(f.rsvd0, tvb(0, 1))
  if tvb(0, 1):bitfield(4, 4) ~= 0 then r0:add_proto_expert_info(e.reserved) end
  local op_item = ch:add(f.opcode, tvb(1, 1))
  local fl = ch:add(f.flags, tvb(2, 2))
  local names = {}
  local flag_fields = { { f.f_ar, 0x8000, "AR" }, { f.f_rtx, 0x4000, "RTX" },
                        { f.f_first, 0x2000, "FIRST" }, { f.f_last, 0x1000, "LAST" },
                        { f.f_imm, 0x0800, "IMM" }, { f.f_se, 0x0400, "SE" },
                        { f.f_ece, 0x0200, "ECE" }, { f.f_trtx, 0x0100, "TRTX" } }
  local flags = tvb(2, 2):uint()
  for _, ff in ipairs(flag_fields) do
    fl:add(ff[1], tvb(2, 2))
    if band(flags, ff[2]) ~= 0 then names[#names + 1] = ff[3] end
  end
  local rf = fl:add(f.f_rsvd, tvb(2, 2))
  if band(flags, 0xFF) ~= 0 then rf:add_proto_expert_info(e.reserved) end
  if #names > 0 then fl:append_text(" (" .. table.concat(names, ", ") .. ")") end
  ch:add(f.dst_conn_id, tvb(4, 4))
  ch:add(f.path_id, tvb(8, 1))
  ch:add(f.path_epoch, tvb(9, 1))
  local plen_item = ch:add(f.payload_len, tvb(10, 2))
  ch:add(f.psn, tvb(12, 4))

  local payload_len = tvb(10, 2):uint()
  local ext_len = EXT_LEN[opcode]
  local name = OPCODES[opcode] or string.format("opcode 0x%02x", opcode)
  local info = string.format("%s conn=0x%08x path=%d/%d psn=%d", name, tvb(4, 4):uint(),
                             tvb(8, 1):uint(), tvb(9, 1):uint(), tvb(12, 4):uint())
  if #names > 0 then info = info .. " [" .. table.concat(names, ",") .. "]" end

  local body_len = len - CH_LEN - CRC_LEN   -- opcode header + payload
  local off = CH_LEN
  if ext_len == nil then
    op_item:add_proto_expert_info(e.unknown_opcode)
    ext_len = 0
  elseif body_len < ext_len then
    root:add_proto_expert_info(e.truncated,
      string.format("%s header needs %d bytes, %d present", name, ext_len, body_len))
    pinfo.cols.info = info
    return len
  else
    info = info .. EXT_DISSECTOR[opcode](tvb(off, ext_len):tvb(), root)
    off = off + ext_len
  end

  local avail = len - CRC_LEN - off
  if avail ~= payload_len then
    plen_item:add_proto_expert_info(e.bad_len,
      string.format("payload_len %d, %d bytes between opcode header and CRC", payload_len, avail))
  end
  if avail > 0 then
    local pl = root:add(f.payload, tvb(off, avail))
    if EXT_DISSECTOR[opcode] ~= nil and not HAS_PAYLOAD[opcode] then
      pl:add_proto_expert_info(e.unexpected_payload)
    end
  end

  local crc_range = tvb(len - CRC_LEN, CRC_LEN)
  local carried = crc_range:uint()
  local computed = crc32(tvb(0, len - CRC_LEN):bytes())
  local crc_item = root:add(f.crc, crc_range)
  root:add(f.crc_computed, crc_range, computed):set_generated()
  local good = (carried == computed)
  root:add(f.crc_status, crc_range, good and 1 or 0):set_generated()
  if good then
    crc_item:append_text(" [correct]")
  else
    crc_item:append_text(string.format(" [incorrect, should be 0x%08x]", computed))
    crc_item:add_proto_expert_info(e.bad_crc,
      string.format("Bad CRC 0x%08x, computed 0x%08x", carried, computed))
    info = info .. " [BAD CRC]"
  end
  root:append_text(", " .. name)
  pinfo.cols.info = info
  return len
end

local registered_port = nil
local function register_port()
  local udp = DissectorTable.get("udp.port")
  if registered_port ~= nil then udp:remove(registered_port, mroce) end
  registered_port = mroce.prefs.udp_port
  udp:add(registered_port, mroce)
end
function mroce.prefs_changed() register_port() end
register_port()
