// Neighbouring datasets. Every privacy statement in dptrain is relative to one
// of two relations (docs/pitfalls.md §P8):
//   * add/remove-one: D' = D plus or minus one row (n differs by one). Used by
//     the RDP / moments accountants of the Poisson-subsampled Gaussian (Abadi
//     et al. 2016, Mironov et al. 2019) and by DP-AGD (Lee & Kifer 2018, Def. 3.1).
//   * replace-one: D' = D with one row's value replaced (n is public and equal).
//     Used by bolt-on (Wu et al. 2017), AMP (Iyengar et al. 2019) and the
//     output-perturbation family.
// A replacement is a removal followed by an addition, so every add/remove-one
// guarantee implies a replace-one guarantee by group privacy for groups of two;
// the functions below are those sound conversions. The converse does not hold
// in general (a replace-one mechanism may reveal n), so it is not offered.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dptrain::privacy {

enum class Adjacency { AddRemoveOne, ReplaceOne };

// "add-remove" | "replace-one"; anything else throws Error(InvalidParameter).
Adjacency parse_adjacency(const std::string& name);
std::string adjacency_name(Adjacency adjacency);

// An (epsilon, delta)-DP guarantee.
struct DpGuarantee {
  double epsilon;
  double delta;
};

// L2 (or any norm) sensitivity of a query under replace-one given its sensitivity
// under add/remove-one: f(D) - f(D') = (f(D) - f(D u D')) + (f(D u D') - f(D')) with
// D u D' an add/remove neighbour of both, so the triangle inequality gives 2x.
// (Often loose: a sum of rows clipped to norm C has add/remove sensitivity C and
// replace-one sensitivity 2C, so here it is tight.)
double replace_one_sensitivity(double add_remove_sensitivity);

// (epsilon, delta)-DP under add/remove-one => (2 epsilon, (1 + e^epsilon) delta)-DP
// under replace-one (group privacy for k = 2: apply the definition twice along
// D -> D u D' -> D', e.g. Vadhan 2017, Lemma 2.2, with the exact delta sum
// delta (1 + e^epsilon) instead of its bound 2 e^epsilon delta). A delta that
// would reach 1 is returned as 1 (a statement of nothing), never overflowed.
DpGuarantee dp_add_remove_to_replace_one(double epsilon, double delta);

// rho-zCDP under add/remove-one => 4 rho-zCDP under replace-one (Bun & Steinke
// 2016, Proposition 27: group privacy for groups of size k costs k^2 rho).
double zcdp_add_remove_to_replace_one(double rho);

// An RDP curve {(alpha_i, eps_i)} under add/remove-one => a curve under replace-one
// by Mironov (2017), Proposition 2 (group privacy, groups of size 2^c with c = 1):
// (alpha, eps)-RDP with alpha >= 4 gives (alpha / 2, 3 eps)-RDP. Orders below 4
// are dropped. Returns the converted (orders, rdp).
std::pair<std::vector<double>, std::vector<double>> rdp_add_remove_to_replace_one(
    const std::vector<double>& orders, const std::vector<double>& rdp);

}  // namespace dptrain::privacy
