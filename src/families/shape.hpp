#pragma once
// A family's problem size: the token count every family is swept over, and the model dimensions
// the family names itself (mla_decode_epilogue: heads and block_size; attn_res: blocks). Nothing
// outside a family's folder knows which dimensions it has: the sweep, the result files, compare,
// report and codegen carry them by name.
#include <string>
#include <utility>
#include <vector>

#include "results/dims.hpp"

namespace kk3::families {

/// A model dimension besides the token count.
struct dimension {
  std::string name;     ///< in plans, result files, headers and flags: "heads"
  std::string label;    ///< in text and names: "H" (as in "H=16" and "-H16")
  long long least = 1;  ///< its smallest value (attn_res takes NB = 0)
  bool planned = true;  ///< a plan or a flag may choose its values (false: the mode fixes it)
  bool key = true;      ///< tells the family's model shapes apart (false: an edge-case knob of
                        ///< the verifier, such as mla's KV-cache block size)
};

/// Values of named model dimensions (the result model's type, results/dims.hpp).
using results::dim_or;
using results::dims;
using results::set_dim;

/// A plan's values for some dimensions, by name.
using planned_dims = std::vector<std::pair<std::string, std::vector<long long>>>;

/// A problem size of a family.
struct shape {
  shape() = default;
  explicit shape(long long t) : tokens(t) {}

  long long tokens = 1;  ///< T: tokens in the decode batch
  dims model;            ///< every model dimension of the family, by name, and where a family
                         ///< takes one, an edge-case value the verifier varies beside them that
                         ///< is no dimension (attn_res's block_write_idx where it is not NB)
  bool strided = false;  ///< inputs laid out with padded token / head / row strides

  /// The value of model dimension `name`; throws std::logic_error when the family gave none
  /// (a family reading a dimension it never set is a bug).
  long long at(const std::string& name) const;
  void set(const std::string& name, long long value) { set_dim(model, name, value); }
};

}  // namespace kk3::families
