#include "api/listing_cache.hpp"

#include <algorithm>

namespace hostprobe::api {

std::shared_ptr<const std::string> ListingCache::find(const std::string& filter,
                                                      const std::string& version) {
    std::lock_guard lock(mutex_);
    for (auto& entry : entries_) {
        if (entry.filter != filter || entry.version != version) continue;
        entry.last_use = ++uses_;
        entry.used_since_sweep = true;
        return entry.text;
    }
    return nullptr;
}

void ListingCache::store(const std::string& filter, const std::string& version,
                         std::shared_ptr<const std::string> text) {
    if (!text || text->size() > kMaxTextBytes) return;
    std::lock_guard lock(mutex_);
    // One text per filter: an older version is never asked for again.
    auto entry = std::find_if(entries_.begin(), entries_.end(),
                              [&](const Entry& e) { return e.filter == filter; });
    if (entry == entries_.end() && entries_.size() >= kMaxEntries) {
        entry = std::min_element(
            entries_.begin(), entries_.end(),
            [](const Entry& a, const Entry& b) { return a.last_use < b.last_use; });
    }
    if (entry == entries_.end()) entry = entries_.insert(entries_.end(), Entry{});
    *entry = Entry{filter, version, std::move(text), ++uses_, true};
}

bool ListingCache::drop_unused() {
    std::vector<std::shared_ptr<const std::string>> dropped;  // freed outside the lock
    {
        std::lock_guard lock(mutex_);
        for (auto entry = entries_.begin(); entry != entries_.end();) {
            if (entry->used_since_sweep) {
                entry->used_since_sweep = false;
                ++entry;
            } else {
                dropped.push_back(std::move(entry->text));
                entry = entries_.erase(entry);
            }
        }
    }
    return !dropped.empty();
}

size_t ListingCache::size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

}  // namespace hostprobe::api
