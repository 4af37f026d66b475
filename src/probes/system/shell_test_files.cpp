#include "probes/system/shell_test_files.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace hostprobe::probes {

// set -e: a missing command fails the loop instead of making it look fast.
const char* const kShellTestScript = R"(set -e
text=$(cat sort.src)
printf "$text%.0s\n" $(seq "$1") | sort >sort.$$
od sort.$$ | sort -n -k 1 >od.$$
grep the sort.$$ | tee grep.$$ | wc >wc.$$
rm sort.$$ grep.$$ od.$$ wc.$$
)";

const char* const kShellMultiScript = R"(i=0 pids=
while [ "$i" -lt "$1" ]; do "$2" tst.sh 20 & pids="$pids $!"; i=$((i + 1)); done
rc=0
for pid in $pids; do wait "$pid" || rc=1; done
exit $rc
)";

namespace {

constexpr size_t kSortSourceLines = 362;
constexpr size_t kSortSourceBytes = 8546;
constexpr size_t kSortSourceLinesWithThe = 35;

// Words of a shell script; none holds "the" (grep would count it).
constexpr std::string_view kSortSourceWords[] = {
    "cd",   "$PWD",   "echo",      "HOMEDIR=", "BINDIR",  "${TMPDIR}", "pwd",  "if",
    "[",    "-f",     "];",        "fi",       "else",    "for",       "in",   "do",
    "done", "export", "PATH",      "umask",    "022",     "rm",        "-rf",  "mkdir",
    "$1",   "$2",     "time",      "exit",     "0",       "1",         "test", "cat",
    ">",    ">>",     "/dev/null", "2>&1",     "while",   "read",      "line", "case",
    "esac", ";;",     "LOGFILE",   "sort.src", "results", "${BINDIR}", "-eq",  "shift"};

bool sort_source_line_holds_the(size_t line) {
    return line % 10 == 3 && line / 10 < kSortSourceLinesWithThe;
}

}  // namespace

std::string shell_sort_source() {
    // Line lengths 2..43 from a fixed generator, evened out from the last line on to the total.
    uint32_t state = 20070914;
    auto next = [&state] {
        state = state * 1103515245u + 12345u;
        return state >> 16;
    };
    size_t lengths[kSortSourceLines];
    size_t total = 0;
    for (size_t line = 0; line < kSortSourceLines; ++line) {
        lengths[line] = std::max<size_t>(sort_source_line_holds_the(line) ? 5 : 2, 2 + next() % 42);
        total += lengths[line] + 1;
    }
    for (size_t line = kSortSourceLines - 1; total != kSortSourceBytes;
         line = line == 0 ? kSortSourceLines - 1 : line - 1) {
        const size_t shortest = sort_source_line_holds_the(line) ? 5 : 2;
        if (total > kSortSourceBytes && lengths[line] > shortest) {
            --lengths[line];
            --total;
        } else if (total < kSortSourceBytes && lengths[line] < 60) {
            ++lengths[line];
            ++total;
        }
    }
    std::string text;
    for (size_t line = 0; line < kSortSourceLines; ++line) {
        std::string row = sort_source_line_holds_the(line) ? "# the" : "";
        while (row.size() < lengths[line]) {
            if (!row.empty()) row += ' ';
            row += kSortSourceWords[next() % std::size(kSortSourceWords)];
        }
        row.resize(lengths[line]);
        if (row.back() == ' ') row.back() = '-';
        text += row;
        text += '\n';
    }
    return text;
}

}  // namespace hostprobe::probes
