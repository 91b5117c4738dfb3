// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/block_item.hpp"

#include "gui/diagram_scene.hpp"
#include "gui/document.hpp"
#include "gui/help_text.hpp"
#include "gui/icon_cache.hpp"

#include <QFont>
#include <QFontMetricsF>
#include <QGraphicsSceneHoverEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <cmath>

namespace endstop::gui {

namespace {
constexpr double kPortRadius = 4.0;
constexpr double kHitRadius = 7.0;

QFont labelFont() {
    QFont f;
    f.setPixelSize(11);
    return f;
}
}   // namespace

BlockItem::BlockItem(DiagramScene& scene, const QString& name) : m_scene(scene), m_name(name) {
    setFlags(ItemIsSelectable | ItemIsMovable | ItemSendsGeometryChanges);
    setAcceptHoverEvents(true);
    refresh();
}

void BlockItem::setName(const QString& name) {
    prepareGeometryChange();
    m_name = name;
    updateGeometry();
}

void BlockItem::refresh() {
    const core::model::BlockSpec* spec = m_scene.levelModel().find(m_name.toStdString());
    if (!spec) return;
    prepareGeometryChange();
    m_layout = m_scene.shapeOf(*spec);
    m_bounds = QRectF();   // ports may have changed: refreshUi() recomputes the geometry
    m_tooltip = blockHelpHtml(m_layout.title, QString::fromStdString(spec->type), m_layout.help);
    setToolTip(m_tooltip);
    refreshUi();
}

bool BlockItem::refreshUi() {
    const core::model::BlockSpec* spec = m_scene.levelModel().find(m_name.toStdString());
    if (!spec) return false;
    const int rotation = ((spec->ui.rotation % 360) + 360) % 360;
    const bool turned = rotation != m_rotation || spec->ui.flipped != m_flipped || m_bounds.isNull();
    if (turned) {
        prepareGeometryChange();
        m_rotation = rotation;
        m_flipped = spec->ui.flipped;
        updateGeometry();
        update();
    }
    if (pos() != QPointF(spec->ui.x, spec->ui.y)) setPos(spec->ui.x, spec->ui.y);   // wires follow
    return turned;
}

QTransform BlockItem::bodyTransform() const {
    QTransform t;
    t.rotate(m_rotation);
    if (m_flipped) t.scale(-1, 1);
    return t;
}

QPointF BlockItem::portTip(const PortShape& p) const { return mapToScene(bodyTransform().map(p.tip)); }

QPointF BlockItem::portDir(const PortShape& p) const {
    const QPointF d = bodyTransform().map(p.dir);
    return QPointF(std::round(d.x()), std::round(d.y()));
}

const PortShape* BlockItem::portAt(QPointF scenePos, double tolerance) const {
    const PortShape* best = nullptr;
    double bestDist = tolerance;
    for (const PortShape& p : m_layout.ports) {
        const QPointF d = portTip(p) - scenePos;
        const double dist = std::hypot(d.x(), d.y());
        if (dist <= bestDist) {
            bestDist = dist;
            best = &p;
        }
    }
    return best;
}

QRectF BlockItem::obstacleSceneRect() const {
    QRectF r = bodyTransform().mapRect(m_layout.body);
    // up to the end of each port's stub, where its own wire turns: nothing else may pass there
    for (const PortShape& p : m_layout.ports)
        r |= QRectF(bodyTransform().map(p.tip + p.dir * kPortLead) - QPointF(0.05, 0.05), QSizeF(0.1, 0.1));
    return mapRectToScene(r);
}

void BlockItem::setError(bool error) {
    if (error == m_error) return;
    m_error = error;
    update();
}

void BlockItem::setHotPort(const std::string& port, bool refused) {
    if (port == m_hotPort && refused == m_hotRefused) return;
    m_hotPort = port;
    m_hotRefused = refused;
    update();
}

void BlockItem::updateGeometry() {
    QRectF body = bodyTransform().mapRect(m_layout.body);
    for (const PortShape& p : m_layout.ports) {
        const QPointF tip = bodyTransform().map(p.tip);
        body |= QRectF(tip - QPointF(kHitRadius, kHitRadius), QSizeF(2 * kHitRadius, 2 * kHitRadius));
    }
    m_bodyBounds = body;
    const QFontMetricsF fm(labelFont());
    const double w = fm.horizontalAdvance(m_name) + 6;
    m_label = QRectF(-w / 2, body.bottom() + 1, w, fm.height() + 2);
    m_bounds = (m_bodyBounds | m_label).adjusted(-2, -2, 2, 2);
}

QPainterPath BlockItem::shape() const {
    QPainterPath path;
    path.addPolygon(bodyTransform().map(QPolygonF(m_layout.body)));
    path.closeSubpath();
    for (const PortShape& p : m_layout.ports) path.addEllipse(bodyTransform().map(p.tip), kHitRadius, kHitRadius);
    path.addRect(m_label);
    return path;
}

void BlockItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    QPainter& p = *painter;
    const double lod = option->levelOfDetailFromTransform(p.worldTransform());
    const bool selected = isSelected();
    const QColor frame = m_error    ? QColor(0xc6, 0x28, 0x28)
                         : selected ? QColor(0x1f, 0x6f, 0xeb)
                                    : QColor(0x55, 0x5b, 0x66);
    if (lod < 0.3) {   // far away: a plain box is all the eye can see
        p.fillRect(bodyTransform().mapRect(m_layout.body), selected ? frame : QColor(0xb8, 0xbe, 0xc8));
        return;
    }
    p.save();
    p.setTransform(bodyTransform(), true);
    p.setPen(QPen(frame, selected || m_error ? 2.0 : 1.0));
    p.setBrush(m_layout.known ? QColor(0xfb, 0xfb, 0xfc) : QColor(0xff, 0xee, 0xee));
    p.drawRoundedRect(m_layout.body, 3, 3);
    if (m_layout.caption.isEmpty())
        iconCache().draw(p, m_layout.iconPath, m_layout.iconRect);
    else
        paintCaption(p);
    for (const PortShape& port : m_layout.ports) paintPort(p, port);
    p.restore();
    if (lod < 0.5) return;
    p.setFont(labelFont());
    p.setPen(selected ? frame : QColor(0x20, 0x24, 0x2a));
    p.drawText(m_label, Qt::AlignCenter, m_name);
}

