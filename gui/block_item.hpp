// SPDX-License-Identifier: GPL-3.0-or-later
// BlockItem: one block on the canvas. It holds the block's name; everything else (type, ports,
// position, rotation, flip) is read from the model by refresh() and cached for painting. The body
// (frame, icon, ports) is rotated and flipped; the name label below it stays upright.
#pragma once

#include "gui/block_shape.hpp"

#include <QGraphicsItem>
#include <QTransform>

namespace endstop::gui {

class DiagramScene;

inline const QColor kRefusedColour{0xd3, 0x2f, 0x2f};

class BlockItem final : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };
    BlockItem(DiagramScene& scene, const QString& name);

    int type() const override { return Type; }
    const QString& name() const { return m_name; }
    void setName(const QString& name);
    void refresh();     // everything: ports (parameters may have changed) and ui
    bool refreshUi();   // position, rotation, flip; true if the body turned (wires need a new route)

    const BlockShape& layout() const { return m_layout; }
    QTransform bodyTransform() const;            // body coordinates -> item coordinates
    QPointF portTip(const PortShape& p) const;   // scene coordinates
    QPointF portDir(const PortShape& p) const;   // scene direction
    const PortShape* portAt(QPointF scenePos, double tolerance) const;
    QRectF labelRect() const { return m_label; }   // item coordinates
    QRectF obstacleSceneRect() const;              // body, port tips and stubs: where other wires must not run
    void setError(bool error);
    bool hasError() const { return m_error; }   // drawn with a red frame
    // the port a dragged wire would attach to; refused: the wire would be refused there (red cross)
    void setHotPort(const std::string& port, bool refused = false);
    const std::string& hotPort() const { return m_hotPort; }
    bool hotPortRefused() const { return m_hotRefused; }

    QRectF boundingRect() const override { return m_bounds; }
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

protected:
    QVariant itemChange(GraphicsItemChange change, const QVariant& value) override;
    void hoverMoveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    void updateGeometry();
    void paintPort(QPainter& p, const PortShape& port) const;
    void paintCaption(QPainter& p) const;

    DiagramScene& m_scene;
    QString m_name;
    QString m_tooltip;
    BlockShape m_layout;
    int m_rotation = 0;
    bool m_flipped = false;
    bool m_error = false;
    std::string m_hotPort;
    bool m_hotRefused = false;
    QRectF m_bodyBounds;   // rotated body incl. port tips, item coordinates
    QRectF m_label;
    QRectF m_bounds;
};

}   // namespace endstop::gui
