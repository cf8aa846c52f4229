// The shared vectors in tests/vectors/*.hex parse, match their comment and re-serialize byte-exact.
#include <gtest/gtest.h>

#include "mroce/wire/wire.h"
#include "test_util.h"

namespace mroce::wire {
namespace {

TEST(VectorsTest, EveryVectorRoundTrips) {
  const auto vectors = testing::LoadVectors();
  ASSERT_GE(vectors.size(), 20u);
  for (const auto& v : vectors) {
    SCOPED_TRACE(v.file + ":" + std::to_string(v.line) + " " + v.comment);
    ASSERT_FALSE(v.bytes.empty());
    const bool negative = v.comment.find("INVALID") != std::string::npos;
    auto f = ParseFrame(v.bytes, ParseOptions{.verify_udp_checksum = true});
    if (negative) {
      ASSERT_FALSE(f);
      // "# INVALID <field>: ..." names the field the parser must report.
      const size_t at = v.comment.find("INVALID ") + 8;
      const std::string field = v.comment.substr(at, v.comment.find(':', at) - at);
      EXPECT_EQ(f.error().code, field);
      continue;
    }
    ASSERT_TRUE(f) << f.error().ToString() << "\n" << HexDump(v.bytes);
    EXPECT_EQ(SerializeFrame(*f, SerializeOptions::Exact()), v.bytes);
    EXPECT_EQ(SerializeFrame(*f), v.bytes);
    auto back = FromFieldMap(ToFieldMap(*f));
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, *f);
    // The comment starts with the packet type: "# meta WRITE ...", "# roce RC_SEND_ONLY ...".
    if (const MetaPacket* m = f->meta()) {
      EXPECT_NE(v.comment.find(" " + std::string(OpcodeName(m->ch.opcode)) + " "), std::string::npos);
    } else if (const RocePacket* r = f->roce()) {
      EXPECT_NE(v.comment.find(" " + std::string(RoceOpcodeName(r->bth.opcode)) + " "), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace mroce::wire
