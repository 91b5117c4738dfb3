// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/diagram_view.hpp"

#include "gui/block_item.hpp"
#include "gui/diagram_scene.hpp"

#include <QDragEnterEvent>
#include <QGraphicsItem>
#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMimeData>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace endstop::gui {

namespace {
constexpr double kMinZoom = 0.05, kMaxZoom = 8.0;
}

DiagramView::DiagramView(DiagramScene* scene, QWidget* parent) : QGraphicsView(scene, parent), m_scene(scene) {
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    setDragMode(QGraphicsView::RubberBandDrag);
    setRubberBandSelectionMode(Qt::IntersectsItemShape);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState | QGraphicsView::DontAdjustForAntialiasing);
    setAcceptDrops(true);
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
}

void DiagramView::zoomBy(double factor) {
    const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    scale(target / zoom(), target / zoom());
}

void DiagramView::fitRect(const QRectF& rect) {
    if (rect.isEmpty()) return;
    fitInView(rect.adjusted(-40, -40, 40, 40), Qt::KeepAspectRatio);
    const double z = std::clamp(zoom(), kMinZoom, 2.0);   // a lone block should not fill the screen
    setTransform(QTransform::fromScale(z, z));
    centerOn(rect.center());
}

void DiagramView::fitAll() { fitRect(scene()->itemsBoundingRect()); }

void DiagramView::zoomToSelection() {
    QRectF box;
    for (QGraphicsItem* i : scene()->selectedItems()) box |= i->sceneBoundingRect();
    if (box.isEmpty())
        fitAll();
    else
        fitRect(box);
}

QPointF DiagramView::visibleCenter() const { return mapToScene(viewport()->rect().center()); }

void DiagramView::wheelEvent(QWheelEvent* event) {
    if (event->modifiers() & Qt::ShiftModifier) {   // shift+wheel scrolls sideways
        QGraphicsView::wheelEvent(event);
        return;
    }
    const double steps = event->angleDelta().y() / 120.0;
    if (steps != 0) zoomBy(std::pow(1.2, steps));
    event->accept();
}

void DiagramView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::MiddleButton || (m_spaceHeld && event->button() == Qt::LeftButton)) {
        m_panning = true;
        m_panLast = event->position().toPoint();
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    QGraphicsView::mousePressEvent(event);
}

void DiagramView::mouseMoveEvent(QMouseEvent* event) {
    if (m_panning) {
        const QPoint d = event->position().toPoint() - m_panLast;
        m_panLast = event->position().toPoint();
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - d.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
        event->accept();
        return;
    }
    QGraphicsView::mouseMoveEvent(event);
}

void DiagramView::mouseReleaseEvent(QMouseEvent* event) {
    if (m_panning && (event->button() == Qt::MiddleButton || event->button() == Qt::LeftButton)) {
        m_panning = false;
        viewport()->setCursor(m_spaceHeld ? Qt::OpenHandCursor : Qt::ArrowCursor);
        event->accept();
        return;
    }
    QGraphicsView::mouseReleaseEvent(event);
}

void DiagramView::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Space && !event->isAutoRepeat() && !scene()->focusItem()) {
        m_spaceHeld = true;
        viewport()->setCursor(Qt::OpenHandCursor);
        event->accept();
        return;
    }
    QGraphicsView::keyPressEvent(event);
}

void DiagramView::keyReleaseEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Space && !event->isAutoRepeat() && m_spaceHeld) {
        m_spaceHeld = false;
        if (!m_panning) viewport()->setCursor(Qt::ArrowCursor);
        event->accept();
        return;
    }
    QGraphicsView::keyReleaseEvent(event);
}

void DiagramView::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasFormat(QString::fromLatin1(kBlockTypeMime)))
        event->acceptProposedAction();
    else
        QGraphicsView::dragEnterEvent(event);
}

void DiagramView::dragMoveEvent(QDragMoveEvent* event) {
    if (event->mimeData()->hasFormat(QString::fromLatin1(kBlockTypeMime)))
        event->acceptProposedAction();
    else
        QGraphicsView::dragMoveEvent(event);
}

void DiagramView::dropEvent(QDropEvent* event) {
    const QByteArray type = event->mimeData()->data(QString::fromLatin1(kBlockTypeMime));
    if (type.isEmpty()) {
        QGraphicsView::dropEvent(event);
        return;
    }
    m_scene->addBlock(QString::fromUtf8(type), mapToScene(event->position().toPoint()));
    event->acceptProposedAction();
    setFocus();
}

// the canvas actions (added to this view by the main window), for the block under the mouse
void DiagramView::contextMenuEvent(QContextMenuEvent* event) {
    QString block;
    for (QGraphicsItem* i : items(event->pos())) {
        if (i->type() != BlockItem::Type) continue;
        block = static_cast<BlockItem*>(i)->name();
        if (!i->isSelected()) m_scene->selectBlocks({block});
        break;
    }
    if (actions().isEmpty()) return;
    QMenu menu(this);
    for (const char* name : {"parameters", "rename", "", "cut", "copy", "paste", "duplicate", "delete", "", "rotate",
                             "rotateBack", "flip", "", "selectAll"}) {
        if (!*name) menu.addSeparator();
        for (QAction* a : actions())
            if (a->objectName() == QLatin1String(name)) menu.addAction(a);
    }
    Q_EMIT contextMenuAboutToShow(&menu, block);
    menu.exec(event->globalPos());
}

}   // namespace endstop::gui
