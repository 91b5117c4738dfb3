// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/signal_catalog.hpp"

#include "gui/document.hpp"

namespace endstop::gui {

std::string SignalInfo::unitText() const {
    return display.dimension.dimensionless() && display.scale == 1.0 ? std::string() : display.display();
}

namespace {
// The display unit the user chose for a parameter of this dimension on the block (its first such
// parameter in declaration order), if any: a position entered in mm is plotted in mm.
std::optional<core::Unit> chosenUnit(const core::model::BlockSpec& spec, const core::BlockDescription& block,
                                     const core::Dimension& dimension) {
    for (const core::ParamDesc& p : block.params) {
        const auto it = spec.ui.displayUnits.find(p.key);
        if (it == spec.ui.displayUnits.end()) continue;
        try {
            const core::Unit u = core::Unit::parse(it->second);
            if (u.dimension == dimension) return u;
        } catch (const core::UnitError&) {}
    }
    return std::nullopt;
}
}   // namespace

std::vector<SignalInfo> signalsOf(const Document& doc, const std::string& block) {
    std::vector<SignalInfo> out;
    const core::model::BlockSpec* spec = doc.model().find(block);
    const std::optional<core::BlockDescription> b = spec ? doc.describe(*spec) : std::nullopt;
    if (!b) return out;
    for (const core::VarDesc& d : b->recorded) {
        SignalInfo s{block + "." + d.name, block, d.name, d.label, core::Unit::si(d.unit.dimension), d.unit};
        if (const auto chosen = chosenUnit(*spec, *b, d.unit.dimension)) s.display = *chosen;
        if (s.display.symbol.empty()) s.display = s.si;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<SignalInfo> signalCatalog(const Document& doc) {
    std::vector<SignalInfo> out;
    for (const core::model::BlockSpec& spec : doc.model().blocks()) {
        std::vector<SignalInfo> s = signalsOf(doc, spec.name);
        out.insert(out.end(), std::make_move_iterator(s.begin()), std::make_move_iterator(s.end()));
    }
    return out;
}

std::optional<SignalInfo> signalInfo(const Document& doc, const std::string& column) {
    const auto dot = column.rfind('.');
    if (dot == std::string::npos) return std::nullopt;
    for (SignalInfo& s : signalsOf(doc, column.substr(0, dot)))
        if (s.name == column) return std::move(s);
    return std::nullopt;
}

}   // namespace endstop::gui
