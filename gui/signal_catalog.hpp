// SPDX-License-Identifier: GPL-3.0-or-later
// The recordable variables of the document's blocks as the plots show them: result column name,
// description, SI unit (results are SI) and the display unit: the one the user chose for a
// parameter of the same quantity on that block (kept in the file as the block's `ui.units`: a
// position entered in mm plots in mm), else the one the block declares (a friction inertia's angle
// in deg, its speed in rpm). Plots, the cursor and the CSV export use the display unit.
#pragma once

#include "core/units/unit.hpp"

#include <optional>
#include <string>
#include <vector>

namespace endstop::gui {

class Document;

struct SignalInfo {
    std::string name;   // "stop1.f"
    std::string block;
    std::string var;
    std::string label;   // "Contact force"
    core::Unit si;
    core::Unit display;
    double toDisplay(double siValue) const { return display.fromSI(siValue); }
    std::string unitText() const;   // display symbol, "" for a plain number
};

std::vector<SignalInfo> signalsOf(const Document& doc, const std::string& block);
std::vector<SignalInfo> signalCatalog(const Document& doc);   // every block, in model order
std::optional<SignalInfo> signalInfo(const Document& doc, const std::string& column);

}   // namespace endstop::gui
