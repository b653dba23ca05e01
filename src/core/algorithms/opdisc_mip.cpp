#include "core/algorithms/opdisc_mip.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <cerrno>
#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/CoinMessageHandler.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include "core/algorithms/opdisc_start.h"
#include "core/error.h"

namespace dptrain::opdisc {
namespace {

// Absolute optimality gap CBC may leave (relative gap: 0).
constexpr const char* kAbsoluteGap = "1e-7";
// How often the parent polls the interrupt flag, and how long past the time
// limit it waits for CBC's own time check before it kills the child.
constexpr int kPollMilliseconds = 50;
constexpr double kGraceSeconds = 5;
enum Outcome : int { kOptimal = 0, kTimeLimit = 1, kFailed = 2 };

// CbcMain1's callback: nothing to do (the event handler polls).
int no_callback(CbcModel*, int) { return 0; }

// Column layout of the MIP.
struct Layout {
  int dim, bound, norm_squared;
  int values() const { return 2 * bound + 1; }
  int r(int j, int v) const { return j * values() + (v + bound); }   // r_{j,v} = 1[k_j = v]
  int q(int s) const { return dim * values() + s; }                  // q_s = 1[||k||^2 = s]
  int k(int j) const { return q(norm_squared) + 1 + j; }             // k_j = sum_v v r_{j,v} (integer)
  int first_error() const { return k(dim); }
};

struct Problem {
  CoinPackedMatrix rows{false, 0, 0};
  std::vector<double> col_lo, col_hi, cost, row_lo, row_hi;
  double offset = 0;  // constant part of the objective (CBC's value excludes it)
  std::vector<int> z_of;  // the column z_g of each group (-1: x_g = 0, no column)

