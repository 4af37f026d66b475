#include "app/unwritten_pages.hpp"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace hostprobe::app {
namespace {

std::uintptr_t round_down(std::uintptr_t value, std::uintptr_t page) {
    return value / page * page;
}

std::uintptr_t round_up(std::uintptr_t value, std::uintptr_t page) {
    return round_down(value + page - 1, page);
}

// `pieces` less `hole`.
std::vector<AddressRange> cut(const std::vector<AddressRange>& pieces, AddressRange hole) {
    std::vector<AddressRange> kept;
    for (const auto& piece : pieces) {
        if (hole.end <= piece.begin || piece.end <= hole.begin) {
            kept.push_back(piece);
            continue;
        }
        if (piece.begin < hole.begin) kept.push_back({piece.begin, hole.begin});
        if (hole.end < piece.end) kept.push_back({hole.end, piece.end});
    }
    return kept;
}

bool has_text_relocations(const dl_phdr_info& object) {
    for (ElfW(Half) i = 0; i < object.dlpi_phnum; ++i) {
        const auto& header = object.dlpi_phdr[i];
        if (header.p_type != PT_DYNAMIC) continue;
        const auto* entry = reinterpret_cast<const ElfW(Dyn)*>(object.dlpi_addr + header.p_vaddr);
        for (; entry->d_tag != DT_NULL; ++entry) {
            if (entry->d_tag == DT_TEXTREL) return true;
            if (entry->d_tag == DT_FLAGS && (entry->d_un.d_val & DF_TEXTREL) != 0) return true;
        }
    }
    return false;
}

struct Collected {
    std::uintptr_t page_size = 4096;
    bool release = false;      // madvise each object's pages while dl_iterate_phdr holds it
    bool tables_only = false;  // linker_table_pages instead of unwritten_pages
    std::vector<AddressRange> pages;
    std::size_t released = 0;
};

int collect_object(dl_phdr_info* object, size_t, void* data) {
    auto& collected = *static_cast<Collected*>(data);
    const std::string_view name = object->dlpi_name ? object->dlpi_name : "";
    // The vDSO is the kernel's page, not a file's.
    if (name.find("linux-vdso") != std::string_view::npos ||
        name.find("linux-gate") != std::string_view::npos)
        return 0;
    if (has_text_relocations(*object)) return 0;
    std::vector<LoadedSegment> segments;
    std::vector<AddressRange> written;
    for (ElfW(Half) i = 0; i < object->dlpi_phnum; ++i) {
        const auto& header = object->dlpi_phdr[i];
        const AddressRange range{object->dlpi_addr + header.p_vaddr,
                                 object->dlpi_addr + header.p_vaddr + header.p_memsz};
        if (header.p_type == PT_LOAD)
            segments.push_back({range, (header.p_flags & PF_W) != 0, (header.p_flags & PF_X) != 0});
        if (header.p_type == PT_GNU_RELRO) written.push_back(range);
    }
    const auto pages = collected.tables_only
                           ? linker_table_pages(segments, written, collected.page_size)
                           : unwritten_pages(segments, written, collected.page_size);
    if (!collected.release) {
        collected.pages.insert(collected.pages.end(), pages.begin(), pages.end());
        return 0;
    }
    // Here, not after the walk: dl_iterate_phdr holds the loader's lock, so no object can be
    // unloaded and its addresses reused (by the heap) between finding its pages and dropping them.
    for (const auto& range : pages) {
        const std::size_t length = range.end - range.begin;
        if (::madvise(reinterpret_cast<void*>(range.begin), length, MADV_DONTNEED) == 0)
            collected.released += length;
    }
    return 0;
}

}  // namespace

std::vector<AddressRange> unwritten_pages(const std::vector<LoadedSegment>& segments,
                                          const std::vector<AddressRange>& written,
                                          std::uintptr_t page_size) {
    std::vector<AddressRange> pages;
    for (const auto& segment : segments) {
        if (segment.writable) continue;
        const AddressRange inward{round_up(segment.range.begin, page_size),
                                  round_down(segment.range.end, page_size)};
        if (inward.begin < inward.end) pages.push_back(inward);
    }
    std::vector<AddressRange> holes = written;
    for (const auto& segment : segments)
        if (segment.writable) holes.push_back(segment.range);
    for (const auto& hole : holes)
        pages = cut(pages, {round_down(hole.begin, page_size), round_up(hole.end, page_size)});
    std::sort(pages.begin(), pages.end(),
              [](const AddressRange& a, const AddressRange& b) { return a.begin < b.begin; });
    // Adjacent ranges as one: fewer madvise calls.
    std::vector<AddressRange> merged;
    for (const auto& range : pages) {
        if (!merged.empty() && merged.back().end == range.begin)
            merged.back().end = range.end;
        else
            merged.push_back(range);
    }
    return merged;
}

std::vector<AddressRange> linker_table_pages(const std::vector<LoadedSegment>& segments,
                                             const std::vector<AddressRange>& written,
                                             std::uintptr_t page_size) {
    std::uintptr_t first_code = UINTPTR_MAX;
    for (const auto& segment : segments)
        if (segment.executable) first_code = std::min(first_code, segment.range.begin);
    if (first_code == UINTPTR_MAX) return {};
    // The writable segments stay in, so that unwritten_pages cuts the pages they share.
    std::vector<LoadedSegment> tables;
    for (const auto& segment : segments) {
        const bool before_code = !segment.executable && segment.range.end <= first_code;
        if (segment.writable || before_code) tables.push_back(segment);
    }
    return unwritten_pages(tables, written, page_size);
}

namespace {

Collected walk_loaded_objects(bool release, bool tables_only) {
    Collected collected;
    collected.release = release;
    collected.tables_only = tables_only;
    const long page_size = ::sysconf(_SC_PAGESIZE);
    if (page_size > 0) collected.page_size = static_cast<std::uintptr_t>(page_size);
    dl_iterate_phdr(collect_object, &collected);
    return collected;
}

}  // namespace

std::vector<AddressRange> unwritten_pages_of_loaded_objects() {
    return walk_loaded_objects(false, false).pages;
}

std::size_t release_unwritten_pages() {
    return walk_loaded_objects(true, false).released;
}

std::vector<AddressRange> linker_table_pages_of_loaded_objects() {
    return walk_loaded_objects(false, true).pages;
}

std::size_t release_linker_tables() {
    return walk_loaded_objects(true, true).released;
}

}  // namespace hostprobe::app
