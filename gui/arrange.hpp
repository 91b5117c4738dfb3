// SPDX-License-Identifier: GPL-3.0-or-later
// Arranging blocks: places for the blocks of a level that a file gives no position (a project
// written by a script, a study or the benchmark generator) and for Edit > Arrange Blocks. Pure
// geometry over sizes, port sides and links; the scene supplies them and applies the result.
// The connection graph (Boost.Graph) is cut into its connected components; each is laid out in
// columns by breadth-first distance from one end of its longest path, each column ordered by
// where its neighbours sit (barycentre sweeps) and placed as close as it may to them; the
// components are packed in rows, the largest first. docs/architecture.md, "Arranging blocks".
#pragma once

#include <QPointF>
#include <QRectF>

#include <string>
#include <vector>

namespace endstop::gui {

struct ArrangePort {
    std::string name;
    QPointF tip;           // where its wires attach, relative to the block's position, as drawn now
    int side = 0;          // x direction the port faces as drawn now: -1 left, +1 right, 0 up or down
    bool output = false;   // a signal output (its block goes left of what it feeds)
    bool input = false;    // a signal input
};

struct ArrangeItem {
    QRectF extent;   // body, port tips and name label relative to the block's position, as drawn now
    std::vector<ArrangePort> ports;
    bool hub = false;      // a reference: set below the blocks it holds, out of the columns
    bool mirrors = true;   // flipping it mirrors it left to right (not turned by 90 degrees)
};

struct ArrangeLink {
    int a = 0, b = 0;   // indices into the items
    std::string portA, portB;
};

struct Placement {
    QPointF pos;         // on the grid
    bool flip = false;   // mirror it: its ports then face the blocks they are wired to
};

// One placement per item; the layout's top left corner is at (0, 0).
std::vector<Placement> arrangeBlocks(const std::vector<ArrangeItem>& items, const std::vector<ArrangeLink>& links);

}   // namespace endstop::gui
