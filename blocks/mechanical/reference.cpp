// SPDX-License-Identifier: GPL-3.0-or-later
// Mechanical reference (ground): port R. The node it is attached to has across value 0
// (v = 0, w = 0) and takes whatever force balances it; it contributes no equation.
#include "blocks/common.hpp"

namespace endstop::blocks {

class Reference final : public core::BlockT<Reference> {
public:
    Reference(const core::ParamValues& p, Domain d) : BlockT(info(d), p), R(conserving("R", d, "Reference")) {
        makeReference();
    }

    template <class S> void equations(core::Eq<S>& /*eq*/) const {}

private:
    static core::BlockInfo info(Domain d) {
        return {.typeId = typeId(d, "reference"),
                .typeVersion = 1,
                .title = std::string(names(d).category) + " Reference",
                .category = names(d).category,
                .help = "Ground: a point fixed in the inertial frame."};
    }
    const core::Port R;
};

void addReference(core::Registry& r) { r.addTwins<Reference>(); }

}   // namespace endstop::blocks
