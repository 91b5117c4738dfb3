// SPDX-License-Identifier: GPL-3.0-or-later
// BlockShape: how a block instance is drawn, derived from its descriptors only (generic over the
// registry). Body centred on the block position; every port tip lies on the 10-unit grid so wires
// snap cleanly. Side rules: a pure signal block has inputs left and outputs right; a block with one
// conserving port has it on top (mass, reference), inputs left, outputs right; otherwise conserving
// ports alternate left/right (R left, C right), inputs go on top and outputs at the bottom.
#pragma once

#include "core/blockapi/registry.hpp"

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <string>
#include <vector>

namespace endstop::gui {

constexpr double kGrid = 10.0;
constexpr double kPortLead = 10.0;   // from the body edge to the port tip

struct PortShape {
    std::string name;
    QString label;
    core::PortKind kind = core::PortKind::Conserving;
    core::Domain domain = core::Domain::Translational;
    QPointF tip;   // wire attach point, body coordinates (before rotation/flip)
    QPointF dir;   // outward unit vector, body coordinates
};

constexpr double kNameSpace = 24.0;   // between a body edge and the icon when port names are drawn there

struct BlockShape {
    QRectF body;
    QRectF iconRect;                // inside the body, clear of the port names
    std::vector<PortShape> ports;   // present ports only
    QString title;
    QString help;
    QString iconPath;
    bool known = true;   // false: a type the registry does not have
    QString caption;     // drawn instead of the icon: a subsystem's definition name, a port's role

    const PortShape* port(std::string_view name) const;
};

BlockShape layoutBlock(const core::BlockDescription& block);
// The same rules for a list of present ports: a subsystem instance (its definition's ports as
// seen from outside, the definition name as caption)
BlockShape layoutPorts(const std::vector<core::PortDesc>& ports, const QString& title, const QString& typeId,
                       double minWidth = 0.0);   // minWidth: room for a caption
// A port pseudo-block inside a definition: a small box, its one port facing the blocks inside
// (right for a conserving port and a signal input, left for a signal output)
BlockShape portBlockShape(const core::PortDesc& inner, const QString& typeId);
BlockShape unknownBlockShape(const QString& typeId);

QString iconPathFor(const QString& typeId);   // :/icons/<type>.svg, :/icons/<suffix>.svg, generic
QColor domainColor(core::Domain d);
QString portDescription(const PortShape& p);   // for tooltips and messages

}   // namespace endstop::gui