  int add_column(double c) {
    col_lo.push_back(0);
    col_hi.push_back(1);
    cost.push_back(c);
    return static_cast<int>(cost.size()) - 1;
  }
  void add_row(const std::vector<int>& idx, const std::vector<double>& val, double lo, double hi) {
    rows.appendRow(static_cast<int>(idx.size()), idx.data(), val.data());
    row_lo.push_back(lo);
    row_hi.push_back(hi);
  }
};

// The linear form k.x of a binary x: one coefficient per feature j in `ones`
// on the integer column k_j (sparser rows than spelling it out in r).
void add_score_terms(const Layout& L, const std::vector<int>& ones, std::vector<int>* idx, std::vector<double>* val) {
  for (int j : ones) {
    idx->push_back(L.k(j));
    val->push_back(1.0);
  }
}

// A bound on |k.x| over the grid: |k.x| <= B |x|_1 (coordinates) and
// |k.x| <= ||k|| ||x|| <= sqrt(K |x|_1) (Cauchy-Schwarz, ||k||^2 <= K); k.x is
// an integer, so the floor of the smaller. A big-M of this size never cuts
// off a grid point and keeps the LP relaxation as tight as the bounds allow.
double score_bound(const Layout& L, std::size_t ones) {
  const double by_coordinates = static_cast<double>(L.bound) * static_cast<double>(ones);
  const double by_norm = std::floor(std::sqrt(static_cast<double>(L.norm_squared) * static_cast<double>(ones)) + 1e-9);
  return std::min(by_coordinates, by_norm);
}

// The columns: the binaries r_{j,v} (coordinate j has value v) and q_s
// (||k||^2 = s), whose costs are the objective's, then the integers k_j.
void add_grid_columns(const Layout& L, const std::vector<double>& eta, Problem& P) {
  const double root_k = std::sqrt(static_cast<double>(L.norm_squared));
  for (int j = 0; j < L.dim; ++j)
    for (int v = -L.bound; v <= L.bound; ++v) P.add_column(-eta[j] * v / root_k);
  for (int s = 0; s <= L.norm_squared; ++s)
    P.add_column(-eta[L.dim] * std::sqrt(1.0 - static_cast<double>(s) / L.norm_squared));
  for (int j = 0; j < L.dim; ++j) {
    const int c = P.add_column(0);
    P.col_lo[static_cast<std::size_t>(c)] = -L.bound;
    P.col_hi[static_cast<std::size_t>(c)] = L.bound;
  }
}

// The rows that tie the columns to one grid point k of norm^2 <= K.
void add_grid_rows(const Layout& L, Problem& P) {
  // One value per coordinate: sum_v r_{j,v} = 1.
  for (int j = 0; j < L.dim; ++j) {
    std::vector<int> idx;
    for (int v = -L.bound; v <= L.bound; ++v) idx.push_back(L.r(j, v));
    P.add_row(idx, std::vector<double>(idx.size(), 1.0), 1, 1);
  }
  // One squared norm: sum_s q_s = 1 and sum_s s q_s = sum_{j,v} v^2 r_{j,v}
  // (so ||k||^2 is one of 0..K: the norm bound).
  std::vector<int> idx;
  std::vector<double> val;
  for (int s = 0; s <= L.norm_squared; ++s) idx.push_back(L.q(s));
  P.add_row(idx, std::vector<double>(idx.size(), 1.0), 1, 1);
  idx.clear();
  for (int s = 1; s <= L.norm_squared; ++s) {
    idx.push_back(L.q(s));
    val.push_back(s);
  }
  for (int j = 0; j < L.dim; ++j)
    for (int v = -L.bound; v <= L.bound; ++v)
      if (v != 0) {
        idx.push_back(L.r(j, v));
        val.push_back(-static_cast<double>(v) * v);
      }
  P.add_row(idx, val, 0, 0);
  // k_j = sum_v v r_{j,v}.
  for (int j = 0; j < L.dim; ++j) {
    idx.assign(1, L.k(j));
    val.assign(1, -1.0);
    for (int v = -L.bound; v <= L.bound; ++v)
      if (v != 0) {
        idx.push_back(L.r(j, v));
        val.push_back(v);
      }
    P.add_row(idx, val, 0, 0);
  }
}

// One decision binary per group that has a label: z_g = 1[k.x_g >= 0], the
// prediction of the rule. Its rows then cost m_g if z_g = 1 and p_g if
// z_g = 0, i.e. p_g + (m_g - p_g) z_g. Why not one error indicator per
// group and label: in the LP relaxation both indicators of a group with
// positives AND negatives can sit near 0 (k.x_g = -1/2), so the bound
// misses the group's min(p_g, m_g) errors that no grid point avoids, and
// CBC must branch to prove them (Adult's groups are mostly mixed: the
// d = 17 and d = 23 MIPs did not solve in 900 s). Linking both labels to
// one z_g keeps that bound in every relaxation.
void add_group_rows(const GroupedRows& data, const Layout& L, Problem& P) {
  const double inf = COIN_DBL_MAX;
  std::vector<int> idx;
  std::vector<double> val;
  P.z_of.assign(data.groups.size(), -1);
  for (std::size_t gi = 0; gi < data.groups.size(); ++gi) {
    const Group& g = data.groups[gi];
    const double positives = static_cast<double>(g.positives), negatives = static_cast<double>(g.negatives);
    if (g.ones.empty()) {
      P.offset += negatives;  // k.0 = 0 >= 0: predicted positive at every grid point
      continue;
    }
    P.offset += positives;
    const int z = P.add_column(negatives - positives);
    P.z_of[gi] = z;
    P.rows.setDimensions(P.rows.getNumRows(), static_cast<int>(P.cost.size()));
    const double big_m = score_bound(L, g.ones.size());
    // z_g = 1 forces k.x_g >= 0:   k.x_g - M z_g >= -M
    idx.clear();
    val.clear();
    add_score_terms(L, g.ones, &idx, &val);
    idx.push_back(z);
    val.push_back(-big_m);
    P.add_row(idx, val, -big_m, inf);
    // z_g = 0 forces k.x_g <= -1 (integers):   k.x_g - (M + 1) z_g <= -1
    val.back() = -(big_m + 1);
    P.add_row(idx, val, -inf, -1);
  }
}

Problem formulate(const GroupedRows& data, const Layout& L, const std::vector<double>& eta) {
  Problem P;
  add_grid_columns(L, eta, P);
  P.rows.setDimensions(0, static_cast<int>(P.cost.size()));
  add_grid_rows(L, P);
  add_group_rows(data, L, P);
  return P;
}

// The grid point the binaries select (Error if they do not select one).
std::vector<int> decode(const double* x, const Layout& L) {
  std::vector<int> k(static_cast<std::size_t>(L.dim));
  long squared = 0;
  for (int j = 0; j < L.dim; ++j) {
    int chosen = 0, found = 0;
    for (int v = -L.bound; v <= L.bound; ++v)
      if (x[L.r(j, v)] > 0.5) {
        chosen = v;
        ++found;
      }
    if (found != 1) fail(ErrorKind::Internal, "the MIP solution does not pick one value per coordinate");
    k[static_cast<std::size_t>(j)] = chosen;
    squared += static_cast<long>(chosen) * chosen;
  }
  if (squared > L.norm_squared) fail(ErrorKind::Internal, "the MIP solution is outside the norm bound");
  return k;
}

// The start is given to CBC only if it is a grid point (|k_j| <= B,
// ||k||^2 <= K): anything else is ignored (its columns would not exist).
bool on_grid(const std::vector<int>& k, const Layout& L) {
  if (k.size() != static_cast<std::size_t>(L.dim)) return false;
  long squared = 0;
  for (int v : k) {
    if (v < -L.bound || v > L.bound) return false;
    squared += static_cast<long>(v) * v;
  }
  return squared <= L.norm_squared;
}

// Gives CBC the grid point k as its first incumbent (a MIP start: the value
// of every column at k, the z_g from the rule k.x_g >= 0). CBC checks a
// start against the rows and drops it if infeasible; whatever the start,
// the run releases only the point CBC proves optimal (opdisc_start.h).
void give_start(const GroupedRows& data, const Layout& L, const Problem& P, const std::vector<int>& k,
                CbcModel* model) {
  if (!on_grid(k, L)) return;
  std::vector<double> value(P.cost.size(), 0.0);
  long squared = 0;
  for (int j = 0; j < L.dim; ++j) {
    const int v = k[static_cast<std::size_t>(j)];
    value[static_cast<std::size_t>(L.r(j, v))] = 1;
    value[static_cast<std::size_t>(L.k(j))] = v;
    squared += static_cast<long>(v) * v;
  }
  value[static_cast<std::size_t>(L.q(static_cast<int>(squared)))] = 1;
  for (std::size_t g = 0; g < data.groups.size(); ++g) {
    if (P.z_of[g] < 0) continue;
    long score = 0;
    for (int j : data.groups[g].ones) score += k[static_cast<std::size_t>(j)];
    value[static_cast<std::size_t>(P.z_of[g])] = score >= 0 ? 1 : 0;
  }
  // CBC matches a start by column name (the solver's default names).
  std::vector<std::string> names;
  for (std::size_t c = 0; c < value.size(); ++c) names.push_back(model->solver()->getColName(static_cast<int>(c)));
  std::vector<const char*> name_ptrs;
  for (const std::string& n : names) name_ptrs.push_back(n.c_str());
  model->setMIPStart(static_cast<int>(value.size()), name_ptrs.data(), value.data());
}

void silence(OsiClpSolverInterface& solver, CbcModel& model) {
  solver.messageHandler()->setLogLevel(0);
  solver.getModelPtr()->messageHandler()->setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  model.setLogLevel(0);
}

// What the child process reports (a fixed-size header, then d ints of k).
struct ChildReport {
  int outcome = kFailed;
  int status = -1, secondary = -1;
  double objective = 0;
  long nodes = 0;
};

// The solve itself (runs in the child process). Fills `k` when proven optimal.
ChildReport run_cbc(const GroupedRows& data, const Layout& L, const std::vector<double>& eta, double time_limit,
                    bool cuts, const std::optional<std::vector<int>>& start, std::vector<int>* k) {
  Problem P = formulate(data, L, eta);
  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  solver.loadProblem(P.rows, P.col_lo.data(), P.col_hi.data(), P.cost.data(), P.row_lo.data(), P.row_hi.data());
  for (int c = 0; c < solver.getNumCols(); ++c) solver.setInteger(c);
  CbcModel model(solver);
  silence(solver, model);
  CbcSolverUsefulData settings;
  settings.noPrinting_ = true;         // no banner, no statistics
  settings.useSignalHandler_ = false;  // never install CBC's SIGINT handler
  CbcMain0(model, settings);
  silence(solver, model);
  // The first incumbent: a local search's grid point (opdisc_start.h), or
  // the caller's (tests). Measured on balanced Adult, d = 20: the
  // non-private optimum's proof in 56 instead of 95 CPU-s (docs/opdisc.md §3).
  give_start(data, L, P, start ? *start : local_search_start(data, L.bound, L.norm_squared, eta), &model);
  const std::string seconds = std::to_string(time_limit);
  std::vector<const char*> argv = {"dptrain-opdisc", "-log", "0", "-slog", "0", "-timeMode", "elapsed",
                                   "-sec", seconds.c_str(), "-ratioGap", "0", "-allowableGap", kAbsoluteGap};
  if (!cuts) argv.insert(argv.end(), {"-cuts", "off"});
  argv.insert(argv.end(), {"-solve", "-quit"});
  CbcMain1(static_cast<int>(argv.size()), argv.data(), model, no_callback, settings);
  ChildReport r;
  r.status = model.status();
  r.secondary = model.secondaryStatus();
  r.nodes = model.getNodeCount();
  if (model.isSecondsLimitReached()) {
    r.outcome = kTimeLimit;
  } else if (model.isProvenOptimal() && model.status() == 0 && model.bestSolution() != nullptr) {
    *k = decode(model.bestSolution(), L);
    r.objective = model.getObjValue() + P.offset;
    r.outcome = kOptimal;
  }
  return r;
}

bool write_all(int fd, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// The child: quiet, deaf to the terminal's Ctrl-C (the parent decides), dead
// with its parent; it reports and leaves with _exit (no atexit handlers of
// the host process run).
[[noreturn]] void child_main(int fd, const GroupedRows& data, const Layout& L, const std::vector<double>& eta,
                             double time_limit, bool cuts, const std::optional<std::vector<int>>& start) {
  signal(SIGINT, SIG_IGN);
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  const int null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
  }
  ChildReport r;
  std::vector<int> k;
  try {
    r = run_cbc(data, L, eta, time_limit, cuts, start, &k);
  } catch (...) {
    r.outcome = kFailed;
  }
  k.resize(static_cast<std::size_t>(L.dim));
  const bool ok = write_all(fd, &r, sizeof(r)) && write_all(fd, k.data(), k.size() * sizeof(int));
  _exit(ok ? 0 : 1);
}

// Reads the child's report, polling `interrupted` and the wall clock every
// 50 ms; kills the child on an interrupt or past the hard limit.
bool read_report(int fd, pid_t child, const MipOptions& options, std::chrono::steady_clock::time_point start,
                 std::vector<char>* bytes, bool* interrupted, bool* killed) {
  const double hard_limit = options.time_limit + kGraceSeconds;
  char buf[4096];
  for (;;) {
    if (options.interrupted && options.interrupted()) *interrupted = true;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (*interrupted || elapsed > hard_limit) {
      kill(child, SIGKILL);
      *killed = true;
      return false;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, kPollMilliseconds);
    if (ready < 0 && errno != EINTR) return false;
    if (ready <= 0) continue;
    const ssize_t got = read(fd, buf, sizeof(buf));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return true;  // end of file: the child is done
    bytes->insert(bytes->end(), buf, buf + got);
  }
}

// The child's end, for the error detail (a crash of CBC is a signal).
std::string how_it_ended(int wstatus) {
  if (WIFSIGNALED(wstatus)) return "The solver process was ended by signal " + std::to_string(WTERMSIG(wstatus)) + ".";
  if (WIFEXITED(wstatus)) return "The solver process exited with status " + std::to_string(WEXITSTATUS(wstatus)) + ".";
  return {};
}

// One solve in a child process: a cancel or the time limit stops it within
// kPollMilliseconds whatever CBC is doing (its own event handler is only
// called between nodes, which can be minutes apart at the root), and its
// output can be discarded at the file-descriptor level.
struct Attempt {
  std::vector<char> bytes;
  bool complete = false, interrupted = false, killed = false;
  int wstatus = 0;
  // Ended by a signal it was not sent by us: CBC crashed.
  bool crashed() const { return !killed && !interrupted && WIFSIGNALED(wstatus); }
};

Attempt attempt(const GroupedRows& data, const Layout& L, const std::vector<double>& eta, const MipOptions& options,
                std::chrono::steady_clock::time_point start, double time_limit, bool cuts) {
  int fds[2];
  if (pipe(fds) != 0) fail(ErrorKind::Internal, "opdisc: cannot create a pipe for the solver");
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    fail(ErrorKind::Internal, "opdisc: cannot start the solver process");
  }
  if (child == 0) {
    close(fds[0]);
    child_main(fds[1], data, L, eta, time_limit, cuts, options.start);
  }
  close(fds[1]);
  Attempt a;
  a.complete = read_report(fds[0], child, options, start, &a.bytes, &a.interrupted, &a.killed);
  close(fds[0]);
  while (waitpid(child, &a.wstatus, 0) < 0 && errno == EINTR) {
  }
  return a;
}

}  // namespace

