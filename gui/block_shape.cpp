// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/block_shape.hpp"

#include "gui/resources.hpp"

#include <QFile>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace endstop::gui {

namespace {

enum Side { Left, Right, Top, Bottom };

QPointF outward(Side s) {
    static const std::array<QPointF, 4> dirs{QPointF(-1, 0), QPointF(1, 0), QPointF(0, -1), QPointF(0, 1)};
    return dirs[static_cast<std::size_t>(s)];
}

double roundUp(double x, double step) { return std::ceil(x / step) * step; }

}   // namespace

const PortShape* BlockShape::port(std::string_view name) const {
    for (const PortShape& p : ports)
        if (p.name == name) return &p;
    return nullptr;
}

BlockShape layoutBlock(const core::BlockDescription& block) {
    BlockShape shape = layoutPorts(block.presentPorts(), QString::fromStdString(block.info.title),
                                   QString::fromStdString(block.info.typeId));
    shape.help = QString::fromStdString(block.info.help);
    return shape;
}

BlockShape portBlockShape(const core::PortDesc& inner, const QString& typeId) {
    BlockShape shape;
    shape.title = QStringLiteral("Subsystem port");
    shape.help = QStringLiteral(
        "A port of the subsystem: what is wired to it here meets what is wired to the instance's port outside.");
    shape.iconPath = iconPathFor(typeId);
    shape.caption = inner.domain == core::Domain::Signal
                        ? (inner.kind == core::PortKind::Output ? QStringLiteral("in") : QStringLiteral("out"))
                        : QStringLiteral("port");
    shape.body = QRectF(-2 * kGrid, -kGrid, 4 * kGrid, 2 * kGrid);
    shape.iconRect = shape.body.adjusted(2, 2, -2, -2);
    const QPointF dir = inner.kind == core::PortKind::Input ? outward(Left) : outward(Right);
    shape.ports.push_back({inner.name, QString::fromStdString(inner.label), inner.kind, inner.domain,
                           dir * (2 * kGrid + kPortLead), dir});
    return shape;
}

BlockShape layoutPorts(const std::vector<core::PortDesc>& ports, const QString& title, const QString& typeId,
                       double minWidth) {
    BlockShape shape;
    shape.title = title;
    shape.iconPath = iconPathFor(typeId);

    int conserving = 0;
    for (const core::PortDesc& d : ports)
        if (d.kind == core::PortKind::Conserving) ++conserving;

    std::array<std::vector<int>, 4> sides;
    int nthConserving = 0;
    for (std::size_t i = 0; i < ports.size(); ++i) {
        const core::PortDesc& d = ports[i];
        Side s = Left;
        if (d.kind == core::PortKind::Conserving)
            s = conserving == 1 ? Top : (nthConserving++ % 2 == 0 ? Left : Right);
        else if (conserving == 0 || conserving == 1)
            s = d.kind == core::PortKind::Input ? Left : Right;
        else
            s = d.kind == core::PortKind::Input ? Top : Bottom;
        sides[s].push_back(static_cast<int>(i));
    }

    const double pitch = 2 * kGrid;
    const auto most = [&](Side a, Side b) { return static_cast<double>(std::max(sides[a].size(), sides[b].size())); };
    double w =
        std::max({6 * kGrid, roundUp(pitch * most(Top, Bottom) + pitch, 2 * kGrid), roundUp(minWidth, 2 * kGrid)});
    double h = std::max(4 * kGrid, roundUp(pitch * most(Left, Right) + pitch * 0.5, 2 * kGrid));
    // with more than two ports their names are drawn inside the body: room for them beside the icon
    const bool named = std::accumulate(sides.begin(), sides.end(), std::size_t{0},
                                       [](std::size_t n, const auto& v) { return n + v.size(); }) > 2;
    const bool sideNames = named && (!sides[Left].empty() || !sides[Right].empty());
    const bool endNames = named && (!sides[Top].empty() || !sides[Bottom].empty());
    if (sideNames) w += 2 * kGrid * static_cast<double>(!sides[Left].empty() + !sides[Right].empty());
    if (endNames) h += 2 * kGrid;
    shape.body = QRectF(-w / 2, -h / 2, w, h);
    const auto inset = [&](Side s, double margin, double label) { return !named || sides[s].empty() ? margin : label; };
    shape.iconRect = shape.body.adjusted(inset(Left, 5, kNameSpace), inset(Top, 4, kNameSpace * 0.6),
                                         -inset(Right, 5, kNameSpace), -inset(Bottom, 4, kNameSpace * 0.6));

    for (int s = 0; s < 4; ++s) {
        const auto& list = sides[static_cast<std::size_t>(s)];
        const double n = static_cast<double>(list.size());
        for (std::size_t k = 0; k < list.size(); ++k) {
            const core::PortDesc& d = ports[static_cast<std::size_t>(list[k])];
            const double along = (static_cast<double>(k) - (n - 1) / 2) * pitch;
            // an even count straddles the centre line; keep tips on the grid
            const double offset = std::round(along / kGrid) * kGrid;
            const QPointF dir = outward(static_cast<Side>(s));
            QPointF edge = s == Left    ? QPointF(-w / 2, offset)
                           : s == Right ? QPointF(w / 2, offset)
                           : s == Top   ? QPointF(offset, -h / 2)
                                        : QPointF(offset, h / 2);
            shape.ports.push_back(
                {d.name, QString::fromStdString(d.label), d.kind, d.domain, edge + dir * kPortLead, dir});
        }
    }
    return shape;
}

BlockShape unknownBlockShape(const QString& typeId) {
    BlockShape shape;
    shape.body = QRectF(-3 * kGrid, -2 * kGrid, 6 * kGrid, 4 * kGrid);
    shape.iconRect = shape.body.adjusted(5, 4, -5, -4);
    shape.title = typeId;
    shape.help = QStringLiteral("Unknown block type: this version of Endstop does not know it.");
    shape.iconPath = QStringLiteral(":/icons/generic.svg");
    shape.known = false;
    return shape;
}

QString iconPathFor(const QString& typeId) {
    initResources();
    const QString exact = QStringLiteral(":/icons/%1.svg").arg(typeId);
    if (QFile::exists(exact)) return exact;
    const QString suffix = QStringLiteral(":/icons/%1.svg").arg(typeId.section('.', -1));
    if (QFile::exists(suffix)) return suffix;
    return QStringLiteral(":/icons/generic.svg");
}

QColor domainColor(core::Domain d) {
    switch (d) {
        case core::Domain::Translational:
            return QColor(0x1b, 0x8a, 0x5a);   // green
        case core::Domain::Rotational:
            return QColor(0xc0, 0x56, 0x1c);   // burnt orange
        case core::Domain::Signal:
            return QColor(0x25, 0x5f, 0xc9);   // blue
    }
    return Qt::black;
}

QString portDescription(const PortShape& p) {
    const char* kind = p.kind == core::PortKind::Input    ? "signal input"
                       : p.kind == core::PortKind::Output ? "signal output"
                                                          : nullptr;
    const QString what =
        kind ? QString::fromLatin1(kind) : QStringLiteral("%1 port").arg(QString::fromLatin1(core::toString(p.domain)));
    return QStringLiteral("%1 (%2)").arg(QString::fromStdString(p.name), what);
}

}   // namespace endstop::gui
