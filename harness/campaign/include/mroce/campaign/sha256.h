// Streaming SHA-256 (OpenSSL's EVP), for the suite digest and certification packages.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace mroce::campaign {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(std::string_view bytes);
  // 64 lowercase hex digits of everything Update was given; call once.
  [[nodiscard]] std::string HexDigest();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

}  // namespace mroce::campaign