MipSolution solve_exact(const GroupedRows& data, int bound, int norm_squared, const std::vector<double>& eta,
                        const MipOptions& options) {
  const Layout L{data.dim, bound, norm_squared};
  if (eta.size() != static_cast<std::size_t>(L.dim) + 1) fail(ErrorKind::Internal, "opdisc: eta needs d + 1 values");
  const auto start = std::chrono::steady_clock::now();
  Attempt a = attempt(data, L, eta, options, start, options.time_limit, /*cuts=*/true);
  // CBC 2.10 crashes (SIGSEGV) on some of these MIPs inside its cut
  // generators (measured: balanced Adult, d = 17, one noise draw in 40; the
  // same MIP solves with cuts off). The argmin does not depend on how it is
  // found (exact, unique with probability 1), so a crash is retried once
  // without cuts, within what is left of the time limit.
  const double left = options.time_limit - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (a.crashed() && left > 1) a = attempt(data, L, eta, options, start, left, /*cuts=*/false);
  MipSolution out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (a.interrupted)
    throw Error(ErrorKind::Internal, "the opdisc solve was interrupted: nothing is released", {}, {}, "57014");
  const std::string limit = std::to_string(options.time_limit);
  ChildReport r;
  const std::size_t expected = sizeof(r) + static_cast<std::size_t>(L.dim) * sizeof(int);
  if (!a.killed && a.complete && a.bytes.size() == expected) std::memcpy(&r, a.bytes.data(), sizeof(r));
  else if (!a.killed)
    fail(ErrorKind::Internal, "the opdisc solver process failed: nothing is released", how_it_ended(a.wstatus));
  if (a.killed || r.outcome == kTimeLimit)
    fail(ErrorKind::ProgramLimit,
         "the opdisc MIP was not solved to optimality within " + limit + " seconds: nothing is released",
         "Privacy needs the exact argmin; a time-out releases nothing.",
         "Raise options.time_limit, or use fewer or coarser binary features.");
  if (r.outcome != kOptimal)
    fail(ErrorKind::Internal, "the opdisc MIP solver did not prove optimality: nothing is released",
         "CBC status " + std::to_string(r.status) + ", secondary status " + std::to_string(r.secondary) + ".");
  out.nodes = r.nodes;
  out.k.resize(static_cast<std::size_t>(L.dim));
  std::memcpy(out.k.data(), a.bytes.data() + sizeof(r), out.k.size() * sizeof(int));
  long squared = 0;
  for (int v : out.k) {
    if (v < -bound || v > bound) fail(ErrorKind::Internal, "the opdisc MIP solution is off the grid");
    squared += static_cast<long>(v) * v;
  }
  if (squared > norm_squared) fail(ErrorKind::Internal, "the opdisc MIP solution is outside the norm bound");
  out.objective = objective(data, out.k, eta, norm_squared);
  // The re-evaluated objective must be CBC's (up to its tolerances): the
  // point is the one CBC proved optimal, not an artefact of rounding.
  if (!(std::fabs(out.objective - r.objective) <= 1e-6 * (1 + std::fabs(r.objective))))
    fail(ErrorKind::Internal, "the opdisc MIP solution does not reproduce the solver's objective");
  return out;
}

}  // namespace dptrain::opdisc
