#include "loader/copy_rows.h"

#include <vector>

#include "loader/copy_binary.h"
#include "progress.h"

namespace dptrain::loader {

PartStats copy_part(client::PgConnection& conn, Dataset& data, Part part, const std::string& table,
                    bool show_progress, bool sparse) {
  const std::size_t n = data.rows(part);
  const std::size_t d = data.dims();
  const LabelType type = data.labels().type();
  std::vector<double> x(d);
  PartStats stats;
  // A bar only for a large part (total 0: none). It was made for every part
  // and drew "load train [....] 0/n" at once, never ended on a small one.
  const bool large = n * d > 5'000'000;
  client::ProgressBar bar(std::string("load ") + (part == Part::Train ? "train" : "test"),
                          show_progress && large ? static_cast<int>(n) : 0);
  const bool progress = bar.enabled();
  std::size_t next = 0;
  bool header_sent = false, trailer_sent = false;
  conn.copy_in("COPY " + table + " (id, x, y) FROM STDIN (FORMAT binary)", [&](std::string& chunk) {
    if (!header_sent) {
      copy_binary_header(chunk);
      header_sent = true;
    }
    while (next < n && chunk.size() < (1u << 20)) {
      const LabelValue& y = data.row(part, next, x.data());
      stats.add(x.data(), d, y);
      if (sparse) copy_binary_sparse_row(chunk, data.id(part, next), x.data(), d, type, y);
      else copy_binary_row(chunk, data.id(part, next), x.data(), d, type, y);
      ++next;
    }
    if (progress) bar.update(static_cast<int>(next));
    if (next == n && !trailer_sent) {
      copy_binary_trailer(chunk);
      trailer_sent = true;
    }
    return !trailer_sent;
  });
  if (progress) bar.finish();
  return stats;
}

}  // namespace dptrain::loader
