// Rendered run listings, kept while clients keep asking. GET /v1/runs renders every listed
// run's result (inflated and re-indented: 1.7 ms for 30 cpu runs, 400 KB, on the 2-core test
// machine) and a client that polls without If-None-Match asks for the same text again and
// again. The runs change far less often than they are listed: one text per filter and version
// serves them all, and a listing nobody asked for since the trimmer's last pass is dropped, so
// an idle agent holds none of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hostprobe::api {

class ListingCache {
  public:
    // A few filters at once (the page's, a script's); more drop the least recently used.
    static constexpr size_t kMaxEntries = 4;
    // Larger texts are rendered for each request and never kept.
    static constexpr size_t kMaxTextBytes = 4 * 1024 * 1024;

    // The text stored for `filter` at `version`; null when there is none.
    std::shared_ptr<const std::string> find(const std::string& filter, const std::string& version);
    void store(const std::string& filter, const std::string& version,
               std::shared_ptr<const std::string> text);
    // Drops every text not found since the previous call; true when one was dropped. Called on
    // each of the memory trimmer's passes.
    bool drop_unused();
    size_t size() const;

  private:
    struct Entry {
        std::string filter;
        std::string version;
        std::shared_ptr<const std::string> text;
        std::uint64_t last_use = 0;
        bool used_since_sweep = true;
    };
    mutable std::mutex mutex_;
    std::vector<Entry> entries_;
    std::uint64_t uses_ = 0;
};

}  // namespace hostprobe::api