// a subsystem's definition name (or a port block's role), upright whatever the rotation
void BlockItem::paintCaption(QPainter& p) const {
    p.save();
    const QPointF c = m_layout.iconRect.center();
    p.translate(c);
    p.setTransform(bodyTransform().inverted(), true);
    const QRectF box = bodyTransform().mapRect(m_layout.iconRect.translated(-c));
    QFont f;
    f.setPixelSize(m_layout.body.height() <= 2 * kGrid ? 9 : 11);
    f.setBold(true);
    // a long definition name shrinks to fit the body, and is elided only below a legible size
    const double room = box.width() - 4;
    while (f.pixelSize() > 7 && QFontMetricsF(f).horizontalAdvance(m_layout.caption) > room)
        f.setPixelSize(f.pixelSize() - 1);
    p.setFont(f);
    p.setPen(QColor(0x3a, 0x44, 0x55));
    p.drawText(box, Qt::AlignCenter, QFontMetricsF(f).elidedText(m_layout.caption, Qt::ElideRight, room));
    p.restore();
}

void BlockItem::paintPort(QPainter& p, const PortShape& port) const {
    const QColor c = domainColor(port.domain);
    const QPointF edge = port.tip - port.dir * kPortLead;
    p.setPen(QPen(c, 1.5));
    p.drawLine(edge, port.tip);
    const bool hot = port.name == m_hotPort;
    const double r = hot ? kPortRadius + 2 : kPortRadius;
    const QColor ring = m_hotRefused ? kRefusedColour : QColor(0xff, 0xa0, 0x00);
    p.setPen(QPen(hot ? ring : c.darker(130), hot ? 2.0 : 1.0));
    switch (port.kind) {
        case core::PortKind::Conserving:
            p.setBrush(c);
            if (port.domain == core::Domain::Rotational)
                p.drawEllipse(port.tip, r, r);
            else
                p.drawRect(QRectF(port.tip - QPointF(r, r), QSizeF(2 * r, 2 * r)));
            break;
        case core::PortKind::Input:
        case core::PortKind::Output: {
            // a triangle pointing along the signal flow: into the block for inputs, out for outputs
            const QPointF d = port.kind == core::PortKind::Input ? -port.dir : port.dir;
            const QPointF n(-d.y(), d.x());
            const QPolygonF tri{port.tip + d * r * 1.2, port.tip - d * r + n * r, port.tip - d * r - n * r};
            p.setBrush(port.kind == core::PortKind::Output ? QBrush(c) : QBrush(Qt::white));
            p.drawPolygon(tri);
            break;
        }
    }
    if (hot && m_hotRefused) {   // a cross over the port: this wire would be refused
        p.setPen(QPen(kRefusedColour, 2.0));
        const double x = r + 3;
        p.drawLine(port.tip + QPointF(-x, -x), port.tip + QPointF(x, x));
        p.drawLine(port.tip + QPointF(-x, x), port.tip + QPointF(x, -x));
    }
    if (m_layout.ports.size() > 2) {   // names tell several ports apart
        QFont f;
        f.setPixelSize(8);
        p.setFont(f);
        p.setPen(c.darker(140));
        const QPointF at = edge - port.dir * 7;
        p.save();
        p.translate(at);
        p.setTransform(QTransform().rotate(-m_rotation) * (m_flipped ? QTransform::fromScale(-1, 1) : QTransform()),
                       true);
        const QString name = QString::fromStdString(port.name);
        const QRectF box =
            QFontMetricsF(f).boundingRect(QRectF(-14, -6, 28, 12), Qt::AlignCenter, name).adjusted(-1, 0, 1, 0);
        p.fillRect(box, QColor(0xfb, 0xfb, 0xfc));   // readable over the icon's lines
        p.drawText(QRectF(-14, -6, 28, 12), Qt::AlignCenter, name);
        p.restore();
    }
}

QVariant BlockItem::itemChange(GraphicsItemChange change, const QVariant& value) {
    if (change == ItemPositionChange) {
        const QPointF p = value.toPointF();
        return QPointF(std::round(p.x() / kGrid) * kGrid, std::round(p.y() / kGrid) * kGrid);
    }
    if (change == ItemPositionHasChanged) m_scene.blockItemMoved(*this);
    return QGraphicsItem::itemChange(change, value);
}

void BlockItem::hoverMoveEvent(QGraphicsSceneHoverEvent* event) {
    const PortShape* port = portAt(event->scenePos(), kHitRadius);
    setCursor(port ? Qt::CrossCursor : Qt::ArrowCursor);
    setToolTip(port ? QStringLiteral("%1.%2 \u2014 %3: %4")
                          .arg(m_name, QString::fromStdString(port->name), port->label, portDescription(*port))
                    : m_tooltip);
}

}   // namespace endstop::gui
