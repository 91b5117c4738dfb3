// SPDX-License-Identifier: GPL-3.0-or-later
// DiagramView: the canvas widget. Zoom (wheel around the cursor, fit, zoom to selection), pan
// (middle drag or space + drag), rubber-band selection, and drops from the block library.
#pragma once

#include <QGraphicsView>

class QMenu;

namespace endstop::gui {

class DiagramScene;

inline constexpr const char* kBlockTypeMime = "application/x-endstop-block-type";

class DiagramView : public QGraphicsView {
    Q_OBJECT
public:
    explicit DiagramView(DiagramScene* scene, QWidget* parent = nullptr);

    DiagramScene* diagram() const { return m_scene; }
    double zoom() const { return transform().m11(); }
    void zoomBy(double factor);
    void fitAll();
    void zoomToSelection();
    QPointF visibleCenter() const;   // scene coordinates, where double-clicked blocks go

Q_SIGNALS:
    // Before the canvas context menu opens: others add their entries for the block under the
    // mouse (empty: none), e.g. Plot and Tune.
    void contextMenuAboutToShow(QMenu* menu, const QString& block);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    void fitRect(const QRectF& rect);
    DiagramScene* m_scene;
    bool m_spaceHeld = false;
    bool m_panning = false;
    QPoint m_panLast;
};

}   // namespace endstop::gui
