// float8[] in PostgreSQL's binary wire format (array_send / array_recv), for
// the passes the controller drives: their input and result are float8[] of
// up to P*K*d values (a DP-AGD line search on d = 8,315 sends 21 points, 3.7
// MB of text each way per pass). As text both sides formatted and parsed
// every value, which made a controller run of DP-AGD on Reuters take over
// 300 s against 16 s inside the server; binary is copied, and exact.
//
// Layout (network byte order): int32 ndim, int32 has-null flag, uint32
// element type OID (701, float8), then per dimension int32 length and int32
// lower bound, then per element int32 length (8, or -1 for NULL) and the
// IEEE 754 bits as a big-endian uint64.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dptrain::client {

constexpr unsigned kFloat8Oid = 701;
constexpr unsigned kFloat8ArrayOid = 1022;

// One-dimensional, lower bound 1; n = 0 gives the empty array (ndim 0).
std::string float8_array_to_binary(const double* values, std::size_t n);
// The same bytes appended to `out` (a COPY BINARY row's field), and their count.
void append_float8_array_binary(std::string& out, const double* values, std::size_t n);
std::size_t float8_array_binary_size(std::size_t n);
// Any number of dimensions, read in storage (row-major) order, as
// parse_float_array reads the text. Throws PgError on a malformed value, a
// NULL element or an element type other than float8.
std::vector<double> float8_array_from_binary(const char* data, std::size_t length);

}  // namespace dptrain::client
